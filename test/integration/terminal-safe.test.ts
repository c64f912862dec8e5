// Transcripts and file names are untrusted: a model name, a parent uuid, a malformed line or a file name holding
// escape sequences (window title, clear screen, OSC 8 links, C1 CSI, bidi overrides) must never reach a terminal raw.
// The real built CLI (`node dist/cli.js`) runs every verb, text and --json, on such a transcript; no raw ESC, BEL,
// other C0/C1 control, DEL or bidi character may appear in its stdout or stderr (JSON keeps them as \u escapes).
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { sanitizeForTerminal, terminalSafeJson, terminalText } from '../../src/cli/format';
import { repoRoot } from '../support/fixtures';
import { buildTranscript } from '../support/reliability';
import { tempDir } from '../support/temp';

const cli = join(repoRoot, 'dist', 'cli.js');

const TITLE = '\x1b]0;PWNED\x07';
const CLEAR = '\x1b[2J\x1b[H';
const LINK = '\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\';
const C1 = '\u009b31m\u009d0;t\u009c';
const BIDI = '\u202eevil\u202c\u2066x\u2069';
const HOSTILE = `${TITLE}${CLEAR}${LINK}${C1}${BIDI}\x7f`;

/** What must never be written raw: C0 controls but line feed (and tab), DEL, C1 controls, LRM/RLM, bidi marks. */
// eslint-disable-next-line no-control-regex -- asserting the absence of terminal control characters
const RAW_UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

function env(): NodeJS.ProcessEnv {
  const e = { ...process.env };
  for (const k of Object.keys(e)) if (k.startsWith('ANTHROPIC_')) delete e[k];
  return e;
}

/** Runs the CLI, returning stdout and stderr as raw bytes decoded leniently (an invalid byte would show as U+FFFD). */
function run(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [cli, ...args], { env: env() });
  return { status: r.status, stdout: r.stdout.toString('utf8'), stderr: r.stderr.toString('utf8') };
}

function assertSafe(what: string, r: { stdout: string; stderr: string }): void {
  const bad = (s: string) => RAW_UNSAFE.exec(s);
  const out = bad(r.stdout);
  const err = bad(r.stderr);
  assert.equal(
    out,
    null,
    `${what}: raw U+${out?.[0].charCodeAt(0).toString(16)} on stdout:\n${JSON.stringify(r.stdout.slice(Math.max(0, (out?.index ?? 0) - 80), (out?.index ?? 0) + 40))}`,
  );
  assert.equal(
    err,
    null,
    `${what}: raw U+${err?.[0].charCodeAt(0).toString(16)} on stderr:\n${JSON.stringify(r.stderr.slice(Math.max(0, (err?.index ?? 0) - 80), (err?.index ?? 0) + 40))}`,
  );
}

/** A transcript whose model names, one parent uuid and two malformed lines carry HOSTILE, in a file named with it. */
function hostileTranscript(dir: string): string {
  const lines = buildTranscript({ rounds: 8, resultChars: () => 4_000 }).map((l, i) => {
    const o = JSON.parse(l) as Record<string, any>;
    if (o.type === 'assistant') o.message.model = `claude-${HOSTILE}`;
    if (i === 9) o.parentUuid = `gone-${HOSTILE}`;
    return JSON.stringify(o);
  });
  lines.splice(5, 0, `{"type":"user","message":${HOSTILE}`);
  lines.splice(12, 0, `not json ${HOSTILE}`);
  const file = join(dir, `session-${HOSTILE.replace(/\//g, '_')}.jsonl`);
  writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

describe('terminal safety: nothing from a transcript or a file name reaches the terminal raw', function () {
  this.timeout(300_000);
  let dir: string;
  let file: string;
  before(() => {
    dir = tempDir('ac-term-');
    file = hostileTranscript(dir);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('inspect, plan, plan --summary, doctor, repair, compact: text and --json', () => {
    const small = ['--target-tokens', '3000', '--keep-recent-tokens', '1000'];
    const runs: [string, string[]][] = [
      ['inspect', ['inspect', file]],
      ['inspect --json', ['inspect', file, '--json']],
      ['plan', ['plan', file, ...small]],
      ['plan --json', ['plan', file, ...small, '--json']],
      ['plan --summary', ['plan', file, ...small, '--summary']],
      ['doctor', ['doctor', file]],
      ['doctor --json', ['doctor', file, '--json']],
      ['repair', ['repair', file, '--out', join(dir, 'repaired.jsonl')]],
      ['compact', ['compact', file, ...small, '--out', join(dir, 'compacted.jsonl')]],
      ['compact --json', ['compact', file, ...small, '--out', join(dir, 'compacted2.jsonl'), '--json']],
    ];
    for (const [what, args] of runs) {
      const r = run(args);
      assert.ok(r.status !== null && r.status <= 2, `${what}: exit ${r.status}: ${r.stderr}`);
      assertSafe(what, r);
      if (what.endsWith('--json')) JSON.parse(r.stdout);
    }
    // The hostile text is there, shown: the model name and the file name as escapes, not dropped.
    const inspect = run(['inspect', file]);
    assert.match(inspect.stdout, /session-\\x1b\]0;PWNED\\x07/);
    assert.match(inspect.stdout, /malformed line 6: /);
    assert.match(inspect.stdout, /\\u202e/);
    // --json keeps the exact values: the model name parses back to the hostile string.
    const json = JSON.parse(run(['inspect', file, '--json']).stdout) as { rounds: { model: string | null }[] };
    assert.ok(
      json.rounds.some((r) => r.model === `claude-${HOSTILE}`),
      'the JSON value is unchanged',
    );
  });

  it('error messages on stderr: a missing file, a folder, a file that is not a transcript, an unknown command, a bad option value', () => {
    const notTranscript = join(dir, `notes-${HOSTILE.replace(/\//g, '_')}.txt`);
    writeFileSync(notTranscript, `hello ${HOSTILE}\n`);
    const runs: [string, string[]][] = [
      ['missing file', ['inspect', join(dir, `missing-${HOSTILE.replace(/\//g, '_')}.jsonl`)]],
      ['not a transcript', ['inspect', notTranscript]],
      ['unknown command', [`x${HOSTILE}`]],
      ['bad number', ['plan', file, '--target-tokens', `1${HOSTILE}`]],
      ['bad summarizer', ['compact', file, '--summarizer', `x${HOSTILE}`]],
    ];
    for (const [what, args] of runs) {
      const r = run(args);
      assert.equal(r.status, 2, `${what}: ${r.stderr}`);
      assert.ok(r.stderr.length > 0, what);
      assertSafe(what, r);
    }
  });

  it('the escaping functions: visible escapes, line breaks kept in blocks, JSON still the same value', () => {
    assert.equal(sanitizeForTerminal('a\x1b]0;t\x07b\nc\u202e\u009b'), 'a\\x1b]0;t\\x07b\\x0ac\\u202e\\x9b');
    assert.equal(terminalText('a\x1b[2Jb\nc\td\re'), 'a\\x1b[2Jb\nc\td\\x0de');
    const value = { s: HOSTILE, t: 'plain é 😀 \u2028' };
    const safe = terminalSafeJson(JSON.stringify(value));
    assert.doesNotMatch(safe, RAW_UNSAFE);
    assert.deepEqual(JSON.parse(safe), value);
  });
});

describe('terminal safety by construction: the lint rule keeps terminal writing in src/cli/format.ts', function () {
  this.timeout(300_000);
  // The project's own ESLint configuration, without type information (a probe file is in no tsconfig project).
  const lint = async (path: string, text: string) => {
    const eslint = new ESLint({ cwd: repoRoot, overrideConfig: [tseslint.configs.disableTypeChecked] });
    const [result] = await eslint.lintText(text, { filePath: join(repoRoot, path) });
    return result.messages.map((m) => `${m.ruleId}:${m.line}`);
  };
  const PROBE = [
    'export function f(w: (s: NodeJS.WritableStream) => void): boolean {',
    "  console.log('x');",
    "  process.stdout.write('y');",
    '  w(process.stderr);',
    '  return process.stderr.isTTY === true;',
    '}',
    '',
  ].join('\n');

  it('console.* and process.stdout / process.stderr are errors in src/cli (but asking isTTY) and anywhere in src/core', async () => {
    assert.deepEqual(await lint('src/cli/probe.ts', PROBE), [
      'no-console:2',
      'no-restricted-syntax:3',
      'no-restricted-syntax:4',
    ]);
    assert.deepEqual(await lint('src/core/compact/probe.ts', PROBE), [
      'no-console:2',
      'no-restricted-syntax:3',
      'no-restricted-syntax:4',
      'no-restricted-syntax:5',
    ]);
    // The one place that writes, and the extension (which writes to VS Code, not a terminal), are not restricted.
    assert.deepEqual(await lint('src/cli/format.ts', PROBE), []);
  });
});
