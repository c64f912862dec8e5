// A failing Anthropic API, table-driven: compactFile with the Anthropic summarizer against the
// fake Messages API (real @anthropic-ai/sdk on the wire) in every failure mode.
//
// For each row: the outcome is the one decided below (a CompactError whose code and message
// name the cause and the remedy, or a written result whose `attempts` record the failure and
// the offline extractive fallback), the number of requests is bounded (counted at the fake),
// and the folder is unchanged on error / gains exactly the output files on success, with the
// original byte-identical either way. Cancellation is tested before the request, during the
// stream, while waiting for headers, during retry backoff and just before the commit.
import { strict as assert } from 'node:assert';
import { createServer } from 'node:net';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { COMMITTING, compactFile } from '../../src/core/compact/compact';
import { CompactError, type CompactErrorCode, type CompactResult } from '../../src/core/compact/types';
import { startFakeAnthropic, type FakeAnthropic, type ScenarioInput } from '../support/fake-anthropic';
import { buildTranscript, diffSnapshots, snapshotDir } from '../support/reliability';
import { tempDir } from '../support/temp';

const SETTINGS = { targetTokens: 8_000, keepRecentTokens: 3_000 };
const MAX_RETRIES = 2;
const REMEDY = /try again|check|set a valid key|choose another model|offline extractive summary/i;

type Expect =
  | { outcome: 'error'; code: CompactErrorCode; message: RegExp }
  | { outcome: 'fallback'; cause: RegExp; failed: 'error' | 'prompt-too-long' }
  | { outcome: 'summary'; dropped?: boolean };

interface Row {
  name: string;
  /** Why this is the right behaviour (also in docs/RELIABILITY.md). */
  decision: string;
  scenario?: ScenarioInput;
  queue?: ScenarioInput[];
  /** Point the client at a closed port instead of the fake. */
  refused?: boolean;
  timeoutMs?: number;
  expect: Expect;
  /** Number of /v1/messages requests the fake must see: exact, or [min, max]. */
  requests: number | [number, number];
  /** The run must take at least this long (retry-after honoured). */
  minMs?: number;
  maxMs: number;
}

const RETRIED = MAX_RETRIES + 1;

const ROWS: Row[] = [
  {
    name: 'success',
    decision: 'summary from the model',
    scenario: { kind: 'text' },
    expect: { outcome: 'summary' },
    requests: 1,
    maxMs: 10_000,
  },
  {
    name: '400 prompt-too-long ("prompt is too long: N tokens > M maximum"), always',
    decision: 'cut whole rounds from the head by the reported gap, retry 3 times, then the offline summary',
    scenario: { kind: 'ptl', wording: 'prompt-too-long' },
    expect: { outcome: 'fallback', cause: /stayed too long after 3 truncated retries/, failed: 'prompt-too-long' },
    requests: 4,
    maxMs: 15_000,
  },
  {
    name: '400 prompt-too-long ("input length and max_tokens exceed context limit"), always',
    decision: 'same as the other wording',
    scenario: { kind: 'ptl', wording: 'context-limit' },
    expect: { outcome: 'fallback', cause: /stayed too long after 3 truncated retries/, failed: 'prompt-too-long' },
    requests: 4,
    maxMs: 15_000,
  },
  {
    name: '400 prompt-too-long until the request is small enough ("prompt is too long")',
    decision: 'the truncated retry succeeds; the cut rounds are recorded as dropped',
    scenario: { kind: 'ptlUntilUnder', maxChars: 40_000, wording: 'prompt-too-long' },
    expect: { outcome: 'summary', dropped: true },
    requests: [2, 3],
    maxMs: 15_000,
  },
  {
    name: '400 prompt-too-long until small enough ("exceed context limit")',
    decision: 'same',
    scenario: { kind: 'ptlUntilUnder', maxChars: 40_000, wording: 'context-limit' },
    expect: { outcome: 'summary', dropped: true },
    requests: [2, 3],
    maxMs: 15_000,
  },
  {
    name: '400 other invalid request',
    decision: 'not retried (the same request would fail again); offline summary, the 400 recorded',
    scenario: { kind: 'invalidRequest' },
    expect: {
      outcome: 'fallback',
      cause: /refused the summary request \(400: messages: text content blocks must be non-empty\)/,
      failed: 'error',
    },
    requests: 1,
    maxMs: 10_000,
  },
  {
    name: '401 invalid key',
    decision: "error 'auth', no fallback (the user asked for the API and must fix the key), nothing written",
    scenario: { kind: 'authentication' },
    expect: {
      outcome: 'error',
      code: 'auth',
      message: /rejected the API key \(401: invalid x-api-key\)\. Set a valid key/,
    },
    requests: 1,
    maxMs: 10_000,
  },
  {
    name: '403 permission',
    decision: "error 'auth', no fallback",
    scenario: { kind: 'permission' },
    expect: {
      outcome: 'error',
      code: 'auth',
      message: /not allowed to do this \(403: .*\)\. Check the key's permissions/,
    },
    requests: 1,
    maxMs: 10_000,
  },
  {
    name: '404 unknown model',
    decision: "error 'not-found' naming the model, no fallback",
    scenario: { kind: 'notFound' },
    expect: {
      outcome: 'error',
      code: 'not-found',
      message: /does not know this model \(404: model: claude-test-model\)\. Choose another model/,
    },
    requests: 1,
    maxMs: 10_000,
  },
  {
    name: '413 request too large',
    decision:
      'treated like prompt-too-long (a smaller request can pass): 3 truncated retries, then the offline summary',
    scenario: { kind: 'requestTooLarge' },
    expect: { outcome: 'fallback', cause: /stayed too long/, failed: 'prompt-too-long' },
    requests: 4,
    maxMs: 15_000,
  },
  {
    name: '429 without retry-after, always',
    decision: `retried ${MAX_RETRIES} times with backoff by the SDK, then the offline summary with the 429 recorded`,
    scenario: { kind: 'rateLimit' },
    expect: {
      outcome: 'fallback',
      cause: /Rate limited by the Anthropic API \(429: .*\), still after retries/,
      failed: 'error',
    },
    requests: RETRIED,
    maxMs: 15_000,
  },
  {
    name: '429 with retry-after: 1, always',
    decision: 'retry-after honoured between the retries, then the offline summary',
    scenario: { kind: 'rateLimit', retryAfter: 1 },
    expect: { outcome: 'fallback', cause: /Rate limited/, failed: 'error' },
    requests: RETRIED,
    minMs: 1_900,
    maxMs: 15_000,
  },
  {
    name: '429 with retry-after: 1, then success',
    decision: 'waits as told, then the summary from the model',
    queue: [{ kind: 'rateLimit', retryAfter: 1 }],
    scenario: { kind: 'text' },
    expect: { outcome: 'summary' },
    requests: 2,
    minMs: 900,
    maxMs: 15_000,
  },
  {
    name: '500 internal error, always',
    decision: 'retried, then the offline summary',
    scenario: { kind: 'apiError' },
    expect: {
      outcome: 'fallback',
      cause: /The Anthropic API failed \(500: Internal server error\), still after retries/,
      failed: 'error',
    },
    requests: RETRIED,
    maxMs: 15_000,
  },
  {
    name: '529 overloaded, always',
    decision: 'retried, then the offline summary with an attempt record',
    scenario: { kind: 'overloaded' },
    expect: { outcome: 'fallback', cause: /overloaded \(529: Overloaded\), still after retries/, failed: 'error' },
    requests: RETRIED,
    maxMs: 15_000,
  },
  {
    name: '529 once, then success',
    decision: 'the retry succeeds',
    queue: [{ kind: 'overloaded' }],
    scenario: { kind: 'text' },
    expect: { outcome: 'summary' },
    requests: 2,
    maxMs: 15_000,
  },
  {
    name: 'reply cut off by max_tokens inside <summary>, always',
    decision:
      'never written as the summary: one retry with 4× max_tokens and a reminder to close </summary>, then the offline summary',
    scenario: {
      kind: 'text',
      text: '<analysis>\nReviewed.\n</analysis>\n<summary>\n1. Primary Request: half a sum',
      stopReason: 'max_tokens',
    },
    expect: {
      outcome: 'fallback',
      cause: /reply had no complete summary: it was cut off by max_tokens before <\/summary>/,
      failed: 'error',
    },
    requests: 2,
    maxMs: 10_000,
  },
  {
    name: 'reply cut off by max_tokens once, then complete',
    decision: 'the retry (more room, the reminder) gives the summary',
    queue: [{ kind: 'text', text: '<analysis>\nReviewed the conversation in ord', stopReason: 'max_tokens' }],
    scenario: { kind: 'text' },
    expect: { outcome: 'summary' },
    requests: 2,
    maxMs: 10_000,
  },
  {
    name: 'stream cut mid-way',
    decision: 'not retried by the SDK once the answer streams; the offline summary, the broken connection named',
    scenario: { kind: 'streamCut', afterEvents: 4 },
    expect: {
      outcome: 'fallback',
      cause: /connection to the Anthropic API broke while the summary was streaming/,
      failed: 'error',
    },
    requests: 1,
    maxMs: 10_000,
  },
  {
    name: 'error event inside the stream',
    decision: 'the offline summary, the mid-stream error named with its type',
    scenario: { kind: 'streamError', afterEvents: 3 },
    expect: {
      outcome: 'fallback',
      cause: /failed in the middle of the summary \(overloaded_error: Overloaded\)/,
      failed: 'error',
    },
    requests: 1,
    maxMs: 10_000,
  },
  {
    name: 'malformed SSE',
    decision: 'the offline summary; the message says the answer could not be read and to check the base URL',
    scenario: { kind: 'malformedSse' },
    expect: { outcome: 'fallback', cause: /answer that could not be read \(invalid JSON/, failed: 'error' },
    requests: 1,
    maxMs: 10_000,
  },
  {
    name: 'server never answers (timeoutMs 300)',
    decision: 'each try times out, retried, then the offline summary',
    scenario: { kind: 'hang' },
    timeoutMs: 300,
    expect: { outcome: 'fallback', cause: /did not answer in time/, failed: 'error' },
    requests: RETRIED,
    maxMs: 15_000,
  },
  {
    name: 'connection refused',
    decision: 'retried, then the offline summary naming the unreachable API',
    refused: true,
    expect: { outcome: 'fallback', cause: /Could not reach the Anthropic API/, failed: 'error' },
    requests: 0,
    maxMs: 15_000,
  },
  {
    name: 'connection reset',
    decision: 'retried, then the offline summary',
    scenario: { kind: 'reset' },
    expect: { outcome: 'fallback', cause: /Could not reach the Anthropic API/, failed: 'error' },
    requests: RETRIED,
    maxMs: 15_000,
  },
];

async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

function workdir() {
  const dir = tempDir('ac-api-');
  const file = join(dir, 't.jsonl');
  writeFileSync(file, buildTranscript({ rounds: 30, textChars: 2_000 }).join('\n') + '\n');
  return { dir, file, original: readFileSync(file) };
}

describe('failing Anthropic API (table-driven)', function () {
  this.timeout(60_000);
  const summary: string[] = [];
  after(() => {
    console.log(`\n      ${summary.length} rows:\n${summary.map((s) => `        ${s}`).join('\n')}\n`);
  });

  for (const row of ROWS) {
    it(`${row.name} → ${row.expect.outcome === 'error' ? `error '${row.expect.code}'` : row.expect.outcome}`, async () => {
      const fake = await startFakeAnthropic({ scenario: row.scenario ?? { kind: 'text' }, queue: row.queue });
      const { dir, file, original } = workdir();
      try {
        const baseURL = row.refused ? `http://127.0.0.1:${await closedPort()}` : fake.url;
        const before = snapshotDir(dir);
        const t0 = Date.now();
        const progress: string[] = [];
        const res: unknown = await compactFile(file, {
          summarizer: 'anthropic',
          settings: SETTINGS,
          anthropic: {
            apiKey: 'sk-test-failing-api',
            model: 'claude-test-model',
            baseURL,
            maxRetries: MAX_RETRIES,
            timeoutMs: row.timeoutMs ?? 10_000,
          },
          onProgress: (m) => progress.push(m),
        }).catch((e: unknown) => e);
        const ms = Date.now() - t0;
        const requests = fake.messageRequests().length;
        if (Array.isArray(row.requests))
          assert.ok(
            requests >= row.requests[0] && requests <= row.requests[1],
            `${requests} requests at the fake, expected ${row.requests.join('..')}`,
          );
        else assert.equal(requests, row.requests, `requests at the fake (retries bounded)`);
        assert.ok(ms <= row.maxMs, `took ${ms} ms`);
        if (row.minMs) assert.ok(ms >= row.minMs, `took only ${ms} ms: retry-after not honoured`);
        assert.ok(readFileSync(file).equals(original), 'the original is byte-identical');
        const diff = diffSnapshots(before, snapshotDir(dir));
        assert.deepEqual(diff.changed, []);
        assert.deepEqual(diff.removed, []);
        let line: string;
        if (row.expect.outcome === 'error') {
          assert.ok(
            res instanceof CompactError,
            `expected a CompactError, got ${res instanceof Error ? res.stack : JSON.stringify(res)}`,
          );
          assert.equal(res.code, row.expect.code);
          assert.match(res.message, row.expect.message);
          assert.match(res.message, REMEDY);
          assert.deepEqual(diff.added, [], 'nothing written on error');
          line = `${row.name}: error '${res.code}' after ${requests} request(s), ${ms} ms — ${res.message}`;
        } else {
          assert.ok(
            !(res instanceof Error),
            `expected a result, got ${res instanceof Error ? res.stack : String(res)}`,
          );
          const result = res as CompactResult;
          assert.equal(result.mode, 'fork');
          assert.deepEqual(
            diff.added,
            [`${result.sessionId}.compactor-state.json`, `${result.sessionId}.jsonl`],
            'exactly the fork and its state file',
          );
          const out = readFileSync(result.output);
          assert.ok(out.subarray(0, original.length).equals(original), 'the output starts with the original');
          const last = result.attempts[result.attempts.length - 1];
          if (row.expect.outcome === 'fallback') {
            assert.equal(last.strategy, 'extractive');
            assert.equal(last.outcome, 'ok');
            assert.match(last.detail, row.expect.cause);
            assert.ok(
              result.attempts.some(
                (a) => a.strategy !== 'extractive' && a.outcome === (row.expect as { failed: string }).failed,
              ),
              JSON.stringify(result.attempts),
            );
            if (row.expect.failed === 'error') assert.match(last.detail, REMEDY);
            assert.match(out.toString('utf8', original.length), /extractive summary made offline by Agent Compactor/);
            line = `${row.name}: extractive fallback after ${requests} request(s), ${ms} ms — ${last.detail}`;
          } else {
            assert.equal(last.outcome, 'ok');
            assert.notEqual(last.strategy, 'extractive');
            assert.match(out.toString('utf8', original.length), /FAKE-SUMMARY-MARKER/);
            if (row.expect.dropped) {
              assert.ok(result.plan.droppedRounds > 0, 'rounds cut by the retry are recorded');
              assert.ok(result.attempts.some((a) => a.outcome === 'prompt-too-long' && (a.droppedRounds ?? 0) > 0));
            }
            line = `${row.name}: model summary after ${requests} request(s), ${ms} ms${result.plan.droppedRounds ? `, ${result.plan.droppedRounds} rounds dropped` : ''}`;
          }
        }
        summary.push(line);
      } finally {
        await fake.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }

  describe('cancellation at any point: error "cancelled", nothing written, no further requests', () => {
    const cases: {
      name: string;
      scenario: ScenarioInput;
      eventDelayMs?: number;
      abortAfter: 'start' | 'request' | 'commit';
      delayMs?: number;
      maxRequests: number;
    }[] = [
      { name: 'before anything starts', scenario: { kind: 'text' }, abortAfter: 'start', maxRequests: 0 },
      {
        name: 'while the answer streams',
        scenario: { kind: 'text' },
        eventDelayMs: 300,
        abortAfter: 'request',
        delayMs: 400,
        maxRequests: 1,
      },
      {
        name: 'while waiting for headers (server hangs)',
        scenario: { kind: 'hang' },
        abortAfter: 'request',
        delayMs: 200,
        maxRequests: 1,
      },
      {
        name: 'during retry backoff (529, retry-after 10 s)',
        scenario: {
          kind: 'error',
          status: 529,
          type: 'overloaded_error',
          message: 'Overloaded',
          headers: { 'retry-after': '10' },
        },
        abortAfter: 'request',
        delayMs: 200,
        maxRequests: 1,
      },
      {
        name: 'during retry backoff (429, retry-after 10 s)',
        scenario: { kind: 'rateLimit', retryAfter: 10 },
        abortAfter: 'request',
        delayMs: 200,
        maxRequests: 1,
      },
      {
        name: 'after the summary, just before the commit',
        scenario: { kind: 'text' },
        abortAfter: 'commit',
        maxRequests: 1,
      },
    ];
    for (const c of cases) {
      it(c.name, async () => {
        const fake: FakeAnthropic = await startFakeAnthropic({ scenario: c.scenario, eventDelayMs: c.eventDelayMs });
        const { dir, file, original } = workdir();
        try {
          const before = snapshotDir(dir);
          const controller = new AbortController();
          if (c.abortAfter === 'start') controller.abort();
          let abortedAt = 0;
          if (c.abortAfter === 'request') {
            void (async () => {
              while (fake.messageRequests().length === 0) await new Promise((r) => setTimeout(r, 5));
              await new Promise((r) => setTimeout(r, c.delayMs));
              abortedAt = Date.now();
              controller.abort();
            })();
          }
          const err = await compactFile(file, {
            summarizer: 'anthropic',
            settings: SETTINGS,
            anthropic: { apiKey: 'sk-test-cancel', baseURL: fake.url, maxRetries: 3, timeoutMs: 30_000 },
            signal: controller.signal,
            onProgress: (step) => {
              if (c.abortAfter === 'commit' && step === COMMITTING) {
                abortedAt = Date.now();
                controller.abort();
              }
            },
          }).catch((e: unknown) => e);
          assert.ok(
            err instanceof CompactError,
            `expected a CompactError, got ${err instanceof Error ? err.stack : JSON.stringify(err)}`,
          );
          assert.equal(err.code, 'cancelled');
          assert.match(err.message, /cancelled; nothing was written/);
          if (abortedAt)
            assert.ok(Date.now() - abortedAt < 2_000, `the abort took ${Date.now() - abortedAt} ms to take effect`);
          await new Promise((r) => setTimeout(r, 100));
          assert.ok(fake.messageRequests().length <= c.maxRequests, `${fake.messageRequests().length} requests`);
          assert.ok(readFileSync(file).equals(original));
          assert.deepEqual(
            diffSnapshots(before, snapshotDir(dir)),
            { added: [], removed: [], changed: [] },
            'nothing written',
          );
        } finally {
          await fake.close();
          rmSync(dir, { recursive: true, force: true });
        }
      });
    }
  });
});
