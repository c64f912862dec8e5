// Every resume command we print, copy or type, built from hostile session ids and working folders, run in a real
// shell (/bin/sh -c): nothing but the agent runs (a marker file a hostile part would create is never made), and the
// agent gets exactly the intended argv in exactly the intended folder (a fake `claude` / `codex` first on PATH records
// both). Parts that cannot be made safe (ids that are not UUIDs, folders with control characters or not absolute) get
// no command at all, with a reason, also through the CLI (its `main(args)`, in this process): `compact` (a Codex
// rollout, a Claude Code transcript), `repair` (a fork, in place, --out; text and --json) and `sessions` (text and
// --json, over a home folder of Claude Code and Codex sessions with hostile ids and folders).
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { basename, join } from 'node:path';
import { commandLine, powerShellQuote, resumeCommand, resumeParts } from '../../src/core/resume';
import type { AgentId } from '../../src/core/formats/registry';
import { resumeProblem, resumeShellLine } from '../../src/extension/model/resume';
import { brokenLinksTranscript } from '../../bench/generate-large';
import { projectFolderName } from '../../src/core/session';
import { runCliInProcess } from '../support/cliInProcess';
import { agentFixtures } from '../support/fixtures';
import { buildTranscript } from '../support/reliability';
import { tempDir } from '../support/temp';

const ID = '0b7f6a1e-2c3d-4e5f-8a9b-0c1d2e3f4a5b';

/** A scratch folder with a bin/ of fake agents that record their argv (NUL-separated) and working folder. */
function sandbox() {
  const root = realpathSync(tempDir('ac-resume-sh-'));
  const bin = join(root, 'bin');
  const record = join(root, 'record');
  mkdirSync(bin);
  mkdirSync(record);
  const fake = `#!/bin/sh\nprintf '%s\\0' "$0" "$@" > "$AC_RECORD/argv"\npwd -P > "$AC_RECORD/cwd"\n`;
  for (const name of ['claude', 'codex']) {
    writeFileSync(join(bin, name), fake);
    chmodSync(join(bin, name), 0o755);
  }
  // The marker every hostile part below tries to create (relative and absolute forms).
  const marker = join(root, 'PWNED');
  return { root, bin, record, marker };
}
type Sandbox = ReturnType<typeof sandbox>;

/** Runs `command` in /bin/sh -c from `root` with the fake agents first on PATH; returns the recorded argv and folder. */
function runInShell(
  box: Sandbox,
  command: string,
): { status: number | null; argv: string[] | null; cwd: string | null; stderr: string } {
  rmSync(join(box.record, 'argv'), { force: true });
  rmSync(join(box.record, 'cwd'), { force: true });
  const r = spawnSync('/bin/sh', ['-c', command], {
    cwd: box.root,
    encoding: 'utf8',
    env: { ...process.env, PATH: `${box.bin}:${process.env.PATH}`, AC_RECORD: box.record, HOME: box.root },
  });
  const argvFile = join(box.record, 'argv');
  const argv = existsSync(argvFile) ? readFileSync(argvFile, 'utf8').split('\0').slice(0, -1) : null;
  const cwd = existsSync(join(box.record, 'cwd'))
    ? readFileSync(join(box.record, 'cwd'), 'utf8').replace(/\n$/, '')
    : null;
  return { status: r.status, argv, cwd, stderr: r.stderr };
}

/** Folder names (under the sandbox) a shell would misread unless quoted; each one is created for real. */
const hostileFolderNames = (marker: string) => [
  'my project',
  "it's",
  'say "hi"',
  `$(touch ${marker})`,
  `\`touch ${marker}\``,
  `x; touch ${marker}; echo `,
  `a && touch ${marker}`,
  `x | touch ${marker}`,
  '$HOME ${PATH} ~ * ? [a]',
  '-P',
  '--help',
  `'; touch ${marker}; '`,
  'back\\slash',
  'ünïcödé ☃',
  '!event #comment',
];

/**
 * Folders refused outright: control characters (a newline included), bidi marks, embeddings, overrides and isolates
 * (a terminal shows the command rewritten or reordered, so the `cd` shown is not one that works), or not absolute.
 */
const REFUSED_FOLDERS = [
  'relative/dir',
  '-P',
  '--',
  '~/x',
  '/tmp/a\nb',
  '/tmp/\x1b]0;title\x07',
  '/tmp/\x1b[2J',
  '/tmp/c1\u009b31m',
  '/tmp/del\x7f',
  '/tmp/tab\there',
  '/tmp/nul\u0000',
  '/tmp/\u202eevil',
  '/tmp/\u202aembed',
  '/tmp/iso\u2066late\u2069',
  '/tmp/lrm\u200e',
  '/tmp/rlm\u200f',
];

/** Ids refused outright: not UUIDs. */
const hostileIds = (marker: string) => [
  `x; touch ${marker}; echo `,
  `$(touch ${marker})`,
  `\`touch ${marker}\``,
  `${ID}; touch ${marker}`,
  `${ID}\ntouch ${marker}`,
  `${ID} `,
  `-${ID.slice(1)}`,
  '--help',
  '../../etc/passwd',
  '',
  `${ID}\x1b]0;x\x07`,
];

describe('resume commands in a real shell: hostile ids and folders run nothing', function () {
  this.timeout(120_000);
  let box: Sandbox;
  before(() => (box = sandbox()));
  after(() => rmSync(box.root, { recursive: true, force: true }));

  const expectedArgs = (agent: AgentId) => (agent === 'codex' ? ['resume', ID] : ['--resume', ID]);

  for (const agent of ['claude-code', 'codex'] as const) {
    it(`${agent}: a folder named with quotes, $(), backticks, ;, &&, |, globs, a leading - : cd there and run exactly the agent`, () => {
      for (const name of hostileFolderNames(box.marker)) {
        const dir = join(box.root, 'work', name);
        mkdirSync(dir, { recursive: true });
        const command = resumeCommand(dir, ID, undefined, agent);
        assert.ok(command, `a command for ${JSON.stringify(name)}`);
        const r = runInShell(box, command);
        assert.equal(r.status, 0, `${command}: ${r.stderr}`);
        assert.deepEqual(r.argv?.slice(1), expectedArgs(agent), command);
        assert.equal(basename(r.argv?.[0] ?? ''), agent === 'codex' ? 'codex' : 'claude');
        assert.equal(r.cwd, dir, command);
        assert.ok(!existsSync(box.marker), `nothing else ran: ${command}`);
      }
    });

    it(`${agent}: an id that is not a UUID gets no command, with a reason`, () => {
      for (const id of hostileIds(box.marker)) {
        assert.equal(resumeCommand(box.root, id, undefined, agent), null, JSON.stringify(id));
        const parts = resumeParts(agent, box.root, id);
        assert.ok(!parts.ok && /session id/.test(parts.reason), JSON.stringify(parts));
      }
    });

    it(`${agent}: a folder with control or bidi characters, or not absolute, gets no command, with a reason`, () => {
      for (const cwd of REFUSED_FOLDERS) {
        assert.equal(resumeCommand(cwd, ID, undefined, agent), null, JSON.stringify(cwd));
        const parts = resumeParts(agent, cwd, ID);
        assert.ok(!parts.ok && /working folder/.test(parts.reason), JSON.stringify(parts));
      }
    });
  }

  it('the line the extension types (the program quoted for sh): a Claude Code path with spaces, quotes and $() runs that program with exactly --resume <id>', () => {
    const dir = join(box.root, 'opt', `my "claude" it's $(touch ${box.marker})`);
    mkdirSync(dir, { recursive: true });
    const program = join(dir, 'claude');
    copyFileSync(join(box.bin, 'claude'), program);
    chmodSync(program, 0o755);
    const line = resumeShellLine('claude-code', program, ID, 'linux');
    const r = runInShell(box, line);
    assert.equal(r.status, 0, `${line}: ${r.stderr}`);
    assert.deepEqual(r.argv, [program, '--resume', ID]);
    assert.ok(!existsSync(box.marker));
    assert.throws(() => resumeShellLine('claude-code', program, `x; touch ${box.marker}`, 'linux'), /not a session id/);
  });

  it('PowerShell (the extension on Windows): single quotes, typographic quotes included, are doubled; the program goes through the call operator', () => {
    // No PowerShell on this machine: the rules are asserted as text (a quote PowerShell reads as the end of the string
    // must be doubled, and nothing else in a single-quoted string is special).
    assert.equal(powerShellQuote("it's"), "'it''s'");
    assert.equal(
      powerShellQuote('a\u2019b\u2018c\u201ad\u201be'),
      "'a\u2019\u2019b\u2018\u2018c\u201a\u201ad\u201b\u201be'",
    );
    assert.equal(powerShellQuote('$(Remove-Item x) `n $env:PATH'), "'$(Remove-Item x) `n $env:PATH'");
    assert.equal(resumeShellLine('claude-code', 'claude', ID, 'win32'), `claude --resume ${ID}`);
    assert.equal(
      resumeShellLine('claude-code', 'C:\\Program Files\\Claude\\claude.exe', ID, 'win32'),
      `& 'C:\\Program Files\\Claude\\claude.exe' --resume ${ID}`,
    );
    assert.equal(commandLine(['-x', 'resume', ID], 'powershell'), `& '-x' resume ${ID}`);
  });

  it('the extension refuses a folder with control or bidi characters, for Copy Resume Command and Resume Session alike', () => {
    for (const purpose of ['copy', 'launch'] as const)
      for (const cwd of ['/tmp/a\nb', '/tmp/\u202eevil']) {
        const p = resumeProblem(
          { file: `/x/${ID}.jsonl`, agent: 'claude-code', sessionId: ID, cwd, cwdExists: true },
          purpose,
        );
        assert.equal(p?.code, 'unsafe');
        assert.match(p.message, /holds control or bidi characters, which a terminal does not show as they are/);
      }
  });
});

/**
 * The CLI's `main(args)` in this process (the commands it prints are what is tested, each run in a real shell; the
 * built bundle's wiring is cli.test.ts's), without any Anthropic variable.
 */
const runCli = (args: string[]) => runCliInProcess(args);

/** A copy of a real Codex rollout whose session_meta says `id` and `cwd`. */
function codexRolloutWith(dir: string, id: string, cwd: string): string {
  const source = agentFixtures('codex').find((f) => basename(f) === 'rollout-0.140.jsonl')!;
  const [first, ...rest] = readFileSync(source, 'utf8').split('\n');
  const meta = JSON.parse(first) as { payload: Record<string, unknown> };
  meta.payload.id = id;
  meta.payload.cwd = cwd;
  const file = join(dir, `rollout-2026-01-02T00-00-00-${ID}.jsonl`);
  writeFileSync(file, [JSON.stringify(meta), ...rest].join('\n'));
  return file;
}

describe('resume commands the CLI prints, run in a real shell', function () {
  this.timeout(300_000);
  let box: Sandbox;
  before(() => (box = sandbox()));
  after(() => rmSync(box.root, { recursive: true, force: true }));
  const SMALL = ['--target-tokens', '30000', '--keep-recent-tokens', '5000'];

  /** Every command the CLI offered (text and --json), each run in /bin/sh -c. */
  function runOffered(text: string, json: { resumeCommand: string | null }): ReturnType<typeof runInShell>[] {
    const lines = text.split('\n');
    const at = lines.indexOf('resume it with:');
    const offered = [at >= 0 ? lines[at + 1] : null, json.resumeCommand].filter((c): c is string => c !== null);
    return offered.map((c) => runInShell(box, c));
  }

  it('compact --in-place on a Codex rollout whose thread id is `x; touch <marker>; echo `: no command offered, the reason said, nothing runs', async () => {
    for (const id of hostileIds(box.marker).filter((i) => i)) {
      const dir = mkdtempSync(join(box.root, 'codex-id-'));
      const file = codexRolloutWith(dir, id, box.root);
      const text = await runCli(['compact', file, '--in-place', ...SMALL]);
      assert.equal(text.status, 0, text.stderr);
      const jsonRun = await runCli([
        'compact',
        codexRolloutWith(mkdtempSync(join(box.root, 'codex-id-')), id, box.root),
        '--in-place',
        '--json',
        ...SMALL,
      ]);
      assert.equal(jsonRun.status, 0, jsonRun.stderr);
      const json = JSON.parse(jsonRun.stdout) as { resumeCommand: string | null; resumeProblem?: string };
      const runs = runOffered(text.stdout, json);
      assert.ok(!existsSync(box.marker), `nothing ran for id ${JSON.stringify(id)}: ${text.stdout}`);
      assert.deepEqual(runs, [], 'no command offered');
      assert.match(text.stdout, /^no resume command: the session id .* is not a UUID/m, text.stdout);
      assert.match(json.resumeProblem ?? '', /not a UUID/);
    }
  });

  it('compact of a Codex rollout and of a Claude Code transcript recorded in hostile folders: the printed command runs exactly the agent, there', async () => {
    for (const name of hostileFolderNames(box.marker)) {
      const cwd = join(box.root, 'work', name);
      mkdirSync(cwd, { recursive: true });
      // Codex, in place (the thread id stays; it is a UUID).
      const codexDir = mkdtempSync(join(box.root, 'codex-cwd-'));
      const rollout = codexRolloutWith(codexDir, ID, cwd);
      const codexText = await runCli(['compact', rollout, '--in-place', ...SMALL]);
      assert.equal(codexText.status, 0, codexText.stderr);
      const codexJson = JSON.parse(
        (
          await runCli([
            'compact',
            codexRolloutWith(mkdtempSync(join(box.root, 'codex-cwd-')), ID, cwd),
            '--in-place',
            '--json',
            ...SMALL,
          ])
        ).stdout,
      ) as { resumeCommand: string | null };
      const codexRuns = runOffered(codexText.stdout, codexJson);
      assert.equal(codexRuns.length, 2, codexText.stdout);
      for (const r of codexRuns) {
        assert.deepEqual(r.argv?.slice(1), ['resume', ID], r.stderr);
        assert.equal(r.cwd, cwd);
      }
      // Claude Code, a fork (a new session id) of a transcript whose lines record the folder.
      const claudeDir = mkdtempSync(join(box.root, 'claude-cwd-'));
      const transcript = join(claudeDir, `${ID}.jsonl`);
      writeFileSync(
        transcript,
        buildTranscript({ rounds: 6, resultChars: () => 5_000 })
          .map((l) => JSON.stringify({ ...(JSON.parse(l) as object), cwd }))
          .join('\n') + '\n',
      );
      const claudeText = await runCli([
        'compact',
        transcript,
        '--target-tokens',
        '3000',
        '--keep-recent-tokens',
        '1000',
      ]);
      assert.equal(claudeText.status, 0, claudeText.stderr);
      const forkId = /^session: (\S+)$/m.exec(claudeText.stdout)![1];
      const claudeRuns = runOffered(claudeText.stdout, { resumeCommand: null });
      assert.equal(claudeRuns.length, 1, claudeText.stdout);
      assert.deepEqual(claudeRuns[0].argv?.slice(1), ['--resume', forkId], claudeRuns[0].stderr);
      assert.equal(claudeRuns[0].cwd, cwd);
      assert.ok(!existsSync(box.marker), `nothing else ran for folder ${JSON.stringify(name)}`);
    }
  });
});

/** `lines` lines of a conversation with broken parent links (one in 10), each recording `cwd` as its folder. */
function brokenTranscriptIn(cwd: string, lines = 30): string {
  return (
    brokenLinksTranscript(lines, 10, 1000)
      .trimEnd()
      .split('\n')
      .map((l) => JSON.stringify({ ...(JSON.parse(l) as object), cwd }))
      .join('\n') + '\n'
  );
}

/** The `resume: <command>` lines of a verb's text output. */
const resumeLines = (text: string) =>
  text
    .split('\n')
    .filter((l) => l.trimStart().startsWith('resume: '))
    .map((l) => l.trimStart().slice('resume: '.length));

describe('the commands repair and sessions print, run in a real shell: hostile ids and folders run nothing', function () {
  this.timeout(600_000);
  let box: Sandbox;
  before(() => (box = sandbox()));
  after(() => rmSync(box.root, { recursive: true, force: true }));
  // Names a shell would act on, relative to the folder the commands run from (the sandbox): the marker file.
  const HOSTILE_NAMES = [
    'x; touch PWNED; echo ',
    '$(touch PWNED)',
    '`touch PWNED`',
    `${ID}; touch PWNED`,
    `${ID} && touch PWNED`,
    '-rf',
  ];

  it('repair (a fork, --in-place, --out), text and --json, of sessions recorded in hostile folders: the resume line runs exactly claude --resume <id>, there', async () => {
    let offered = 0;
    for (const [i, name] of hostileFolderNames(box.marker).entries()) {
      const cwd = join(box.root, 'work', name);
      mkdirSync(cwd, { recursive: true });
      // Text and --json by turns (each folder name is met by both across the modes).
      for (const mode of ['fork', 'in-place', 'out'] as const)
        for (const json of [(i + ['fork', 'in-place', 'out'].indexOf(mode)) % 2 === 1]) {
          const dir = mkdtempSync(join(box.root, 'repair-'));
          const transcript = join(dir, `${ID}.jsonl`);
          writeFileSync(transcript, brokenTranscriptIn(cwd));
          const outId = '1c2d3e4f-5a6b-4c7d-8e9f-a0b1c2d3e4f5';
          const args = [
            'repair',
            transcript,
            ...(mode === 'in-place' ? ['--in-place'] : []),
            ...(json ? ['--json'] : []),
          ];
          if (mode === 'out') args.push('--out', join(dir, `${outId}.jsonl`));
          const r = await runCli(args);
          assert.equal(r.status, 0, `${args.join(' ')}: ${r.stderr}`);
          const commands = json
            ? [(JSON.parse(r.stdout) as { resumeCommand: string | null }).resumeCommand].filter((c) => c !== null)
            : resumeLines(r.stdout);
          assert.equal(commands.length, 1, r.stdout);
          // A fork gets a new id of its own.
          const id = mode === 'in-place' ? ID : mode === 'out' ? outId : null;
          const run = runInShell(box, commands[0]);
          assert.equal(run.status, 0, `${commands[0]}: ${run.stderr}`);
          assert.equal(run.argv?.[1], '--resume', commands[0]);
          if (id) assert.equal(run.argv?.[2], id);
          else assert.match(run.argv?.[2] ?? '', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
          assert.equal(run.argv?.length, 3, commands[0]);
          assert.equal(run.cwd, cwd, commands[0]);
          assert.ok(!existsSync(box.marker), `nothing else ran: ${commands[0]}`);
          offered++;
        }
    }
    assert.equal(offered, hostileFolderNames(box.marker).length * 3);
  });

  it('repair of a session whose file name is a hostile id (in place, --out a hostile name): no command, nothing runs', async () => {
    const cwd = join(box.root, 'work', 'plain');
    mkdirSync(cwd, { recursive: true });
    for (const name of HOSTILE_NAMES) {
      const dir = mkdtempSync(join(box.root, 'repair-id-'));
      const transcript = join(dir, `${name}.jsonl`);
      writeFileSync(transcript, brokenTranscriptIn(cwd));
      for (const args of [
        ['repair', transcript, '--in-place'],
        ['repair', transcript, '--in-place', '--json'],
        ['repair', join(dir, `${name}.jsonl`), '--out', join(dir, `${name}-out.jsonl`), '--json'],
      ]) {
        const r = await runCli(args);
        assert.ok(r.status === 0 || r.status === 1, `${args.join(' ')}: ${r.stderr}`);
        const commands = args.includes('--json')
          ? [(JSON.parse(r.stdout) as { resumeCommand: string | null }).resumeCommand].filter((c) => c !== null)
          : resumeLines(r.stdout);
        assert.deepEqual(commands, [], `no command for ${JSON.stringify(name)}: ${r.stdout}`);
      }
      assert.ok(!existsSync(join(box.root, 'PWNED')), `nothing ran for ${JSON.stringify(name)}`);
    }
  });

  it('sessions, text and --json, over Claude Code and Codex sessions with hostile ids and folders: every resume line runs exactly the agent, in its folder', async () => {
    const home = join(box.root, 'home');
    const projects = join(home, '.claude', 'projects');
    const rollouts = join(home, '.codex', 'sessions', '2026', '01', '02');
    mkdirSync(rollouts, { recursive: true });
    /** What each offered command must run: agent argv after the program, and the folder. */
    const expected = new Map<string, string>();
    let k = 0;
    const uuid = () => `${(0x10000000 + k++).toString(16)}-2c3d-4e5f-8a9b-0c1d2e3f4a5b`;
    for (const name of hostileFolderNames(box.marker)) {
      const cwd = join(box.root, 'work', name);
      mkdirSync(cwd, { recursive: true });
      // Claude Code finds a session only from the folder its project folder names.
      const id = uuid();
      mkdirSync(join(projects, projectFolderName(cwd)), { recursive: true });
      writeFileSync(join(projects, projectFolderName(cwd), `${id}.jsonl`), brokenTranscriptIn(cwd, 4));
      expected.set(`claude --resume ${id}`, cwd);
      const thread = uuid();
      const rollout = codexRolloutWith(rollouts, thread, cwd);
      copyFileSync(rollout, join(rollouts, `rollout-2026-01-02T00-00-0${k % 10}-${thread}.jsonl`));
      rmSync(rollout);
      expected.set(`codex resume ${thread}`, cwd);
    }
    // Hostile ids: a Claude Code file name, a Codex thread id. No command may be offered for them.
    const plain = join(box.root, 'work', 'plain');
    mkdirSync(plain, { recursive: true });
    for (const name of HOSTILE_NAMES) {
      mkdirSync(join(projects, projectFolderName(plain)), { recursive: true });
      writeFileSync(join(projects, projectFolderName(plain), `${name}.jsonl`), brokenTranscriptIn(plain, 4));
      const rollout = codexRolloutWith(rollouts, name, plain);
      copyFileSync(rollout, join(rollouts, `rollout-2026-01-02T00-00-00-x${k++}.jsonl`));
      rmSync(rollout);
    }
    const env = { HOME: home, CLAUDE_CONFIG_DIR: undefined, CODEX_HOME: undefined };
    const sessions = (json: boolean) =>
      runCliInProcess(['sessions', '--limit', '1000', ...(json ? ['--json'] : [])], { env });
    const text = await sessions(false);
    assert.equal(text.status, 0, text.stderr);
    const json = await sessions(true);
    assert.equal(json.status, 0, json.stderr);
    const listed = JSON.parse(json.stdout) as { file: string; resumeCommand: string | null }[];
    assert.equal(
      listed.length,
      2 * (hostileFolderNames(box.marker).length + HOSTILE_NAMES.length),
      'every session listed',
    );
    for (const commands of [resumeLines(text.stdout), listed.map((s) => s.resumeCommand).filter((c) => c !== null)]) {
      assert.equal(commands.length, expected.size, `one command per session with a UUID\n${commands.join('\n')}`);
      const ran = new Set<string>();
      for (const c of commands) {
        const r = runInShell(box, c);
        assert.equal(r.status, 0, `${c}: ${r.stderr}`);
        const run = `${basename(r.argv?.[0] ?? '')} ${r.argv?.slice(1).join(' ')}`;
        assert.equal(expected.get(run), r.cwd, `${c} ran ${run} in ${r.cwd}`);
        ran.add(run);
        assert.ok(!existsSync(box.marker) && !existsSync(join(box.root, 'PWNED')), `nothing else ran: ${c}`);
      }
      assert.equal(ran.size, expected.size, 'every session resumed by its own command');
    }
  });
});
