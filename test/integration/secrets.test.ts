// Secrets: a distinctive fake API key, given through the options or the environment, never
// appears in error messages, thrown errors (message, JSON, inspected form, causes), progress
// messages, results, CLI stdout/stderr (even with the SDK's debug log on), written transcripts,
// backups or sidecar files; on the wire it travels only in the auth header (checked on
// the raw bytes through a recording proxy). With the extractive summarizer (and inspect/plan)
// nothing is sent anywhere: zero connections even with a key and a base URL in the environment.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { inspect } from 'node:util';
import type { CompactResult } from '../../src/core/compact/types';
import { compactFile } from '../../src/core/compact/compact';
import { startFakeAnthropic, type FakeAnthropic, type Scenario } from '../support/fake-anthropic';
import { repoRoot } from '../support/fixtures';
import { buildTranscript, snapshotDir } from '../support/reliability';
import { assertCliBuilt } from '../support/cli';
import { tempDir } from '../support/temp';

const KEY = `sk-ant-api03-CANARY-${randomBytes(12).toString('hex')}-DO-NOT-LEAK`;
const SETTINGS = { targetTokens: 6_000, keepRecentTokens: 2_000, maxToolResultChars: 1_000 };
const cli = join(repoRoot, 'dist', 'cli.js');

interface Proxy {
  url: string;
  connections: number;
  raw(): Buffer;
  close(): Promise<void>;
}

/** A TCP proxy to the fake that records every byte the client sends. */
async function recordingProxy(targetPort: number): Promise<Proxy> {
  const chunks: Buffer[] = [];
  const sockets = new Set<Socket>();
  let connections = 0;
  const server = createServer((client) => {
    connections++;
    const upstream = createConnection(targetPort, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.on('data', (d: Buffer) => chunks.push(Buffer.from(d)));
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    get connections() {
      return connections;
    },
    raw: () => Buffer.concat(chunks),
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

function count(hay: string, needle: string): number {
  let n = 0;
  for (let i = hay.indexOf(needle); i !== -1; i = hay.indexOf(needle, i + 1)) n++;
  return n;
}

/** Every place the key must not be: returns the names of those that contain it. */
function leaks(places: Record<string, string>): string[] {
  return Object.entries(places)
    .filter(([, text]) => text.includes(KEY) || text.includes(KEY.slice(20, 44)))
    .map(([name]) => name);
}

function errorForms(err: unknown): Record<string, string> {
  const forms: Record<string, string> = {};
  if (err instanceof Error) {
    forms.message = err.message;
    forms.stack = err.stack ?? '';
    forms.json = JSON.stringify(err);
    forms.jsonAllProps = JSON.stringify(err, Object.getOwnPropertyNames(err));
    forms.inspected = inspect(err, { depth: 12 });
    let c: unknown = (err as { cause?: unknown }).cause;
    for (let i = 0; c && i < 6; i++, c = (c as { cause?: unknown }).cause) {
      forms[`cause${i}`] = `${(c as Error).message}\n${(c as Error).stack}\n${JSON.stringify(c)}`;
    }
  } else if (err !== undefined) forms.result = JSON.stringify(err);
  return forms;
}

function filesUnder(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [rel, st] of snapshotDir(dir))
    if (st.type === 'file') out[`file ${rel}`] = readFileSync(join(dir, rel), 'latin1');
  return out;
}

/** The raw client bytes: every occurrence of the key is the value of an x-api-key header, one per request. */
function assertOnlyInAuthHeader(raw: Buffer, fake: FakeAnthropic) {
  const text = raw.toString('latin1');
  const requests = count(text, 'POST /v1/messages');
  assert.equal(requests, fake.messageRequests().length);
  // The SDK sends it as `x-api-key: <key>` or `authorization: Bearer <key>` (newer SDKs).
  const inHeader = (text.match(new RegExp(`\\r\\n(x-api-key: |authorization: Bearer )${KEY}\\r\\n`, 'gi')) ?? [])
    .length;
  assert.equal(count(text, KEY), requests, 'the key is sent once per request');
  assert.equal(inHeader, requests, 'and only as the value of the auth header');
  assert.ok(!JSON.stringify(fake.requests.map((r) => r.body)).includes(KEY), 'not in any request body');
}

const SCENARIOS: { name: string; scenario: Scenario }[] = [
  { name: 'success', scenario: { kind: 'text' } },
  { name: 'failure (500, retried, fallback)', scenario: { kind: 'apiError' } },
  { name: 'prompt-too-long (fallback)', scenario: { kind: 'ptl' } },
  { name: '401', scenario: { kind: 'authentication', message: 'invalid x-api-key' } },
  { name: 'error event mid-stream', scenario: { kind: 'streamError' } },
];

describe('secrets: the API key never leaks', function () {
  this.timeout(120_000);
  let dir: string;
  let file: string;
  const saved = { key: process.env.ANTHROPIC_API_KEY, base: process.env.ANTHROPIC_BASE_URL };
  before(() => {
    assertCliBuilt();
  });
  beforeEach(() => {
    dir = tempDir('ac-secret-');
    file = join(dir, 's.jsonl');
    writeFileSync(
      file,
      buildTranscript({ rounds: 16, textChars: 1_500, resultChars: (r) => (r % 4 === 0 ? 3_000 : 300) }).join('\n') +
        '\n',
    );
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
    if (saved.key === undefined) delete process.env.ANTHROPIC_API_KEY;
    else process.env.ANTHROPIC_API_KEY = saved.key;
    if (saved.base === undefined) delete process.env.ANTHROPIC_BASE_URL;
    else process.env.ANTHROPIC_BASE_URL = saved.base;
  });

  for (const { name, scenario } of SCENARIOS) {
    for (const via of ['options', 'environment'] as const) {
      it(`${name}, key via ${via}: not in errors, results, progress or files; only in the auth header`, async () => {
        const fake = await startFakeAnthropic({ scenario });
        const proxy = await recordingProxy(fake.port);
        try {
          if (via === 'environment') process.env.ANTHROPIC_API_KEY = KEY;
          else delete process.env.ANTHROPIC_API_KEY;
          const progress: string[] = [];
          const outcome = await compactFile(file, {
            summarizer: 'anthropic',
            settings: SETTINGS,
            inPlace: true,
            anthropic: {
              apiKey: via === 'options' ? KEY : undefined,
              baseURL: proxy.url,
              maxRetries: 1,
              timeoutMs: 10_000,
            },
            onProgress: (m) => progress.push(m),
          }).catch((e: unknown) => e);
          // A key in the environment alone is not consent: the core only uses the key it is given.
          if (via === 'options') assert.ok(fake.messageRequests().length > 0, 'the API was called');
          else {
            assert.equal(fake.messageRequests().length, 0, 'no request without a key given by the caller');
            assert.ok(
              !(outcome instanceof Error) && (outcome as CompactResult).summarizer === 'extractive',
              'the offline summary was used',
            );
          }
          const found = leaks({ progress: progress.join('\n'), ...errorForms(outcome), ...filesUnder(dir) });
          assert.deepEqual(found, []);
          assertOnlyInAuthHeader(proxy.raw(), fake);
        } finally {
          await proxy.close();
          await fake.close();
        }
      });
    }
  }

  for (const { name, scenario } of SCENARIOS.filter((s) =>
    ['success', '401', 'failure (500, retried, fallback)'].includes(s.name),
  )) {
    for (const debugLog of name.startsWith('failure') ? [false] : [false, true]) {
      it(`CLI, ${name}${debugLog ? ', with ANTHROPIC_LOG=debug' : ''}: not on stdout/stderr (text and --json) nor in files`, async () => {
        const fake = await startFakeAnthropic({ scenario });
        const proxy = await recordingProxy(fake.port);
        try {
          const env: NodeJS.ProcessEnv = { ...process.env, ANTHROPIC_API_KEY: KEY };
          if (debugLog) env.ANTHROPIC_LOG = 'debug';
          const outputs: Record<string, string> = {};
          for (const json of [false, true]) {
            const args = [
              cli,
              'compact',
              file,
              '--summarizer',
              'anthropic',
              '--base-url',
              proxy.url,
              '--target-tokens',
              '6000',
              '--keep-recent-tokens',
              '2000',
              '--max-result-chars',
              '1000',
            ];
            if (json) args.push('--json');
            // spawnSync would block the fake living in this process: run it asynchronously.
            const r = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
              const child = spawn(process.execPath, args, { env });
              let stdout = '';
              let stderr = '';
              child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
              child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
              child.on('close', (code: number | null) => resolve({ code, stdout, stderr }));
            });
            if (name === '401') {
              assert.equal(r.code, 1);
              assert.match(r.stderr, /rejected the API key \(401/);
            } else assert.equal(r.code, 0, r.stderr);
            outputs[`stdout${json ? ' --json' : ''}`] = r.stdout;
            outputs[`stderr${json ? ' --json' : ''}`] = r.stderr;
          }
          // The SDK's debug log (console.debug: stdout) prints every request's headers, auth redacted.
          if (debugLog)
            assert.match(
              outputs.stdout,
              /authorization['"]?: ['"]?\*\*\*/i,
              `the SDK debug log ran and redacted the header: ${outputs.stdout.slice(0, 2000)}`,
            );
          assert.deepEqual(leaks({ ...outputs, ...filesUnder(dir) }), []);
          assertOnlyInAuthHeader(proxy.raw(), fake);
        } finally {
          await proxy.close();
          await fake.close();
        }
      });
    }
  }

  it('extractive summarizer, inspect and plan send nothing anywhere (key and base URL set in the environment)', async () => {
    const fake = await startFakeAnthropic();
    const proxy = await recordingProxy(fake.port);
    try {
      process.env.ANTHROPIC_API_KEY = KEY;
      process.env.ANTHROPIC_BASE_URL = proxy.url;
      const res = await compactFile(file, { summarizer: 'extractive', settings: SETTINGS });
      assert.equal(res.attempts[0].strategy, 'extractive');
      const env = { ...process.env, ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: proxy.url };
      for (const args of [
        ['compact', file, '--summarizer', 'extractive', '--target-tokens', '6000', '--out', join(dir, 'cli-out.jsonl')],
        ['inspect', file],
        ['inspect', file, '--json'],
        ['plan', file, '--target-tokens', '6000'],
      ]) {
        const r = await new Promise<{ code: number | null; out: string }>((resolve) => {
          const child = spawn(process.execPath, [cli, ...args], { env });
          let out = '';
          child.stdout.on('data', (d: Buffer) => (out += d.toString()));
          child.stderr.on('data', (d: Buffer) => (out += d.toString()));
          child.on('close', (code: number | null) => resolve({ code, out }));
        });
        assert.equal(r.code, 0, `${args.join(' ')}: ${r.out}`);
        assert.ok(!r.out.includes(KEY));
      }
      assert.equal(proxy.connections, 0, 'no connection was opened');
      assert.equal(fake.requests.length, 0, 'the fake received zero requests');
      assert.deepEqual(leaks(filesUnder(dir)), []);
    } finally {
      await proxy.close();
      await fake.close();
    }
  });
});
