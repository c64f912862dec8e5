// The command line, through the real built CLI (`node dist/cli.js`): exit 2 with help for no arguments, one-line
// reasons for a file or folder an unprivileged user cannot read or write, consent before anything is sent, what
// compact prints, and the exit codes (SIGINT's included). The help and parser tables, steering by hand, unusable
// input and conflicting options, as main(args) in process: test/unit/cli-args.test.ts.
import { strict as assert } from 'node:assert';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { CompactError, type CompactResult } from '../../src/core/compact/types';
import { compactErrorOutcome, renderCompactResult, resultJson } from '../../src/cli/compact';
import { startFakeAnthropic } from '../support/fake-anthropic';
import { claudeFixtureDir, repoRoot } from '../support/fixtures';
import { buildTranscript } from '../support/reliability';
import { assertCliBuilt, oneLineError } from '../support/cli';
import { tempDir } from '../support/temp';

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

describe('CLI', function () {
  this.timeout(60_000);
  let dir: string;
  let transcript: string;

  before(() => {
    assertCliBuilt();
  });
  beforeEach(() => {
    dir = tempDir('ac-cli-');
    transcript = join(dir, 's.jsonl');
    writeFileSync(
      transcript,
      buildTranscript({ rounds: 16, textChars: 1_500, resultChars: (r) => (r % 4 === 0 ? 3_000 : 300) }).join('\n') +
        '\n',
    );
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  // The help and parser tables, steering by hand, unusable input and the options compact refuses, as main(args) in
  // process: test/unit/cli-args.test.ts.
  describe('help and exit 2 from the built CLI', () => {
    it('no arguments: help on stderr, exit 2; help <unknown>: exit 2', () => {
      const r = run([]);
      assert.equal(r.status, 2);
      assert.match(r.stderr, /agent-compactor compact <file>/);
      assert.equal(run(['help', 'frobnicate']).status, 2);
    });
  });

  describe('unusable input: exit 2, one line, no raw system error', () => {
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
