// The command line, through the real built CLI (`node dist/cli.js`): help and parser made from one
// table per verb (and the README agreeing), one-line reasons and exit 2 for unusable input, consent
// before anything is sent, the keepRecentTokens floor, what compact prints, and the exit codes.
import { strict as assert } from 'node:assert';
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CompactError, type CompactResult } from '../../src/core/compact/types';
import { DEFAULT_SETTINGS } from '../../src/core/compactSettings';
import { compactErrorOutcome, renderCompactResult, resultJson } from '../../src/cli/compact';
import { parseVerbArgs, type VerbSpec } from '../../src/cli/options';
import { VERBS } from '../../src/cli/verbs';
import { startFakeAnthropic } from '../support/fake-anthropic';
import { claudeFixtureDir, repoRoot } from '../support/fixtures';
import { buildTranscript } from '../support/reliability';
import { assertCliBuilt } from '../support/cli';

const cli = join(repoRoot, 'dist', 'cli.js');
const KEY = 'sk-ant-api03-cli-test-key';
const SMALL = ['--target-tokens', '6000', '--keep-recent-tokens', '2000', '--max-result-chars', '1000'];

/** The environment without any Anthropic variable, plus `extra`. */
function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const e = { ...process.env };
  for (const k of Object.keys(e)) if (k.startsWith('ANTHROPIC_')) delete e[k];
  return { ...e, ...extra };
}

const run = (args: string[], extra: Record<string, string> = {}) =>
  spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', env: env(extra) });

/** Asynchronous run, for tests whose server lives in this process (spawnSync would block it). */
function runAsync(
  args: string[],
  extra: Record<string, string> = {},
  onSpawn?: (kill: (s: NodeJS.Signals) => void) => void,
) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [cli, ...args], { env: env(extra) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    onSpawn?.((s) => child.kill(s));
  });
}

/** A TCP server that counts connections and never answers. */
async function silentServer(): Promise<{ url: string; connections: () => number; close: () => Promise<void> }> {
  let n = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((s) => {
    n++;
    sockets.add(s);
    s.on('error', () => undefined);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    connections: () => n,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

const flagsIn = (text: string) => new Set([...text.matchAll(/(?<![\w-])--([a-z][a-z-]*)/g)].map((m) => m[1]));
const tableFlags = (v: VerbSpec) => new Set(v.options.map((o) => o.flag));
const sorted = (s: Set<string>) => [...s].sort();

function oneLineError(r: { status: number | null; stdout: string; stderr: string }, re: RegExp) {
  assert.equal(r.status, 2, r.stderr);
  assert.equal(r.stdout, '');
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.match(r.stderr, /^agent-compactor: /);
  assert.match(r.stderr, re);
  assert.doesNotMatch(r.stderr, /ENOENT|EACCES|EISDIR|lstat|stat '|at .*\.js:\d+/);
}

describe('CLI', function () {
  this.timeout(60_000);
  let dir: string;
  let transcript: string;

  before(() => {
    assertCliBuilt();
  });
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ac-cli-'));
    transcript = join(dir, 's.jsonl');
    writeFileSync(
      transcript,
      buildTranscript({ rounds: 16, textChars: 1_500, resultChars: (r) => (r % 4 === 0 ? 3_000 : 300) }).join('\n') +
        '\n',
    );
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  describe('help and parser come from one table', () => {
    for (const verb of VERBS) {
      it(`${verb.name}: --help, help ${verb.name} and the global help list exactly the options the parser accepts`, () => {
        const own = run([verb.name, '--help']);
        assert.equal(own.status, 0, own.stderr);
        const viaHelp = run(['help', verb.name]);
        assert.equal(viaHelp.status, 0);
        assert.equal(viaHelp.stdout, own.stdout);
        assert.deepEqual(
          sorted(flagsIn(own.stdout)),
          sorted(tableFlags(verb)),
          'every --flag the help mentions is in the table, and every table flag is in the help',
        );
        const global = run(['--help']);
        assert.equal(global.status, 0);
        assert.ok(
          global.stdout.includes(own.stdout.split('\n\nExit codes:')[0]),
          'the global help holds the same section',
        );
        for (const o of verb.options) {
          // Accepted by the parser, with a one-line meaning and (but for --help) a default.
          const argv = o.type === 'string' ? [`--${o.flag}`, '1'] : [`--${o.flag}`];
          assert.doesNotThrow(() => parseVerbArgs(verb, [...argv, 'f.jsonl']), `--${o.flag}`);
          const line = own.stdout.split('\n').find((l) => new RegExp(`^\\s+(-\\w, )?--${o.flag}\\b`).test(l));
          assert.ok(line, `an option line for --${o.flag}`);
          assert.ok(line.length > `--${o.flag}`.length + 10, `--${o.flag} has a meaning`);
          if (o.flag !== 'help') assert.match(line, /\(.*default: .+\)$/, `--${o.flag} has a default`);
        }
        assert.throws(() => parseVerbArgs(verb, ['--no-such-flag', 'f.jsonl']), /unknown option '--no-such-flag'/);
        assert.match(own.stdout, /^\s+130\s+cancelled/m);
        for (const code of ['0', '1', '2']) assert.match(own.stdout, new RegExp(`^\\s+${code}\\s+\\w`, 'm'));
      });
    }

    it('lists the flags the issue found missing, and --force, for compact', () => {
      const help = run(['compact', '--help']).stdout;
      for (const f of [
        'keep-recent-tokens',
        'instructions',
        'fresh',
        'max-message-chars',
        'max-result-chars',
        'summary-tokens',
        'exempt-tool',
        'force',
        'summarizer',
        'out',
        'in-place',
      ]) {
        assert.match(help, new RegExp(`^\\s+--${f}\\b`, 'm'), f);
      }
      assert.match(help, new RegExp(`--target-tokens N .*default: ${DEFAULT_SETTINGS.targetTokens}\\)`));
      assert.match(help, new RegExp(`--keep-recent-tokens N .*default: ${DEFAULT_SETTINGS.keepRecentTokens}\\)`));
      assert.match(help, /--summarizer .*default: extractive\)/);
    });

    it('no arguments: help on stderr, exit 2; help <unknown>: exit 2', () => {
      const r = run([]);
      assert.equal(r.status, 2);
      assert.match(r.stderr, /agent-compactor compact <file>/);
      assert.equal(run(['help', 'frobnicate']).status, 2);
    });

    it("README's Command line section names every flag, and only flags that exist, with the numeric defaults", () => {
      const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
      const start = readme.indexOf('## Command line');
      assert.ok(start >= 0);
      const end = readme.indexOf('\n## ', start + 3);
      const section = readme.slice(start, end < 0 ? undefined : end).replace(/claude --resume/g, 'claude resume');
      const all = new Set(['version', ...VERBS.flatMap((v) => [...tableFlags(v)])]);
      assert.deepEqual(sorted(flagsIn(section)), sorted(all));
      for (const v of VERBS) {
        for (const o of v.options) {
          if (o.default && /^\d+$/.test(o.default)) {
            const row = section.split('\n').find((l) => l.startsWith(`| \`--${o.flag}`));
            assert.ok(row, `a README row for --${o.flag}`);
            assert.ok(row.includes(`| ${o.default} |`), `README default of --${o.flag} is ${o.default}: ${row}`);
          }
        }
      }
      assert.match(section, /\*\*130\*\*/);
    });
  });

  describe('steering by hand', () => {
    it("plan --json marks each action by the user or the plan with its reason; the text marks the user's", () => {
      const r = run(['plan', transcript, ...SMALL, '--keep', '2', '--drop', '4-5', '--json']);
      assert.equal(r.status, 0, r.stderr);
      const plan = JSON.parse(r.stdout) as { rounds: { index: number; action: string; by: string; reason: string }[] };
      assert.deepEqual([plan.rounds[2].action, plan.rounds[2].by], ['keep', 'user']);
      for (const i of [4, 5])
        assert.deepEqual(
          [plan.rounds[i].action, plan.rounds[i].by, plan.rounds[i].reason],
          ['drop', 'user', 'you dropped it'],
        );
      assert.ok(plan.rounds.filter((x) => x.by === 'plan').every((x) => x.reason.length > 0));
      const text = run(['plan', transcript, ...SMALL, '--keep', '2', '--drop', '4-5']);
      assert.match(text.stdout, /◆ keep \(you\)/);
      assert.match(text.stdout, /1 kept by you, 2 dropped by you, 0 summarized by you/);
    });

    it('conflicting or unknown choices exit 2 with the reason', () => {
      oneLineError(
        run(['plan', transcript, '--keep', '3', '--drop', '2-4']),
        /round 3 is given to both --keep and --drop; choose one/,
      );
      oneLineError(
        run(['compact', transcript, '--summarize', '7', '--keep', '7']),
        /round 7 is given to both --keep and --summarize/,
      );
      oneLineError(run(['plan', transcript, '--keep', '3,x']), /--keep: 'x' is not a round index or range/);
      oneLineError(
        run(['plan', transcript, '--keep', '500']),
        /there is no round 500 \(this session has rounds 0-32\)/,
      );
      oneLineError(
        run(['plan', transcript, '--keep-result', 'toolu_0001', '--preview-result', 'toolu_0001']),
        /toolu_0001 is given to both --keep-result and --preview-result/,
      );
      oneLineError(
        run(['plan', transcript, '--preview-result', 'toolu_nope']),
        /--preview-result: no tool result with id toolu_nope/,
      );
      oneLineError(
        run(['compact', transcript, '--summary-file', join(dir, 'missing.md')]),
        /--summary-file .*missing\.md: no such file/,
      );
      assert.deepEqual(readdirSync(dir), ['s.jsonl'], 'nothing was written');
    });

    it('plan --summary prints what compact writes, writing nothing; compact --summary-file writes it verbatim', () => {
      const shown = run(['plan', transcript, ...SMALL, '--drop', '3', '--summary']);
      assert.equal(shown.status, 0, shown.stderr);
      assert.match(shown.stdout, /extractive summary made offline/);
      assert.deepEqual(readdirSync(dir), ['s.jsonl']);
      const summaryFile = join(dir, 'mine.md');
      writeFileSync(summaryFile, 'Mine, exactly:\n  indented, ünïcödé.\n');
      const printed = run(['plan', transcript, ...SMALL, '--summary', '--summary-file', summaryFile]);
      assert.equal(printed.stdout, 'Mine, exactly:\n  indented, ünïcödé.\n');
      const c = run(['compact', transcript, ...SMALL, '--drop', '3', '--summary-file', summaryFile, '--json']);
      assert.equal(c.status, 0, c.stderr);
      const result = JSON.parse(c.stdout) as { output: string; summarizer: string };
      assert.equal(result.summarizer, 'given');
      const line = readFileSync(result.output, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { isCompactSummary?: boolean; message?: { content: string } })
        .find((o) => o.isCompactSummary);
      assert.ok(line?.message?.content.endsWith('\n\nMine, exactly:\n  indented, ünïcödé.\n'));
    });
  });

  describe('unusable input: exit 2, one line, no raw system error', () => {
    for (const verb of ['inspect', 'plan', 'compact']) {
      it(`${verb}: a folder, a missing file, a path through a file`, () => {
        oneLineError(
          run([verb, dir]),
          new RegExp(`${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is a folder, not a transcript`),
        );
        oneLineError(run([verb, join(dir, 'missing.jsonl')]), /no such file: .*missing\.jsonl$/m);
        oneLineError(run([verb, join(transcript, 'x.jsonl')]), /no such file: /);
      });
    }

    it('an unreadable file (as an unprivileged user when running as root)', () => {
      const open = join(dir, 'pub');
      mkdirSync(open);
      chmodSync(dir, 0o755);
      chmodSync(open, 0o755);
      const p = join(open, 'locked.jsonl');
      copyFileSync(transcript, p);
      chmodSync(p, 0o000);
      const asRoot = process.getuid?.() === 0;
      // Root reads any file: run as an unprivileged user, with a copy of the bundled CLI it can read wherever the
      // checkout lives.
      const cliCopy = join(open, 'cli.js');
      copyFileSync(cli, cliCopy);
      chmodSync(cliCopy, 0o644);
      for (const verb of ['inspect', 'plan', 'compact']) {
        const r = spawnSync(process.execPath, [cliCopy, verb, p], {
          encoding: 'utf8',
          env: env(),
          ...(asRoot ? { uid: 65534, gid: 65534 } : {}),
        });
        assert.ok(
          !r.error && !/Cannot find module/.test(r.stderr),
          `the unprivileged user could not run ${process.execPath} ${cliCopy}: ${r.error?.message ?? r.stderr}`,
        );
        oneLineError(r, /cannot read .*locked\.jsonl: permission denied/);
      }
    });

    it('bad numbers, and --keep-recent-tokens 0 (the core refuses 0; so does the CLI, before reading)', () => {
      oneLineError(
        run(['plan', transcript, '--keep-recent-tokens', '0']),
        /--keep-recent-tokens must be a whole number of at least 1/,
      );
      oneLineError(
        run(['compact', join(dir, 'missing.jsonl'), '--keep-recent-tokens', '0']),
        /--keep-recent-tokens must be/,
      );
      oneLineError(run(['plan', transcript, '--target-tokens', 'lots']), /--target-tokens must be/);
      oneLineError(run(['plan', transcript, '--summary-tokens=-5']), /--summary-tokens must be/);
      oneLineError(
        run(['plan', transcript, '--summary-tokens', '-5']),
        /option '--summary-tokens' argument is ambiguous \(see/,
      );
      const ok = run(['plan', transcript, '--keep-recent-tokens', '2k', '--target-tokens', '6_000', '--json']);
      assert.equal(ok.status, 0, ok.stderr);
      const plan = JSON.parse(ok.stdout);
      assert.equal(plan.settings.keepRecentTokens, 2000);
      assert.equal(plan.settings.targetTokens, 6000);
    });

    it('conflicting or pointless compact options', () => {
      oneLineError(run(['compact', transcript, '--out', join(dir, 'o.jsonl'), '--in-place']), /exclude each other/);
      oneLineError(run(['compact', transcript, '--force']), /--force only applies with --out/);
      oneLineError(
        run(['compact', transcript, '--summarizer', 'gpt']),
        /--summarizer must be extractive, anthropic, claude-cli, codex-cli; got 'gpt'/,
      );
      for (const f of ['--model', '--base-url', '--instructions'])
        oneLineError(run(['compact', transcript, f, 'x']), new RegExp(`${f} only applies with --summarizer anthropic`));
      oneLineError(
        run(['compact', transcript, '--claude-path', 'x']),
        /--claude-path only applies with --summarizer claude-cli/,
      );
      oneLineError(
        run(['compact', transcript, '--summarizer', 'claude-cli', '--codex-path', 'x']),
        /--codex-path only applies with --summarizer codex-cli/,
      );
      oneLineError(
        run(['compact', transcript, '--summarizer', 'claude-cli', '--model', 'x']),
        /--model only applies with --summarizer anthropic$/m,
      );
      oneLineError(run(['compact', transcript, '--out', dir]), /is a folder; give a file path/);
      oneLineError(run(['compact', transcript, '--out', join(dir, 'nope', 'o.jsonl')]), /no such folder/);
      oneLineError(run(['compact', transcript, '--bogus']), /unknown option '--bogus'/);
    });
  });

  describe('what failed: read, write or refuse, each with its documented exit code', () => {
    /** Runs the CLI as an unprivileged user (root writes anywhere), from a copy of the bundle it can read. */
    function runUnprivileged(args: string[]) {
      const cliCopy = join(dir, 'cli.js');
      copyFileSync(cli, cliCopy);
      chmodSync(cliCopy, 0o644);
      const asRoot = process.getuid?.() === 0;
      const r = spawnSync(process.execPath, [cliCopy, ...args], {
        encoding: 'utf8',
        env: env(),
        ...(asRoot ? { uid: 65534, gid: 65534 } : {}),
      });
      assert.ok(
        !r.error && !/Cannot find module/.test(r.stderr),
        `the unprivileged user could not run the CLI: ${r.error?.message ?? r.stderr}`,
      );
      return r;
    }
    /** A folder the unprivileged user reads but cannot write, holding a readable copy of the transcript. */
    function readOnlyFolder(): { folder: string; file: string } {
      chmodSync(dir, 0o755);
      const folder = join(dir, 'ro');
      mkdirSync(folder);
      const file = join(folder, 's.jsonl');
      copyFileSync(transcript, file);
      chmodSync(file, 0o644);
      chmodSync(folder, 0o755);
      if (process.getuid?.() !== 0) chmodSync(folder, 0o555);
      return { folder, file };
    }

    it('--out into a folder it cannot write: "cannot write", exit 1, nothing written, the original unchanged', () => {
      const { folder } = readOnlyFolder();
      // The input in a folder the user can write (its lock goes beside it); only the --out folder is closed.
      const open = join(dir, 'rw');
      mkdirSync(open);
      chmodSync(open, 0o777);
      const readable = join(open, 'in.jsonl');
      copyFileSync(transcript, readable);
      chmodSync(readable, 0o644);
      const before = readFileSync(readable);
      const out = join(folder, 'out.jsonl');
      const r = runUnprivileged(['compact', readable, ...SMALL, '--out', out]);
      assert.equal(r.status, 1, r.stderr);
      const last = r.stderr.trim().split('\n').pop()!;
      assert.match(
        last,
        /^agent-compactor: cannot write .*ro\/out\.jsonl: permission denied; the original is unchanged$/,
      );
      assert.doesNotMatch(r.stderr, /cannot read|EACCES|at .*\.js:\d+/);
      assert.deepEqual(readdirSync(folder), ['s.jsonl']);
      assert.ok(readFileSync(readable).equals(before));
    });

    it('a fork beside a transcript in a folder it cannot write: "cannot write" (the lock), exit 1, nothing written', () => {
      const { folder, file } = readOnlyFolder();
      const before = readFileSync(file);
      const r = runUnprivileged(['compact', file, ...SMALL]);
      assert.equal(r.status, 1, r.stderr);
      assert.match(
        r.stderr.trim().split('\n').pop()!,
        /^agent-compactor: cannot write .*ro\/s\.jsonl\.compactor\.lock: permission denied; the original is unchanged$/,
      );
      assert.doesNotMatch(r.stderr, /cannot read/);
      assert.deepEqual(readdirSync(folder), ['s.jsonl']);
      assert.ok(readFileSync(file).equals(before));
    });

    it('--out naming the original is refused: exit 2 as --help documents, one line, the original unchanged', () => {
      const before = readFileSync(transcript);
      for (const out of [transcript, join(dir, '.', 's.jsonl')]) {
        const r = run(['compact', transcript, ...SMALL, '--out', out]);
        assert.equal(r.status, 2, r.stderr);
        assert.match(r.stderr.trim().split('\n').pop()!, /^agent-compactor: The output would overwrite the original/);
      }
      assert.ok(readFileSync(transcript).equals(before));
      assert.match(
        run(['compact', '--help']).stdout,
        /\n {2}2 {4}unusable input or arguments \(.*the original named as the output\)/,
      );
      assert.match(run(['compact', '--help']).stdout, /\n {2}1 {4}failure \(.*a file could not be written\)/);
    });
  });

  describe('consent before anything is sent', () => {
    it('a key in the environment alone sends nothing: the default is extractive', async () => {
      const server = await silentServer();
      try {
        const before = readdirSync(dir);
        const r = await runAsync(['compact', transcript, ...SMALL, '--out', join(dir, 'o.jsonl'), '--json'], {
          ANTHROPIC_API_KEY: KEY,
          ANTHROPIC_BASE_URL: server.url,
        });
        assert.equal(r.code, 0, r.stderr);
        const j = JSON.parse(r.stdout);
        assert.equal(j.summarizer, 'extractive');
        assert.ok(j.attempts.every((a: { strategy: string }) => a.strategy === 'extractive'));
        assert.equal(server.connections(), 0, 'no connection was opened');
        assert.ok(readdirSync(dir).length > before.length, 'the result was written');
      } finally {
        await server.close();
      }
    });

    it('--summarizer anthropic without ANTHROPIC_API_KEY: exit 2, nothing sent or written', async () => {
      const server = await silentServer();
      try {
        for (const key of [undefined, '', '  ']) {
          const before = readdirSync(dir).sort();
          const r = await runAsync(['compact', transcript, ...SMALL, '--summarizer', 'anthropic'], {
            ANTHROPIC_BASE_URL: server.url,
            ...(key === undefined ? {} : { ANTHROPIC_API_KEY: key }),
          });
          assert.equal(r.code, 2, r.stderr);
          assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
          assert.match(
            r.stderr,
            /--summarizer anthropic needs an API key in ANTHROPIC_API_KEY.*nothing was sent or written/,
          );
          assert.deepEqual(readdirSync(dir).sort(), before);
        }
        assert.equal(server.connections(), 0);
      } finally {
        await server.close();
      }
    });

    it('--summarizer anthropic with the key: it reaches the API, and the output says which summarizer ran', async () => {
      const fake = await startFakeAnthropic({ scenario: { kind: 'text' } });
      try {
        const r = await runAsync(
          [
            'compact',
            transcript,
            ...SMALL,
            '--summarizer',
            'anthropic',
            '--base-url',
            fake.url,
            '--out',
            join(dir, 'o.jsonl'),
          ],
          { ANTHROPIC_API_KEY: KEY },
        );
        assert.equal(r.code, 0, r.stderr);
        assert.ok(fake.messageRequests().length > 0, 'the API was called');
        assert.ok(
          fake.messageRequests().every((q) => q.headers['x-api-key'] === true || q.headers.authorization === true),
          'with the key',
        );
        assert.match(r.stdout, /^summarizer: (anthropic|extractive|none)\b/m);
        assert.ok(!r.stdout.includes(KEY) && !r.stderr.includes(KEY));
      } finally {
        await fake.close();
      }
    });
  });

  describe('compact output and exit codes', () => {
    it('text: the file, the mode, the session id and the summarizer; --json: the whole result with the resume fields', () => {
      const out = join(dir, 'o.jsonl');
      const r = run(['compact', transcript, ...SMALL, '--out', out]);
      assert.equal(r.status, 0, r.stderr);
      const lines = r.stdout.split('\n');
      assert.ok(
        lines.some((l) => l.startsWith('wrote ') && l.endsWith('o.jsonl')),
        r.stdout,
      );
      assert.ok(
        lines.some((l) => /^mode: (out|fork|in place)\b/.test(l)),
        r.stdout,
      );
      assert.ok(
        lines.some((l) => l.startsWith('session: ')),
        r.stdout,
      );
      assert.ok(lines.includes('summarizer: extractive (offline; nothing was sent)'), r.stdout);
      const j = JSON.parse(run(['compact', transcript, ...SMALL, '--out', join(dir, 'o2.jsonl'), '--json']).stdout);
      for (const k of [
        'output',
        'mode',
        'sessionId',
        'cwd',
        'resumeCommand',
        'summarizer',
        'carriedOverBytes',
        'attempts',
        'plan',
        'preTokens',
        'postTokens',
      ])
        assert.ok(k in j, k);
      assert.deepEqual(Object.keys(j).slice(0, 6), [
        'output',
        'mode',
        'sessionId',
        'cwd',
        'resumeCommand',
        'summarizer',
      ]);
    });

    it('nothing to compact exits 0 with the message on stdout', () => {
      const p = join(dir, 'small.jsonl');
      copyFileSync(join(claudeFixtureDir, 'example.jsonl'), p);
      const r = run(['compact', p]);
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stdout, /^Nothing to /);
      const j = run(['compact', p, '--json']);
      assert.equal(j.status, 0);
      assert.equal(JSON.parse(j.stdout).nothingToDo, true);
    });

    it('SIGINT while the summary request is pending: exit 130, one line, nothing written', async () => {
      const server = await silentServer();
      try {
        const before = readdirSync(dir).sort();
        const r = await runAsync(
          ['compact', transcript, ...SMALL, '--summarizer', 'anthropic', '--base-url', server.url],
          { ANTHROPIC_API_KEY: KEY },
          (kill) => {
            const t = setInterval(() => {
              if (server.connections() > 0) {
                clearInterval(t);
                kill('SIGINT');
              }
            }, 50);
          },
        );
        assert.equal(r.code, 130, r.stderr);
        assert.match(r.stderr.trim().split('\n').pop()!, /^agent-compactor: .*cancelled/i);
        assert.deepEqual(readdirSync(dir).sort(), before);
      } finally {
        await server.close();
      }
    });
  });

  describe('rendering (pure)', () => {
    const plan = {
      overheadTokens: 0,
      rounds: [],
      summarizedRounds: 3,
      droppedRounds: 0,
      toolResults: [],
      notes: [],
    } as unknown as CompactResult['plan'];
    const base: CompactResult = {
      output: '/p/1b2c.jsonl',
      mode: 'fork',
      sessionId: '0b7f6a1e-2c3d-4e5f-8a9b-0c1d2e3f4a5b',
      cwd: '/home/u/my project',
      resumeCommand: "cd '/home/u/my project' && claude --resume 0b7f6a1e-2c3d-4e5f-8a9b-0c1d2e3f4a5b",
      summarizer: 'anthropic',
      carriedOverBytes: 0,
      backup: null,
      preTokens: 50_000,
      postTokens: 9_000,
      attempts: [{ attempt: 1, strategy: 'anthropic', outcome: 'ok', detail: 'summary written' }],
      plan,
      summaryChars: 100,
      summaryDetail: 'standard',
      toolResultsDir: null,
    };

    it('prints the resume command on a line of its own, the mode, the session and the summarizer', () => {
      const lines = renderCompactResult(base, 'anthropic', 'claude-x').split('\n');
      assert.equal(lines[0], 'wrote /p/1b2c.jsonl');
      assert.match(lines[1], /^mode: fork \(/);
      assert.equal(lines[2], `session: ${base.sessionId}`);
      assert.ok(lines.includes(base.resumeCommand!), 'the command alone on a line');
      assert.ok(
        lines.includes('summarizer: anthropic (claude-x); the summarized rounds were sent to the Anthropic API'),
      );
      const inPlace = renderCompactResult(
        {
          ...base,
          mode: 'in-place',
          resumeCommand: null,
          sessionId: null,
          summarizer: 'none',
          backup: '/p/s.jsonl.bak',
        },
        'extractive',
        'm',
      );
      assert.match(inPlace, /^mode: in place/m);
      assert.match(inPlace, /^session: unknown$/m);
      assert.doesNotMatch(inPlace, /resume/);
      assert.match(inPlace, /^summarizer: none/m);
    });

    it('says when the Anthropic summarizer fell back, and why', () => {
      const text = renderCompactResult(
        {
          ...base,
          summarizer: 'extractive',
          attempts: [
            { attempt: 1, strategy: 'anthropic', outcome: 'error', detail: '500' },
            {
              attempt: 2,
              strategy: 'extractive',
              outcome: 'ok',
              detail: 'the Anthropic summary failed (500); fell back to the offline summary',
            },
          ],
        },
        'anthropic',
        'm',
      );
      assert.match(
        text,
        /^summarizer: extractive \(offline\): the Anthropic summarizer fell back: the Anthropic summary failed \(500\)/m,
      );
    });

    it('keeps control characters from the transcript out of the terminal', () => {
      const text = renderCompactResult(
        { ...base, resumeCommand: "cd '/x\x1b]0;pwn\x07' && claude --resume id" },
        'anthropic',
        'm',
      );
      // eslint-disable-next-line no-control-regex -- asserting the absence of terminal control characters
      assert.doesNotMatch(text, /[\x1b\x07]/);
    });

    it('JSON always carries the resume fields, null when unknown', () => {
      const j = resultJson({
        ...base,
        sessionId: undefined,
        cwd: undefined,
        resumeCommand: undefined,
      } as unknown as CompactResult);
      const parsed = JSON.parse(JSON.stringify(j));
      assert.equal(parsed.sessionId, null);
      assert.equal(parsed.cwd, null);
      assert.equal(parsed.resumeCommand, null);
      assert.equal(parsed.summarizer, 'anthropic');
    });

    it("maps errors to exit codes: 'exists' 2 with a --force hint, nothing-to-compact 0, cancelled 130, others 1", () => {
      const exists = compactErrorOutcome(new CompactError('exists', '/p/o.jsonl already exists.'), false);
      assert.equal(exists.code, 2);
      assert.match(
        exists.stderr!,
        /^agent-compactor: \/p\/o\.jsonl already exists\. \(add --force to replace it, or choose another --out path\)\n$/,
      );
      assert.equal(
        compactErrorOutcome(new CompactError('exists', 'x exists; use --force to replace it'), false).stderr,
        'agent-compactor: x exists; use --force to replace it\n',
      );
      const nothing = compactErrorOutcome(new CompactError('nothing-to-compact', 'Nothing to gain: …'), true);
      assert.equal(nothing.code, 0);
      assert.equal(JSON.parse(nothing.stdout!).nothingToDo, true);
      assert.equal(compactErrorOutcome(new CompactError('cancelled', 'Compaction cancelled'), false).code, 130);
      for (const code of [
        'auth',
        'api',
        'network',
        'changed-on-disk',
        'locked',
        'invalid-output',
        'write-failed',
      ] as const)
        assert.equal(compactErrorOutcome(new CompactError(code, 'x'), false).code, 1, code);
      assert.equal(compactErrorOutcome(new CompactError('unsafe-path', 'x'), false).code, 2);
    });
  });
});
