/**
 * A local fake of the OpenAI Responses API, speaking the streaming wire format the real Codex CLI reads.
 *
 * Listens on 127.0.0.1 on a random free port and records every request. `POST /v1/responses` (and
 * `/responses`) is answered with SSE: `response.created`, `response.output_item.added`,
 * `response.output_text.delta`, `response.output_item.done`, `response.completed` (with `usage`). A WebSocket
 * upgrade is answered 404 (Codex then falls back to HTTP). Anything else gets `{}` / an empty model list.
 *
 * By default every request gets the same text reply and a rough size (`fakeInputTokens`). Given `options.script`,
 * the fake answers each request by looking at it (text, tool calls, Codex's remote compaction item), and its usage is
 * the request's true size, counted with the tokenizer the same way for every request (`countResponsesRequestTokens`).
 * A scenario other than the default `text` makes the answer cut off (`response.incomplete`, reason
 * max_output_tokens), refused (a 400 error), or never sent (`hang`, until close()).
 */
import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { countTokensInPieces } from '../../src/core/tokens/exact';

export interface RecordedResponsesRequest {
  index: number;
  method: string;
  pathname: string;
  /** Parsed JSON body, undefined when empty or not JSON. */
  body: unknown;
}

export interface FakeResponses {
  /** Base URL including `/v1`, e.g. http://127.0.0.1:1234/v1 */
  url: string;
  requests: RecordedResponsesRequest[];
  /** The recorded `POST …/responses` requests only. */
  responsesRequests(): RecordedResponsesRequest[];
  close(): Promise<void>;
}

export type ResponsesScenario = 'text' | 'incomplete' | 'badRequest' | 'hang';

export const FAKE_REPLY_TEXT = 'Resumed; continuing from the summary.';

function sse(res: http.ServerResponse, event: string, data: Record<string, unknown>): void {
  res.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);
}

/** Input tokens the fake reports: about one per four characters of the request's `input` (sessions grow as real ones do). */
export function fakeInputTokens(body: unknown): number {
  const input = (body as { input?: unknown } | undefined)?.input;
  return Math.max(1, Math.ceil(JSON.stringify(input ?? '').length / 4));
}

/** A reply cut off by the output limit: the text so far, then `response.incomplete` (max_output_tokens). */
function answerIncomplete(res: http.ServerResponse, n: number, text: string): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const id = `resp_fake_${n}`;
  const item = {
    type: 'message',
    id: `msg_fake_${n}`,
    role: 'assistant',
    status: 'incomplete',
    content: [{ type: 'output_text', text, annotations: [] }],
  };
  sse(res, 'response.created', { response: { id, object: 'response', status: 'in_progress', output: [] } });
  sse(res, 'response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', content: [] } });
  sse(res, 'response.output_text.delta', { output_index: 0, content_index: 0, item_id: item.id, delta: text });
  sse(res, 'response.output_item.done', { output_index: 0, item });
  sse(res, 'response.incomplete', {
    response: {
      id,
      object: 'response',
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
      output: [item],
    },
  });
  res.end();
}

/** The request's size by part: `instructions`, `tools` (their JSON) and `input` items, each counted with the tokenizer. */
export interface ResponsesRequestTokens {
  instructions: number;
  tools: number;
  input: number;
  total: number;
}

/**
 * Tokens of one input item: what it says (message text, a call's name and arguments, an output's text, a reasoning
 * summary); an opaque blob (`encrypted_content` of reasoning or of a `compaction` item) by its characters over 4, as
 * the real size of what the server decrypts is unknowable offline; anything else by its JSON.
 */
export function countResponsesItemTokens(item: any): number {
  const text = (content: any): string =>
    typeof content === 'string'
      ? content
      : Array.isArray(content)
        ? content.map((c: any) => (typeof c?.text === 'string' ? c.text : '')).join('')
        : '';
  const blob = (s: unknown) => (typeof s === 'string' ? Math.ceil(s.length / 4) : 0);
  switch (item?.type) {
    case 'message':
      return countTokensInPieces(text(item.content));
    case 'function_call':
      return countTokensInPieces(String(item.name ?? '')) + countTokensInPieces(String(item.arguments ?? ''));
    case 'custom_tool_call':
      return countTokensInPieces(String(item.name ?? '')) + countTokensInPieces(String(item.input ?? ''));
    case 'function_call_output':
    case 'custom_tool_call_output': {
      const o = item.output;
      return countTokensInPieces(
        typeof o === 'string'
          ? o
          : Array.isArray(o)
            ? text(o)
            : typeof o?.content === 'string'
              ? o.content
              : JSON.stringify(o ?? ''),
      );
    }
    case 'reasoning':
      return countTokensInPieces(text(item.summary)) + blob(item.encrypted_content);
    case 'compaction':
    case 'compaction_summary':
      return blob(item.encrypted_content);
    default:
      return countTokensInPieces(JSON.stringify(item ?? null));
  }
}

/** The true size of a Responses request, counted the same way for every request. */
export function countResponsesRequestTokens(body: any): ResponsesRequestTokens {
  const instructions = typeof body?.instructions === 'string' ? countTokensInPieces(body.instructions) : 0;
  const tools = Array.isArray(body?.tools) ? countTokensInPieces(JSON.stringify(body.tools)) : 0;
  const input = (Array.isArray(body?.input) ? (body.input as unknown[]) : []).reduce(
    (n: number, i) => n + countResponsesItemTokens(i),
    0,
  );
  return { instructions, tools, input, total: instructions + tools + input };
}

/** What a scripted fake answers a request with: output items (messages, function calls, a compaction item). */
export type ResponsesReply = { text: string } | { call: { name: string; arguments: string } } | { compaction: string };

export interface FakeResponsesOptions {
  /** Answers each `POST …/responses` by looking at it; usage is then `countResponsesRequestTokens`. */
  script: (body: any, index: number) => ResponsesReply;
}

function outputItem(n: number, reply: ResponsesReply): { item: Record<string, unknown>; text: string } {
  if ('call' in reply)
    return {
      item: {
        type: 'function_call',
        id: `fc_fake_${n}`,
        status: 'completed',
        call_id: `call_fake_${n}`,
        name: reply.call.name,
        arguments: reply.call.arguments,
      },
      text: reply.call.arguments,
    };
  if ('compaction' in reply)
    return { item: { type: 'compaction', id: `cmp_fake_${n}`, encrypted_content: reply.compaction }, text: '' };
  return {
    item: {
      type: 'message',
      id: `msg_fake_${n}`,
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: reply.text, annotations: [] }],
    },
    text: reply.text,
  };
}

function answer(
  res: http.ServerResponse,
  n: number,
  reply: ResponsesReply,
  inputTokens: number,
  countOutput: (text: string) => number,
): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const id = `resp_fake_${n}`;
  const { item, text } = outputItem(n, reply);
  sse(res, 'response.created', { response: { id, object: 'response', status: 'in_progress', output: [] } });
  if (item.type === 'message') {
    sse(res, 'response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', content: [] } });
    sse(res, 'response.output_text.delta', { output_index: 0, content_index: 0, item_id: item.id, delta: text });
  } else sse(res, 'response.output_item.added', { output_index: 0, item });
  sse(res, 'response.output_item.done', { output_index: 0, item });
  const output = countOutput(text);
  const usage = {
    input_tokens: inputTokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: inputTokens + output,
  };
  sse(res, 'response.completed', { response: { id, object: 'response', status: 'completed', output: [item], usage } });
  res.end();
}

export async function startFakeResponses(
  reply: string | FakeResponsesOptions = FAKE_REPLY_TEXT,
  scenario: ResponsesScenario = 'text',
): Promise<FakeResponses> {
  const scripted = typeof reply === 'string' ? null : reply;
  const replyText = typeof reply === 'string' ? reply : FAKE_REPLY_TEXT;
  const requests: RecordedResponsesRequest[] = [];
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = raw ? (JSON.parse(raw) as unknown) : undefined;
      } catch {
        body = undefined;
      }
      const pathname = (req.url ?? '/').split('?')[0];
      const rec: RecordedResponsesRequest = { index: requests.length, method: req.method ?? 'GET', pathname, body };
      requests.push(rec);
      if (req.method === 'POST' && /\/responses$/.test(pathname)) {
        if (scripted) {
          answer(res, rec.index, scripted.script(body, rec.index), countResponsesRequestTokens(body).total, (t) =>
            countTokensInPieces(t),
          );
          return;
        }
        if (scenario === 'hang') return;
        if (scenario === 'incomplete') return answerIncomplete(res, rec.index, replyText);
        if (scenario === 'badRequest') {
          res.writeHead(400, { 'content-type': 'application/json' });
          res.end(
            JSON.stringify({
              error: {
                message: 'fake: this request is refused',
                type: 'invalid_request_error',
                code: 'invalid_request',
              },
            }),
          );
          return;
        }
        answer(res, rec.index, { text: replyText }, fakeInputTokens(body), (t) => Math.ceil(t.length / 4));
        return;
      }
      if (/\/responses$/.test(pathname)) {
        // The WebSocket attempt (a GET with Upgrade): no upgrade, so Codex falls back to HTTP streaming.
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"error":{"message":"no websocket here"}}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(/\/models$/.test(pathname) ? JSON.stringify({ object: 'list', data: [], models: [] }) : '{}');
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    responsesRequests: () => requests.filter((r) => r.method === 'POST' && /\/responses$/.test(r.pathname)),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
