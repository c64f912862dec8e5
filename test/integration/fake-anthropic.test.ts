/**
 * The fake Anthropic server, exercised through the REAL @anthropic-ai/sdk client: every scenario must surface
 * exactly as the real API's answer would (same SDK error classes, statuses, messages, retry behaviour).
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import Anthropic, {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  AuthenticationError,
  BadRequestError,
  ContentTooLargeError,
  InternalServerError,
  NotFoundError,
  OverloadedError,
  PermissionDeniedError,
  RateLimitError,
} from '@anthropic-ai/sdk';
import {
  DEFAULT_SUMMARY_TEXT,
  countRequestTokens,
  estimateRequestSize,
  startFakeAnthropic,
  type FakeAnthropic,
  type Scenario,
} from '../support/fake-anthropic';
import { countTokensExact } from '../../src/core/tokens/exact';
import { tempDir } from '../support/temp';

const PTL_RE = /prompt is too long[^0-9]*(\d+)\s*tokens?\s*>\s*(\d+)/;
const CONTEXT_LIMIT_RE = /input length and max_tokens exceed context limit:\s*(\d+)\s*\+\s*(\d+)\s*>\s*(\d+)/;

function params(content = 'Hello there', extra: Record<string, unknown> = {}) {
  return {
    model: 'claude-test-model',
    max_tokens: 1024,
    messages: [{ role: 'user' as const, content }],
    ...extra,
  };
}

describe('fake Anthropic server (with the real @anthropic-ai/sdk)', function () {
  this.timeout(30_000);
  let fake: FakeAnthropic;
  let client: Anthropic;

  beforeEach(async () => {
    fake = await startFakeAnthropic();
    client = new Anthropic({ apiKey: 'test-key', baseURL: fake.url, maxRetries: 0 });
  });
  afterEach(async () => {
    await fake.close();
  });

  it('listens on 127.0.0.1 with a random port', () => {
    assert.match(fake.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.ok(fake.port > 0);
    assert.equal(fake.url, `http://127.0.0.1:${fake.port}`);
  });

  it('streams the default <analysis>/<summary> text with usage and stop_reason', async () => {
    const stream = client.messages.stream(params('Summarize please'));
    const deltas: string[] = [];
    stream.on('text', (t) => deltas.push(t));
    const msg = await stream.finalMessage();
    assert.equal(msg.role, 'assistant');
    assert.equal(msg.stop_reason, 'end_turn');
    assert.equal(msg.content.length, 1);
    assert.equal(msg.content[0].type, 'text');
    assert.equal((msg.content[0] as { text: string }).text, DEFAULT_SUMMARY_TEXT);
    assert.ok(deltas.length > 1, 'text arrives in several deltas');
    assert.equal(deltas.join(''), DEFAULT_SUMMARY_TEXT);
    assert.match(DEFAULT_SUMMARY_TEXT, /<analysis>[\s\S]*<\/analysis>[\s\S]*<summary>[\s\S]*<\/summary>/);
    // The true size of the request: the tokenizer's count of its only text (no system prompt, no tools here).
    assert.equal(msg.usage.input_tokens, countTokensExact('Summarize please'));
    assert.equal(msg.usage.output_tokens, Math.ceil(DEFAULT_SUMMARY_TEXT.length / 4));
    assert.equal(msg.usage.cache_read_input_tokens, 0);
    assert.equal(msg.model, 'claude-test-model');
    assert.match(msg.id, /^msg_/);
  });

  it('sends the SSE events in the real order', async () => {
    const stream = await client.messages.create({ ...params(), stream: true });
    const types: string[] = [];
    for await (const ev of stream) types.push(ev.type);
    assert.deepEqual(
      [...new Set(types)],
      [
        'message_start',
        'content_block_start',
        'content_block_delta',
        'content_block_stop',
        'message_delta',
        'message_stop',
      ],
    );
    assert.equal(types[0], 'message_start');
    assert.equal(types[types.length - 1], 'message_stop');
  });

  it('answers non-streaming requests with a JSON message, text as a function of the request', async () => {
    fake.setScenario({ kind: 'text', text: (req) => `echo: ${req.body.messages[0].content}` });
    const msg = await client.messages.create(params('ping-123'));
    assert.deepEqual(msg.content, [{ type: 'text', text: 'echo: ping-123' }]);
    assert.equal(msg.stop_reason, 'end_turn');
    assert.ok(msg.usage.input_tokens > 0);
  });

  it('records requests: method, path with query, redacted api key, parsed body', async () => {
    // Claude Code posts to /v1/messages?beta=true; this SDK's beta client adds no query, so ask for it.
    const betaClient = new Anthropic({
      apiKey: 'test-key',
      baseURL: fake.url,
      maxRetries: 0,
      defaultQuery: { beta: 'true' },
    });
    await betaClient.beta.messages.create(params('beta call'));
    await client.messages.create(params('plain call'));
    const [beta, plain] = fake.requests;
    assert.equal(beta.method, 'POST');
    assert.equal(beta.path, '/v1/messages?beta=true');
    assert.equal(beta.pathname, '/v1/messages');
    assert.equal(beta.kind, 'messages');
    assert.equal(plain.path, '/v1/messages');
    // SDK 1.12 sends the key as `authorization: Bearer …`; Claude Code sends `x-api-key`. Both are redacted.
    assert.equal(plain.headers['authorization'], true, JSON.stringify(plain.headers));
    assert.ok(!JSON.stringify(fake.requests).includes('test-key'), 'the key never appears in the records');
    assert.match(String(plain.headers['anthropic-version']), /^\d{4}-\d{2}-\d{2}$/);
    await fetch(`${fake.url}/v1/messages?beta=true`, {
      method: 'POST',
      headers: { 'x-api-key': 'secret-key-xyz', 'content-type': 'application/json' },
      body: JSON.stringify(params('raw')),
    }).then((r) => r.text());
    assert.equal(fake.requests[2].headers['x-api-key'], true);
    assert.ok(!JSON.stringify(fake.requests).includes('secret-key-xyz'));
    assert.equal(plain.body.messages[0].content, 'plain call');
    assert.equal(plain.messagesIndex, 1);
    assert.deepEqual(
      { ...plain.response, messageId: undefined },
      { scenario: 'text', status: 200, messageId: undefined },
    );
    assert.match(String(plain.response?.messageId), /^msg_fake_/);
    assert.equal(fake.messageRequests().length, 3);
  });

  it('answers count_tokens with the tokenizer count, and other paths harmlessly', async () => {
    const text = 'The quick brown fox jumps over the lazy dog. '.repeat(100);
    const body = params(text);
    const count = await client.messages.countTokens({ model: body.model, messages: body.messages });
    assert.equal(count.input_tokens, countTokensExact(text));
    assert.ok(count.input_tokens >= 900 && count.input_tokens < 1100, String(count.input_tokens));
    const res = await fetch(`${fake.url}/api/hello?x=1`);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), {});
    const models = await fetch(`${fake.url}/v1/models`);
    assert.equal(models.status, 200);
    const other = fake.requests.filter((r) => r.kind === 'other').map((r) => `${r.method} ${r.path}`);
    assert.deepEqual(other, ['GET /api/hello?x=1', 'GET /v1/models']);
    assert.equal(fake.requests[0].kind, 'count_tokens');
  });

  it('honourMaxTokens cuts a long text at max_tokens (4 chars a token) and stops with max_tokens, like the real API', async () => {
    const long = 'abcdefghij'.repeat(10);
    fake.setScenario({ kind: 'text', text: long, honourMaxTokens: true });
    const cut = await client.messages.stream(params('x', { max_tokens: 10 })).finalMessage();
    assert.equal((cut.content[0] as { text: string }).text, long.slice(0, 40));
    assert.equal(cut.stop_reason, 'max_tokens');
    assert.equal(cut.usage.output_tokens, 10);
    const whole = await client.messages.create(params('x', { max_tokens: 25 }));
    assert.equal((whole.content[0] as { text: string }).text, long);
    assert.equal(whole.stop_reason, 'end_turn');
    fake.setScenario({ kind: 'text', text: long, stopReason: 'max_tokens' });
    const told = await client.messages.create(params('x', { max_tokens: 5 }));
    assert.equal((told.content[0] as { text: string }).text, long, 'without honourMaxTokens the text is sent as given');
    assert.equal(told.stop_reason, 'max_tokens');
  });

  it('toolUse answers with a text block and a tool_use block streamed as input_json_delta, stop_reason tool_use', async () => {
    fake.setScenario({
      kind: 'toolUse',
      text: 'Reading it.',
      name: 'Read',
      input: { file_path: '/tmp/x.js', limit: 3 },
    });
    const msg = await client.messages.stream(params('read x')).finalMessage();
    assert.equal(msg.stop_reason, 'tool_use');
    assert.equal(msg.content.length, 2);
    assert.equal(msg.content[0].type, 'text');
    assert.equal((msg.content[0] as { text: string }).text, 'Reading it.');
    const call = msg.content[1] as { type: string; id: string; name: string; input: unknown };
    assert.equal(call.type, 'tool_use');
    assert.equal(call.name, 'Read');
    assert.deepEqual(call.input, { file_path: '/tmp/x.js', limit: 3 });
    assert.match(call.id, /^toolu_fake_/);
    assert.equal(fake.requests[0].response?.messageId, msg.id);
  });

  it('reports usage.input_tokens as the tokenizer count of system, messages and tools, the same rule for every request', async () => {
    const tools = [
      {
        name: 'Read',
        description: 'Reads a file from the local filesystem.',
        input_schema: { type: 'object' as const, properties: { file_path: { type: 'string' } } },
      },
    ];
    const system = 'You are a careful assistant working in a sample project.';
    const body = params('What does calc.js do?', { system, tools });
    const msg = await client.messages.create(body);
    const expected =
      countTokensExact(system) + countTokensExact('What does calc.js do?') + countTokensExact(JSON.stringify(tools));
    assert.equal(msg.usage.input_tokens, expected);
    assert.deepEqual(countRequestTokens(fake.requests[0].body), {
      system: countTokensExact(system),
      tools: countTokensExact(JSON.stringify(tools)),
      messages: countTokensExact('What does calc.js do?'),
      total: expected,
    });
  });

  it('uses byIndex, then the queue, then the default scenario', async () => {
    fake.setScenario({ kind: 'text', text: 'default' });
    fake.enqueue({ kind: 'text', text: 'q1' }, { kind: 'text', text: 'q2' });
    fake.setScenarioAt(1, { kind: 'text', text: 'at-1' });
    const texts: string[] = [];
    for (let i = 0; i < 4; i++) {
      const m = await client.messages.create(params());
      texts.push((m.content[0] as { text: string }).text);
    }
    assert.deepEqual(texts, ['q1', 'at-1', 'q2', 'default']);
  });

  describe('error scenarios surface as the SDK error classes', () => {
    const cases: Array<{
      name: string;
      scenario: Scenario;
      cls: new (...a: any[]) => APIError;
      status: number;
      type: string;
      message: RegExp;
      stream?: boolean;
    }> = [
      {
        name: 'prompt too long (tokens > maximum)',
        scenario: { kind: 'ptl', tokens: 210118, maximum: 200000 },
        cls: BadRequestError,
        status: 400,
        type: 'invalid_request_error',
        message: /^prompt is too long: 210118 tokens > 200000 maximum$/,
      },
      {
        name: 'prompt too long (context limit wording)',
        scenario: { kind: 'ptl', wording: 'context-limit', tokens: 196348, maxTokens: 21333, maximum: 200000 },
        cls: BadRequestError,
        status: 400,
        type: 'invalid_request_error',
        message: /^input length and max_tokens exceed context limit: 196348 \+ 21333 > 200000$/,
      },
      {
        name: 'other invalid_request_error',
        scenario: { kind: 'invalidRequest', message: 'messages.1.content: Field required' },
        cls: BadRequestError,
        status: 400,
        type: 'invalid_request_error',
        message: /^messages\.1\.content: Field required$/,
      },
      {
        name: '401 authentication_error',
        scenario: { kind: 'authentication' },
        cls: AuthenticationError,
        status: 401,
        type: 'authentication_error',
        message: /invalid x-api-key/,
      },
      {
        name: '403 permission_error',
        scenario: { kind: 'permission' },
        cls: PermissionDeniedError,
        status: 403,
        type: 'permission_error',
        message: /permission/,
      },
      {
        name: '404 not_found_error (unknown model)',
        scenario: { kind: 'notFound' },
        cls: NotFoundError,
        status: 404,
        type: 'not_found_error',
        message: /^model: claude-test-model$/,
      },
      {
        name: '413 request_too_large',
        scenario: { kind: 'requestTooLarge' },
        cls: ContentTooLargeError,
        status: 413,
        type: 'request_too_large',
        message: /maximum allowed number of bytes/,
      },
      {
        name: '429 rate_limit_error',
        scenario: { kind: 'rateLimit' },
        cls: RateLimitError,
        status: 429,
        type: 'rate_limit_error',
        message: /rate limit/,
      },
      {
        name: '500 api_error',
        scenario: { kind: 'apiError' },
        cls: InternalServerError,
        status: 500,
        type: 'api_error',
        message: /^Internal server error$/,
      },
      {
        name: '529 overloaded_error',
        scenario: { kind: 'overloaded' },
        cls: OverloadedError,
        status: 529,
        type: 'overloaded_error',
        message: /^Overloaded$/,
      },
      {
        name: '529 overloaded_error (streaming request)',
        scenario: { kind: 'overloaded' },
        cls: OverloadedError,
        status: 529,
        type: 'overloaded_error',
        message: /^Overloaded$/,
        stream: true,
      },
      {
        name: 'generic error',
        scenario: { kind: 'error', status: 400, type: 'invalid_request_error', message: 'custom' },
        cls: BadRequestError,
        status: 400,
        type: 'invalid_request_error',
        message: /^custom$/,
      },
    ];
    for (const c of cases) {
      it(c.name, async () => {
        fake.setScenario(c.scenario);
        const call = c.stream ? client.messages.stream(params()).finalMessage() : client.messages.create(params());
        const err = await call.then(
          () => assert.fail('expected an error'),
          (e: unknown) => e,
        );
        assert.ok(
          err instanceof c.cls,
          `expected ${c.cls.name}, got ${(err as Error)?.constructor?.name}: ${String(err)}`,
        );
        const e = err;
        assert.equal(e.status, c.status);
        assert.equal(e.type, c.type);
        assert.match(e.apiMessage ?? '', c.message);
        assert.ok(e.message.startsWith(`${c.status} `), e.message);
        // Anthropic's exact body shape and the request-id header.
        const body = e.error as any;
        assert.deepEqual(Object.keys(body), ['type', 'error', 'request_id']);
        assert.equal(body.type, 'error');
        assert.deepEqual(Object.keys(body.error), ['type', 'message']);
        assert.match(body.request_id, /^req_/);
        assert.equal(e.requestID, body.request_id);
        assert.equal(fake.requests.length, 1, 'maxRetries: 0 means exactly one request');
      });
    }

    it('prompt-too-long messages match the parsers used by Claude Code', async () => {
      fake.setScenario({ kind: 'ptl', maximum: 200000 });
      const big = params('y'.repeat(900_000));
      const e1 = (await client.messages.create(big).catch((e) => e)) as APIError;
      const m1 = PTL_RE.exec(e1.apiMessage ?? '');
      assert.ok(m1, e1.message);
      assert.equal(Number(m1[1]), estimateRequestSize(big).estimatedTokens);
      assert.equal(Number(m1[2]), 200000);
      fake.setScenario({ kind: 'ptl', wording: 'context-limit', maximum: 200000 });
      const e2 = (await client.messages.create(params()).catch((e) => e)) as APIError;
      const m2 = CONTEXT_LIMIT_RE.exec(e2.apiMessage ?? '');
      assert.ok(m2, e2.message);
      assert.ok(Number(m2[1]) + Number(m2[2]) > Number(m2[3]), 'the numbers really exceed the limit');
    });

    it('ptlUntilUnder answers PTL with a realistic count until the request is small enough', async () => {
      fake.setScenario({ kind: 'ptlUntilUnder', maxEstimatedTokens: 10_000, then: { kind: 'text', text: 'fits now' } });
      const sizes = [80_000, 60_000, 44_000];
      for (const chars of sizes) {
        const body = params('z'.repeat(chars));
        const err = (await client.messages.create(body).catch((e) => e)) as APIError;
        assert.ok(err instanceof BadRequestError, String(err));
        const m = PTL_RE.exec(err.apiMessage ?? '');
        assert.ok(m, err.message);
        assert.equal(Number(m[1]), estimateRequestSize(body).estimatedTokens);
        assert.equal(Number(m[2]), 10_000);
      }
      const ok = await client.messages.create(params('z'.repeat(20_000)));
      assert.equal((ok.content[0] as { text: string }).text, 'fits now');

      fake.setScenario({ kind: 'ptlUntilUnder', maxChars: 5_000, wording: 'context-limit' });
      const err = (await client.messages.create(params('q'.repeat(6_000))).catch((e) => e)) as APIError;
      const m = CONTEXT_LIMIT_RE.exec(err.apiMessage ?? '');
      assert.ok(m, err.message);
      assert.equal(Number(m[2]), 1024);
      assert.equal(Number(m[3]), 1250);
      assert.ok(Number(m[1]) + Number(m[2]) > Number(m[3]));
      const fine = await client.messages.stream(params('q'.repeat(4_000))).finalMessage();
      assert.equal((fine.content[0] as { text: string }).text, DEFAULT_SUMMARY_TEXT);
    });

    it('429 without retry-after has no retry-after header', async () => {
      fake.setScenario({ kind: 'rateLimit' });
      const err = (await client.messages.create(params()).catch((e) => e)) as APIError;
      assert.ok(err instanceof RateLimitError);
      assert.equal(err.headers?.get('retry-after'), null);
      assert.equal(err.headers?.get('request-id'), err.requestID);
    });

    it('429 retry-after is honoured by the SDK when maxRetries > 0', async () => {
      const retrying = new Anthropic({ apiKey: 'test-key', baseURL: fake.url, maxRetries: 2 });
      fake.enqueue({ kind: 'rateLimit', retryAfter: 1 }, { kind: 'rateLimit', retryAfter: 1 });
      fake.setScenario({ kind: 'text', text: 'after the wait' });
      const t0 = Date.now();
      const msg = await retrying.messages.create(params());
      const elapsed = Date.now() - t0;
      assert.equal((msg.content[0] as { text: string }).text, 'after the wait');
      assert.equal(fake.requests.length, 3, 'two 429s then a success');
      assert.ok(elapsed >= 1900, `waited ${elapsed} ms for two retry-after: 1`);
      assert.deepEqual(
        fake.requests.map((r) => r.headers['x-stainless-retry-count']),
        ['0', '1', '2'],
      );
      const err = (await retrying.messages.create(params()).catch((e) => e)) as unknown;
      assert.ok(!(err instanceof Error), 'default scenario succeeds');
    });

    it('429 with retry-after gives up after maxRetries', async () => {
      const retrying = new Anthropic({ apiKey: 'test-key', baseURL: fake.url, maxRetries: 1 });
      fake.setScenario({ kind: 'rateLimit', retryAfter: 0.2 });
      const err = (await retrying.messages.create(params()).catch((e) => e)) as APIError;
      assert.ok(err instanceof RateLimitError);
      assert.equal(err.headers?.get('retry-after'), '0.2');
      assert.equal(fake.requests.length, 2);
    });
  });

  describe('broken transports', () => {
    it('a stream cut mid-way rejects (after partial text)', async () => {
      fake.setScenario({ kind: 'streamCut', afterEvents: 4 });
      const stream = client.messages.stream(params());
      const texts: string[] = [];
      stream.on('text', (t) => texts.push(t));
      const err = await stream.finalMessage().then(
        () => assert.fail('expected an error'),
        (e: unknown) => e as Error,
      );
      assert.match(String(err.message), /terminated/);
      assert.ok(texts.join('').length > 0, 'some text arrived before the cut');
      assert.ok(texts.join('').length < DEFAULT_SUMMARY_TEXT.length);
    });

    it('a non-streaming answer cut mid-body rejects', async () => {
      fake.setScenario({ kind: 'streamCut' });
      await assert.rejects(client.messages.create(params()), /terminated/);
    });

    it('an error event mid-stream surfaces as an APIError of type overloaded_error', async () => {
      fake.setScenario({ kind: 'streamError', afterEvents: 3 });
      const err = (await client.messages
        .stream(params())
        .finalMessage()
        .catch((e) => e)) as APIError;
      assert.ok(err instanceof APIError, String(err));
      assert.equal(err.status, undefined);
      assert.equal(err.type, 'overloaded_error');
      assert.equal(err.apiMessage, 'Overloaded');
      assert.equal(fake.requests[0].response?.status, 200);
    });

    it('streamError on a non-streaming request is an HTTP 529', async () => {
      fake.setScenario({ kind: 'streamError' });
      await assert.rejects(client.messages.create(params()), OverloadedError);
    });

    it('malformed SSE rejects with a JSON parse error', async () => {
      fake.setScenario({ kind: 'malformedSse' });
      const quiet = new Anthropic({ apiKey: 'test-key', baseURL: fake.url, maxRetries: 0, logLevel: 'off' });
      await assert.rejects(quiet.messages.stream(params()).finalMessage(), /JSON/);
      await assert.rejects(quiet.messages.create(params()));
    });

    it('reset destroys the connection: APIConnectionError', async () => {
      fake.setScenario({ kind: 'reset' });
      await assert.rejects(client.messages.create(params()), APIConnectionError);
      assert.equal(fake.requests.length, 1, 'the request was still recorded');
      assert.equal(fake.requests[0].response?.scenario, 'reset');
    });

    it('hang is ended by the SDK timeout; close() ends the hanging connection', async () => {
      fake.setScenario({ kind: 'hang' });
      const impatient = new Anthropic({ apiKey: 'test-key', baseURL: fake.url, maxRetries: 0, timeout: 300 });
      const t0 = Date.now();
      await assert.rejects(impatient.messages.create(params()), APIConnectionTimeoutError);
      assert.ok(Date.now() - t0 < 5000);
      // A raw request still hanging when close() runs is ended by close().
      const pending = fetch(`${fake.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...params(), stream: true }),
      }).then(
        () => 'answered',
        () => 'failed',
      );
      while (fake.requests.length < 2) await new Promise((r) => setTimeout(r, 10));
      const t1 = Date.now();
      await fake.close();
      assert.equal(await pending, 'failed');
      assert.ok(Date.now() - t1 < 2000, 'close() does not wait for the hanging request');
    });
  });

  it('close() leaves no open handles (a process using it exits on its own)', async function () {
    this.timeout(60_000);
    const repoRoot = path.resolve(__dirname, '..', '..');
    const dir = tempDir('fake-anthropic-handles-');
    const script = path.join(dir, 'child.ts');
    const fakePath = path.join(repoRoot, 'test', 'support', 'fake-anthropic.ts');
    fs.writeFileSync(
      script,
      `
const { createRequire } = require('node:module');
const req = createRequire(${JSON.stringify(path.join(repoRoot, 'package.json'))});
const Anthropic = req('@anthropic-ai/sdk').default;
const { startFakeAnthropic } = require(${JSON.stringify(fakePath)});
(async () => {
  const fake = await startFakeAnthropic();
  const client = new Anthropic({ apiKey: 'k', baseURL: fake.url, maxRetries: 0, timeout: 30000 });
  const p = { model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] };
  await client.messages.stream(p).finalMessage();
  await client.messages.create(p);
  fake.setScenario({ kind: 'hang' });
  await client.messages.create(p, { timeout: 300 }).catch(() => {}); // the hanging request, given up by the client
  fetch(fake.url + '/v1/messages', { method: 'POST', body: JSON.stringify(p) }).catch(() => {});
  while (fake.requests.length < 4) await new Promise((r) => setTimeout(r, 10));
  await fake.close();
  console.log('closed');
})();
`,
    );
    try {
      const child = spawn(process.execPath, ['--import', 'tsx', script], {
        cwd: repoRoot,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let killed = false;
      let timer: NodeJS.Timeout | undefined;
      // The bound counts from close() on: before it, the child's start (tsx, the SDK) takes what a busy machine gives.
      child.stdout.on('data', (d) => {
        out += d;
        if (timer === undefined && /closed/.test(out))
          timer = setTimeout(() => {
            killed = true;
            child.kill('SIGKILL');
          }, 20_000);
      });
      child.stderr.on('data', (d) => (out += d));
      const code = await new Promise<number | null>((r) => child.on('close', r));
      clearTimeout(timer);
      assert.equal(killed, false, `the child did not exit by itself after close(): ${out}`);
      assert.equal(code, 0, out);
      assert.match(out, /closed/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('estimateRequestSize', () => {
  it('counts system, text, tool_use input, tool_result content, images and tools', () => {
    const body = {
      system: [{ type: 'text', text: 'S'.repeat(100) }],
      tools: [{ name: 't', input_schema: {} }],
      messages: [
        { role: 'user', content: 'U'.repeat(40) },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'T'.repeat(8), signature: 'sig' },
            { type: 'tool_use', id: 'x', name: 'Read', input: { a: 1 } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'x', content: [{ type: 'text', text: 'R'.repeat(12) }] },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
          ],
        },
      ],
    };
    const s = estimateRequestSize(body);
    const expected = 100 + JSON.stringify(body.tools).length + 40 + 8 + 'Read'.length + '{"a":1}'.length + 12 + 6400;
    assert.equal(s.chars, expected);
    assert.equal(s.estimatedTokens, Math.ceil(expected / 4));
    assert.equal(s.messages, 3);
    assert.deepEqual(estimateRequestSize(undefined), { chars: 0, estimatedTokens: 0, messages: 0 });
  });
});
