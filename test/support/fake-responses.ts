/**
 * A local fake of the OpenAI Responses API, speaking the streaming wire format the real Codex CLI reads.
 *
 * Listens on 127.0.0.1 on a random free port and records every request. `POST /v1/responses` (and
 * `/responses`) is answered with SSE: `response.created`, `response.output_item.added`,
 * `response.output_text.delta`, `response.output_item.done`, `response.completed` (with `usage`). A WebSocket
 * upgrade is answered 404 (Codex then falls back to HTTP). Anything else gets `{}` / an empty model list.
 * A scenario other than the default `text` makes the answer cut off (`response.incomplete`, reason
 * max_output_tokens), refused (a 400 error), or never sent (`hang`, until close()).
 */
import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

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
  const item = { type: 'message', id: `msg_fake_${n}`, role: 'assistant', status: 'incomplete', content: [{ type: 'output_text', text, annotations: [] }] };
  sse(res, 'response.created', { response: { id, object: 'response', status: 'in_progress', output: [] } });
  sse(res, 'response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', content: [] } });
  sse(res, 'response.output_text.delta', { output_index: 0, content_index: 0, item_id: item.id, delta: text });
  sse(res, 'response.output_item.done', { output_index: 0, item });
  sse(res, 'response.incomplete', { response: { id, object: 'response', status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, output: [item] } });
  res.end();
}

function answer(res: http.ServerResponse, n: number, text: string, inputTokens: number): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const id = `resp_fake_${n}`;
  const item = { type: 'message', id: `msg_fake_${n}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] };
  sse(res, 'response.created', { response: { id, object: 'response', status: 'in_progress', output: [] } });
  sse(res, 'response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', content: [] } });
  sse(res, 'response.output_text.delta', { output_index: 0, content_index: 0, item_id: item.id, delta: text });
  sse(res, 'response.output_item.done', { output_index: 0, item });
  const output = Math.ceil(text.length / 4);
  const usage = { input_tokens: inputTokens, input_tokens_details: { cached_tokens: 0 }, output_tokens: output, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: inputTokens + output };
  sse(res, 'response.completed', { response: { id, object: 'response', status: 'completed', output: [item], usage } });
  res.end();
}

export async function startFakeResponses(replyText = FAKE_REPLY_TEXT, scenario: ResponsesScenario = 'text'): Promise<FakeResponses> {
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
        if (scenario === 'hang') return;
        if (scenario === 'incomplete') return answerIncomplete(res, rec.index, replyText);
        if (scenario === 'badRequest') {
          res.writeHead(400, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: { message: 'fake: this request is refused', type: 'invalid_request_error', code: 'invalid_request' } }));
          return;
        }
        answer(res, rec.index, replyText, fakeInputTokens(body));
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
