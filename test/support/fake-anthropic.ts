/**
 * A local fake of the Anthropic Messages API, speaking the real wire format.
 *
 * Used by
 *  - tests of our summarizer, which talks to it through the REAL `@anthropic-ai/sdk` client
 *    (`new Anthropic({ apiKey: 'test-key', baseURL: fake.url, maxRetries: 0 })`), and
 *  - the real Claude Code CLI (`ANTHROPIC_BASE_URL=fake.url`, see ./claude-code.ts).
 *
 * It listens on 127.0.0.1 on a random free port, records every request (API keys redacted), and answers
 *  - POST /v1/messages (with or without `?beta=true`), streaming (SSE) or not, according to a scenario;
 *  - POST /v1/messages/count_tokens with the request's true size (see `countRequestTokens`), the same count
 *    every answer reports as `usage.input_tokens`;
 *  - anything else with something harmless (`{}` / an empty model list), recorded like the rest.
 *
 * Scenarios (see `Scenario`) are table driven: a default (`options.scenario` / `setScenario`), a FIFO queue
 * (`options.queue` / `enqueue`) and per-index overrides (`options.byIndex`, keyed by the 0-based index of the
 * /v1/messages request). Precedence: byIndex, then queue, then default. A scenario may also be a function of
 * the recorded request returning a scenario.
 *
 * Error bodies use Anthropic's exact shape
 *   {"type":"error","error":{"type":"…","message":"…"},"request_id":"req_…"}
 * with a matching `request-id` header.
 */
import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { countTokensInPieces } from '../../src/core/tokens/exact';

// ---------------------------------------------------------------------------------------------------------------
// Types

export interface RecordedRequest {
  /** 0-based index over ALL requests received by this server. */
  index: number;
  /** 0-based index over POST /v1/messages requests only (undefined for other paths). */
  messagesIndex?: number;
  method: string;
  /** Path including the query string, e.g. `/v1/messages?beta=true`. */
  path: string;
  /** Path without the query string. */
  pathname: string;
  kind: 'messages' | 'count_tokens' | 'other';
  /** Lower-cased header names. `x-api-key` and `authorization` are redacted to `true` (present). */
  headers: Record<string, string | boolean>;
  /** Parsed JSON body (undefined when the body is empty or not JSON). */
  body: any;
  /** Raw body length in bytes. */
  bodyBytes: number;
  receivedAt: number;
  /**
   * What the fake did: the scenario kind, the HTTP status it sent (0 when it never sent a status line) and, for a
   * complete answer, the id of the message it answered with (Claude Code records it as `message.id`).
   */
  response?: { scenario: string; status: number; messageId?: string };
}

export type PtlWording = 'prompt-too-long' | 'context-limit';

export type Scenario =
  /** Success. `text` defaults to DEFAULT_SUMMARY_TEXT; may be a function of the request. */
  | {
      kind: 'text';
      text?: string | ((req: RecordedRequest) => string);
      stopReason?: 'end_turn' | 'max_tokens' | 'stop_sequence';
      /**
       * Behave like the real API's output limit: a text longer than the request's `max_tokens` (at the fake's
       * 4 characters per token) is cut there and stops with `max_tokens`; a shorter one is sent whole.
       */
      honourMaxTokens?: boolean;
      model?: string;
      /** Override the reported usage (defaults are computed from the request/answer sizes). */
      usage?: Partial<Usage>;
      /** Open the answer with a thinking block, as the API streams it (see `ThinkingBlock`). */
      thinking?: ThinkingBlock;
    }
  /**
   * A prompt-too-long 400. `tokens` given: used verbatim; otherwise the request's estimate, raised just enough to
   * exceed `maximum` (default 200000). `maxTokens` (context-limit wording) defaults to the request's max_tokens.
   */
  | { kind: 'ptl'; wording?: PtlWording; tokens?: number; maximum?: number; maxTokens?: number }
  /**
   * Prompt-too-long while the request is bigger than the limit, with a token count computed from the request
   * size; once it is small enough, answer with `then` (default: a `text` success).
   */
  | {
      kind: 'ptlUntilUnder';
      maxChars?: number;
      maxEstimatedTokens?: number;
      wording?: PtlWording;
      then?: Scenario;
    }
  /**
   * A successful answer calling one tool: an optional text block, then a `tool_use` block (`stop_reason: tool_use`),
   * as the real API streams it (`input_json_delta`). Drives an agent through its tool loop.
   */
  | {
      kind: 'toolUse';
      name: string;
      input: Record<string, unknown>;
      text?: string;
      model?: string;
      thinking?: ThinkingBlock;
    }
  | { kind: 'invalidRequest'; message?: string }
  | { kind: 'authentication'; message?: string }
  | { kind: 'permission'; message?: string }
  | { kind: 'notFound'; message?: string }
  | { kind: 'requestTooLarge'; message?: string }
  /** 429; `retryAfter` in seconds sets the `retry-after` header (omitted when undefined). */
  | { kind: 'rateLimit'; retryAfter?: number; message?: string }
  | { kind: 'apiError'; message?: string }
  | { kind: 'overloaded'; message?: string }
  /** Any error status/type/message, with optional extra headers. */
  | { kind: 'error'; status: number; type: string; message: string; headers?: Record<string, string> }
  /** A streaming answer whose socket is destroyed after `afterEvents` SSE events (default 3); non-streaming: half a JSON body. */
  | { kind: 'streamCut'; afterEvents?: number; text?: string }
  /** A streaming answer with an `error` event after `afterEvents` events (default 3), then the end; non-streaming: the matching HTTP error (529 for overloaded_error). */
  | { kind: 'streamError'; afterEvents?: number; errorType?: string; message?: string; text?: string }
  /** A 200 SSE answer whose second event carries invalid JSON; non-streaming: a 200 with an invalid JSON body. */
  | { kind: 'malformedSse' }
  /** Accept the request and never answer (until close()). */
  | { kind: 'hang' }
  /** Destroy the socket as soon as the request has been read. */
  | { kind: 'reset' };

/**
 * A thinking block opening an answer. With `display: "omitted"` (what Claude Code 2.1.330 asks for) the API sends
 * an empty `thinking` text and only the signature; `thinking` gives text to send instead.
 */
export interface ThinkingBlock {
  signature: string;
  thinking?: string;
}

export type ScenarioInput = Scenario | ((req: RecordedRequest) => Scenario);

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

export interface FakeAnthropicOptions {
  /** Default scenario (default: `{ kind: 'text' }`). */
  scenario?: ScenarioInput;
  /** Scenarios consumed in order by successive /v1/messages requests, before falling back to the default. */
  queue?: ScenarioInput[];
  /** Scenario for the N-th (0-based) /v1/messages request; wins over queue and default. */
  byIndex?: Record<number, ScenarioInput>;
  /** Model name reported in answers when the request has none. */
  model?: string;
  /** Delay between SSE events in ms (default 0). */
  eventDelayMs?: number;
  /**
   * Each stream writes this many events, then waits for releaseStreams() (or close()): a test sees the reply half
   * written for as long as it needs, whatever the machine's speed. Default: no pause.
   */
  pauseAfterEvents?: number;
  /** Log every request path to stderr (default: env FAKE_ANTHROPIC_LOG is set). */
  log?: boolean;
}

export interface FakeAnthropic {
  /** `http://127.0.0.1:<port>` — pass as `baseURL` / `ANTHROPIC_BASE_URL`. */
  url: string;
  port: number;
  /** Every request received, in arrival order (live array). */
  requests: RecordedRequest[];
  /** Only the POST /v1/messages requests. */
  messageRequests(): RecordedRequest[];
  /** Replace the default scenario. */
  setScenario(s: ScenarioInput): void;
  /** Append scenarios to the queue. */
  enqueue(...s: ScenarioInput[]): void;
  /** Set the scenario of the N-th /v1/messages request (0-based, counted since start). */
  setScenarioAt(messagesIndex: number, s: ScenarioInput): void;
  /** Forget recorded requests (indexes keep counting). */
  clearRequests(): void;
  /** Let the streams paused by `pauseAfterEvents` go on, and every later one run through. */
  releaseStreams(): void;
  /** Stop listening, destroy every open connection (including hanging ones). Idempotent. */
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------------------------
// Constants and helpers

export const DEFAULT_SUMMARY_TEXT =
  '<analysis>\nThe conversation so far was reviewed chronologically; the user asked for work on the project ' +
  'and the assistant made progress with the tools available.\n</analysis>\n\n' +
  '<summary>\n1. Primary Request and Intent:\n   The user asked the assistant to continue working on the project.\n\n' +
  '2. Key Technical Concepts:\n   - FAKE-SUMMARY-MARKER (fixed text from the fake Anthropic server)\n\n' +
  '3. Current Work:\n   Continuing where the conversation left off.\n</summary>';

const DEFAULT_MODEL = 'claude-sonnet-4-5-20250929';
/** The fake's token size, for usage.output_tokens and the max_tokens cut. */
const CHARS_PER_TOKEN = 4;
const IMAGE_CHARS_EQUIVALENT = 1600 * 4; // an image costs roughly 1,600 tokens

/** Characters and an approximate token count (chars / 4) of what a request gives the model. */
export interface RequestSize {
  chars: number;
  estimatedTokens: number;
  messages: number;
}

/**
 * Estimate the size of a Messages API request body: characters of system prompt, message contents (text,
 * thinking, tool inputs, tool results; images count as ~1,600 tokens) and tool definitions; tokens ≈ chars / 4.
 */
export function estimateRequestSize(body: any): RequestSize {
  let chars = 0;
  const walkContent = (content: any): void => {
    if (content == null) return;
    if (typeof content === 'string') {
      chars += content.length;
      return;
    }
    if (Array.isArray(content)) {
      for (const c of content) walkContent(c);
      return;
    }
    if (typeof content !== 'object') return;
    switch (content.type) {
      case 'text':
        chars += String(content.text ?? '').length;
        return;
      case 'thinking':
        chars += String(content.thinking ?? '').length;
        return;
      case 'redacted_thinking':
        chars += String(content.data ?? '').length / 4;
        return;
      case 'tool_use':
      case 'server_tool_use':
        chars += String(content.name ?? '').length + JSON.stringify(content.input ?? {}).length;
        return;
      case 'tool_result':
        walkContent(content.content);
        return;
      case 'image':
      case 'document':
        chars += IMAGE_CHARS_EQUIVALENT;
        return;
      default:
        chars += JSON.stringify(content).length;
    }
  };
  if (body && typeof body === 'object') {
    walkContent(body.system);
    const messages = Array.isArray(body.messages) ? body.messages : [];
    for (const m of messages) walkContent(m?.content);
    if (Array.isArray(body.tools)) chars += JSON.stringify(body.tools).length;
    chars = Math.ceil(chars);
    return { chars, estimatedTokens: Math.ceil(chars / 4), messages: messages.length };
  }
  return { chars: 0, estimatedTokens: 0, messages: 0 };
}

/** Exact token counts (the project's o200k_base tokenizer, src/core/tokens/exact.ts) of what a request gives the model. */
export interface RequestTokens {
  system: number;
  tools: number;
  messages: number;
  /** system + tools + messages: what the fake reports as the request's `input_tokens`. */
  total: number;
}

/** Tokens of an image or document block: the API's flat ~1,600 for a typical image. */
const IMAGE_TOKENS = 1600;

/**
 * The true size of a request by one rule for every request: each text piece (system blocks, message texts, thinking,
 * tool results) is counted with the tokenizer; a tool call counts its name plus its JSON input; the tool
 * definitions count as their JSON; an image or document as IMAGE_TOKENS. Used for `usage.input_tokens` and
 * count_tokens, so a transcript written against the fake records the real size of each request it sent.
 */
export function countRequestTokens(body: any): RequestTokens {
  const count = (content: any): number => {
    if (content == null) return 0;
    if (typeof content === 'string') return countTokensInPieces(content);
    if (Array.isArray(content)) return content.reduce((n: number, c: any) => n + count(c), 0);
    if (typeof content !== 'object') return 0;
    switch (content.type) {
      case 'text':
        return countTokensInPieces(String(content.text ?? ''));
      case 'thinking':
        return countTokensInPieces(String(content.thinking ?? ''));
      case 'redacted_thinking':
        return Math.ceil(String(content.data ?? '').length / 16);
      case 'tool_use':
      case 'server_tool_use':
        return (
          countTokensInPieces(String(content.name ?? '')) + countTokensInPieces(JSON.stringify(content.input ?? {}))
        );
      case 'tool_result':
        return count(content.content);
      case 'image':
      case 'document':
        return IMAGE_TOKENS;
      default:
        return countTokensInPieces(JSON.stringify(content));
    }
  };
  if (!body || typeof body !== 'object') return { system: 0, tools: 0, messages: 0, total: 0 };
  const system = count(body.system);
  const tools = Array.isArray(body.tools) ? countTokensInPieces(JSON.stringify(body.tools)) : 0;
  const messages = (Array.isArray(body.messages) ? body.messages : []).reduce(
    (n: number, m: any) => n + count(m?.content),
    0,
  );
  return { system, tools, messages, total: system + tools + messages };
}

/** The message of a prompt-too-long error, in either of Anthropic's wordings. */
export function ptlMessage(wording: PtlWording, tokens: number, maximum: number, maxTokens = 32000): string {
  if (wording === 'context-limit') {
    const input = Math.max(tokens, maximum - maxTokens + 1);
    return `input length and max_tokens exceed context limit: ${input} + ${maxTokens} > ${maximum}`;
  }
  return `prompt is too long: ${Math.max(tokens, maximum + 1)} tokens > ${maximum} maximum`;
}

let idCounter = 0;
function randomId(prefix: string): string {
  idCounter++;
  const rand = Math.random().toString(36).slice(2, 12).padEnd(10, '0');
  return `${prefix}${Date.now().toString(36)}${idCounter.toString(36)}${rand}`;
}

function sse(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

function chunkText(text: string, pieces = 4): string[] {
  if (text.length === 0) return [''];
  const size = Math.max(1, Math.ceil(text.length / pieces));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function defaultErrorMessage(kind: string): string {
  switch (kind) {
    case 'invalidRequest':
      return 'messages: text content blocks must be non-empty';
    case 'authentication':
      return 'invalid x-api-key';
    case 'permission':
      return 'Your API key does not have permission to use the specified resource.';
    case 'notFound':
      return 'model: claude-does-not-exist';
    case 'requestTooLarge':
      return 'Request exceeds the maximum allowed number of bytes.';
    case 'rateLimit':
      return 'This request would exceed the rate limit for your organization of 50,000 input tokens per minute.';
    case 'apiError':
      return 'Internal server error';
    case 'overloaded':
      return 'Overloaded';
    default:
      return 'error';
  }
}

const SIMPLE_ERRORS: Record<string, { status: number; type: string }> = {
  invalidRequest: { status: 400, type: 'invalid_request_error' },
  authentication: { status: 401, type: 'authentication_error' },
  permission: { status: 403, type: 'permission_error' },
  notFound: { status: 404, type: 'not_found_error' },
  requestTooLarge: { status: 413, type: 'request_too_large' },
  rateLimit: { status: 429, type: 'rate_limit_error' },
  apiError: { status: 500, type: 'api_error' },
  overloaded: { status: 529, type: 'overloaded_error' },
};

// ---------------------------------------------------------------------------------------------------------------
// Server

export async function startFakeAnthropic(options: FakeAnthropicOptions = {}): Promise<FakeAnthropic> {
  let defaultScenario: ScenarioInput = options.scenario ?? { kind: 'text' };
  const queue: ScenarioInput[] = [...(options.queue ?? [])];
  const byIndex = new Map<number, ScenarioInput>(Object.entries(options.byIndex ?? {}).map(([k, v]) => [Number(k), v]));
  const log = options.log ?? !!process.env.FAKE_ANTHROPIC_LOG;
  const eventDelayMs = options.eventDelayMs ?? 0;
  const pauseAfterEvents = options.pauseAfterEvents;
  let releaseStreams!: () => void;
  const streamsReleased = new Promise<void>((resolve) => (releaseStreams = resolve));
  let signalClosed!: () => void;
  const closedSignal = new Promise<void>((resolve) => (signalClosed = resolve));

  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let requestCounter = 0;
  let messagesCounter = 0;
  let closed = false;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      if (ms <= 0) return resolve();
      const t = setTimeout(() => {
        timers.delete(t);
        resolve();
      }, ms);
      timers.add(t);
    });

  const pickScenario = (rec: RecordedRequest): Scenario => {
    let input: ScenarioInput;
    const idx = rec.messagesIndex ?? -1;
    if (byIndex.has(idx)) input = byIndex.get(idx)!;
    else if (queue.length > 0) input = queue.shift()!;
    else input = defaultScenario;
    return typeof input === 'function' ? input(rec) : input;
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('error', () => {
      /* client went away */
    });
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const path = req.url ?? '/';
      const pathname = path.split('?')[0];
      const headers: Record<string, string | boolean> = {};
      for (const [k, v] of Object.entries(req.headers)) {
        if (v === undefined) continue;
        if (k === 'x-api-key' || k === 'authorization') headers[k] = true;
        else headers[k] = Array.isArray(v) ? v.join(', ') : v;
      }
      let body: any;
      if (raw.length > 0) {
        try {
          body = JSON.parse(raw.toString('utf8'));
        } catch {
          body = undefined;
        }
      }
      const method = req.method ?? 'GET';
      const kind: RecordedRequest['kind'] =
        method === 'POST' && pathname === '/v1/messages'
          ? 'messages'
          : method === 'POST' && pathname === '/v1/messages/count_tokens'
            ? 'count_tokens'
            : 'other';
      const rec: RecordedRequest = {
        index: requestCounter++,
        messagesIndex: kind === 'messages' ? messagesCounter++ : undefined,
        method,
        path,
        pathname,
        kind,
        headers,
        body,
        bodyBytes: raw.length,
        receivedAt: Date.now(),
      };
      requests.push(rec);
      if (log) {
        process.stderr.write(
          `[fake-anthropic] ${method} ${path} ${raw.length}B` +
            (body?.model ? ` model=${body.model}` : '') +
            (body?.stream ? ' stream' : '') +
            '\n',
        );
      }
      handle(rec, req, res).catch((err) => {
        if (log) process.stderr.write(`[fake-anthropic] handler error: ${String(err)}\n`);
        if (!res.headersSent && !res.destroyed) {
          res.statusCode = 500;
          res.end();
        }
      });
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  // Keep-alive idle sockets must not keep anything alive forever.
  server.keepAliveTimeout = 5000;

  const sendJson = (
    res: http.ServerResponse,
    status: number,
    payload: unknown,
    requestId: string,
    extraHeaders: Record<string, string> = {},
  ) => {
    const text = JSON.stringify(payload);
    res.writeHead(status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
      'request-id': requestId,
      'anthropic-organization-id': '00000000-0000-4000-8000-000000000000',
      ...extraHeaders,
    });
    res.end(text);
  };

  const sendError = (
    rec: RecordedRequest,
    res: http.ServerResponse,
    scenarioName: string,
    status: number,
    type: string,
    message: string,
    extraHeaders: Record<string, string> = {},
  ) => {
    const requestId = randomId('req_');
    rec.response = { scenario: scenarioName, status };
    sendJson(res, status, { type: 'error', error: { type, message }, request_id: requestId }, requestId, extraHeaders);
  };

  type Block =
    | { type: 'text'; text: string }
    | { type: 'thinking'; thinking: string; signature: string }
    | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

  const buildMessage = (
    rec: RecordedRequest,
    text: string,
    scenario: Extract<Scenario, { kind: 'text' }> | undefined,
    toolCall?: Extract<Scenario, { kind: 'toolUse' }>,
  ) => {
    const content: Block[] = [];
    const thinking = toolCall?.thinking ?? scenario?.thinking;
    if (thinking) content.push({ type: 'thinking', thinking: thinking.thinking ?? '', signature: thinking.signature });
    if (!toolCall || toolCall.text) content.push({ type: 'text', text: toolCall ? toolCall.text! : text });
    if (toolCall)
      content.push({ type: 'tool_use', id: randomId('toolu_fake_'), name: toolCall.name, input: toolCall.input });
    const outputChars = content.reduce(
      (n, b) =>
        n +
        (b.type === 'text'
          ? b.text.length
          : b.type === 'thinking'
            ? b.thinking.length
            : b.name.length + JSON.stringify(b.input).length),
      0,
    );
    const usage: Usage = {
      input_tokens: countRequestTokens(rec.body).total,
      output_tokens: Math.max(1, Math.ceil(outputChars / CHARS_PER_TOKEN)),
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      ...(scenario?.usage ?? {}),
    };
    return {
      id: randomId('msg_fake_'),
      type: 'message' as const,
      role: 'assistant' as const,
      model: scenario?.model ?? toolCall?.model ?? rec.body?.model ?? options.model ?? DEFAULT_MODEL,
      content,
      stop_reason: toolCall ? ('tool_use' as const) : (scenario?.stopReason ?? 'end_turn'),
      stop_sequence: null,
      usage,
    };
  };

  /** The full list of SSE event strings for a successful streamed message. */
  const streamEvents = (msg: ReturnType<typeof buildMessage>): string[] => {
    const events: string[] = [];
    events.push(
      sse('message_start', {
        type: 'message_start',
        message: {
          ...msg,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { ...msg.usage, output_tokens: 1 },
        },
      }),
    );
    msg.content.forEach((block, index) => {
      if (block.type === 'text') {
        events.push(
          sse('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } }),
        );
        if (index === 0) events.push(sse('ping', { type: 'ping' }));
        for (const piece of chunkText(block.text)) {
          events.push(
            sse('content_block_delta', {
              type: 'content_block_delta',
              index,
              delta: { type: 'text_delta', text: piece },
            }),
          );
        }
      } else if (block.type === 'thinking') {
        events.push(
          sse('content_block_start', {
            type: 'content_block_start',
            index,
            content_block: { type: 'thinking', thinking: '', signature: '' },
          }),
        );
        for (const piece of block.thinking ? chunkText(block.thinking) : []) {
          events.push(
            sse('content_block_delta', {
              type: 'content_block_delta',
              index,
              delta: { type: 'thinking_delta', thinking: piece },
            }),
          );
        }
        events.push(
          sse('content_block_delta', {
            type: 'content_block_delta',
            index,
            delta: { type: 'signature_delta', signature: block.signature },
          }),
        );
      } else {
        events.push(
          sse('content_block_start', {
            type: 'content_block_start',
            index,
            content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
          }),
        );
        for (const piece of chunkText(JSON.stringify(block.input), 2)) {
          events.push(
            sse('content_block_delta', {
              type: 'content_block_delta',
              index,
              delta: { type: 'input_json_delta', partial_json: piece },
            }),
          );
        }
      }
      events.push(sse('content_block_stop', { type: 'content_block_stop', index }));
    });
    events.push(
      sse('message_delta', {
        type: 'message_delta',
        delta: { stop_reason: msg.stop_reason, stop_sequence: null },
        usage: {
          input_tokens: msg.usage.input_tokens,
          output_tokens: msg.usage.output_tokens,
          cache_creation_input_tokens: msg.usage.cache_creation_input_tokens,
          cache_read_input_tokens: msg.usage.cache_read_input_tokens,
        },
      }),
    );
    events.push(sse('message_stop', { type: 'message_stop' }));
    return events;
  };

  const startSse = (res: http.ServerResponse, requestId: string) => {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'request-id': requestId,
      'anthropic-organization-id': '00000000-0000-4000-8000-000000000000',
    });
    res.flushHeaders();
  };

  const writeEvents = async (res: http.ServerResponse, events: string[]): Promise<boolean> => {
    for (const [i, ev] of events.entries()) {
      if (i === pauseAfterEvents) await Promise.race([streamsReleased, closedSignal]);
      if (res.destroyed || closed) return false;
      res.write(ev);
      if (eventDelayMs > 0) await sleep(eventDelayMs);
    }
    return true;
  };

  const handleOther = (rec: RecordedRequest, res: http.ServerResponse) => {
    const requestId = randomId('req_');
    if (rec.kind === 'count_tokens') {
      rec.response = { scenario: 'count_tokens', status: 200 };
      sendJson(res, 200, { input_tokens: countRequestTokens(rec.body).total }, requestId);
      return;
    }
    if (rec.method === 'GET' && rec.pathname === '/v1/models') {
      rec.response = { scenario: 'other', status: 200 };
      sendJson(res, 200, { data: [], has_more: false, first_id: null, last_id: null }, requestId);
      return;
    }
    if (rec.method === 'HEAD') {
      rec.response = { scenario: 'other', status: 200 };
      res.writeHead(200, { 'request-id': requestId });
      res.end();
      return;
    }
    rec.response = { scenario: 'other', status: 200 };
    sendJson(res, 200, {}, requestId);
  };

  async function handle(rec: RecordedRequest, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (rec.kind !== 'messages') return handleOther(rec, res);
    let scenario = pickScenario(rec);
    const stream = rec.body?.stream === true;

    if (scenario.kind === 'ptlUntilUnder') {
      const size = estimateRequestSize(rec.body);
      const maxTokensLimit =
        scenario.maxEstimatedTokens ?? (scenario.maxChars !== undefined ? Math.ceil(scenario.maxChars / 4) : 200000);
      const tooBig =
        (scenario.maxChars !== undefined && size.chars > scenario.maxChars) ||
        (scenario.maxEstimatedTokens !== undefined && size.estimatedTokens > scenario.maxEstimatedTokens) ||
        (scenario.maxChars === undefined && scenario.maxEstimatedTokens === undefined && size.estimatedTokens > 200000);
      if (tooBig) {
        const maxTokens = typeof rec.body?.max_tokens === 'number' ? rec.body.max_tokens : 32000;
        const wording = scenario.wording ?? 'prompt-too-long';
        const tokens =
          wording === 'context-limit'
            ? Math.max(size.estimatedTokens, maxTokensLimit - maxTokens + 1)
            : Math.max(size.estimatedTokens, maxTokensLimit + 1);
        return sendError(
          rec,
          res,
          'ptlUntilUnder',
          400,
          'invalid_request_error',
          ptlMessage(wording, tokens, maxTokensLimit, maxTokens),
        );
      }
      scenario = scenario.then ?? { kind: 'text' };
      if (scenario.kind === 'ptlUntilUnder') scenario = { kind: 'text' };
    }

    const name = scenario.kind;
    switch (scenario.kind) {
      case 'text': {
        let text = typeof scenario.text === 'function' ? scenario.text(rec) : (scenario.text ?? DEFAULT_SUMMARY_TEXT);
        let effective: Extract<Scenario, { kind: 'text' }> = scenario;
        const limit = rec.body?.max_tokens;
        if (scenario.honourMaxTokens && typeof limit === 'number' && text.length > limit * CHARS_PER_TOKEN) {
          text = text.slice(0, limit * CHARS_PER_TOKEN);
          effective = { ...scenario, stopReason: 'max_tokens', usage: { output_tokens: limit, ...scenario.usage } };
        }
        const msg = buildMessage(rec, text, effective);
        const requestId = randomId('req_');
        rec.response = { scenario: name, status: 200, messageId: msg.id };
        if (!stream) return sendJson(res, 200, msg, requestId);
        startSse(res, requestId);
        if (await writeEvents(res, streamEvents(msg))) res.end();
        return;
      }
      case 'toolUse': {
        const msg = buildMessage(rec, '', undefined, scenario);
        const requestId = randomId('req_');
        rec.response = { scenario: name, status: 200, messageId: msg.id };
        if (!stream) return sendJson(res, 200, msg, requestId);
        startSse(res, requestId);
        if (await writeEvents(res, streamEvents(msg))) res.end();
        return;
      }
      case 'ptl': {
        const size = estimateRequestSize(rec.body);
        const maximum = scenario.maximum ?? 200000;
        const maxTokens =
          scenario.maxTokens ?? (typeof rec.body?.max_tokens === 'number' ? rec.body.max_tokens : 32000);
        const wording = scenario.wording ?? 'prompt-too-long';
        const message =
          scenario.tokens === undefined
            ? ptlMessage(wording, size.estimatedTokens, maximum, maxTokens)
            : wording === 'context-limit'
              ? `input length and max_tokens exceed context limit: ${scenario.tokens} + ${maxTokens} > ${maximum}`
              : `prompt is too long: ${scenario.tokens} tokens > ${maximum} maximum`;
        return sendError(rec, res, name, 400, 'invalid_request_error', message);
      }
      case 'invalidRequest':
      case 'authentication':
      case 'permission':
      case 'notFound':
      case 'requestTooLarge':
      case 'apiError':
      case 'overloaded': {
        const e = SIMPLE_ERRORS[scenario.kind];
        let message = scenario.message ?? defaultErrorMessage(scenario.kind);
        if (scenario.kind === 'notFound' && scenario.message === undefined && rec.body?.model) {
          message = `model: ${rec.body.model}`;
        }
        return sendError(rec, res, name, e.status, e.type, message);
      }
      case 'rateLimit': {
        const headers: Record<string, string> = {};
        if (scenario.retryAfter !== undefined) headers['retry-after'] = String(scenario.retryAfter);
        return sendError(
          rec,
          res,
          name,
          429,
          'rate_limit_error',
          scenario.message ?? defaultErrorMessage('rateLimit'),
          headers,
        );
      }
      case 'error':
        return sendError(rec, res, name, scenario.status, scenario.type, scenario.message, scenario.headers ?? {});
      case 'streamCut': {
        const msg = buildMessage(rec, scenario.text ?? DEFAULT_SUMMARY_TEXT, undefined);
        rec.response = { scenario: name, status: 200 };
        if (!stream) {
          // Non-streaming: announce the full JSON body, send half of it, then kill the connection.
          const text = JSON.stringify(msg);
          res.writeHead(200, {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(text),
            'request-id': randomId('req_'),
          });
          res.write(text.slice(0, Math.floor(text.length / 2)));
          await sleep(20);
          res.socket?.destroy();
          return;
        }
        startSse(res, randomId('req_'));
        const events = streamEvents(msg).slice(0, scenario.afterEvents ?? 3);
        await writeEvents(res, events);
        // Let the bytes leave before the connection dies.
        await sleep(20);
        res.socket?.destroy();
        return;
      }
      case 'streamError': {
        const errorType = scenario.errorType ?? 'overloaded_error';
        if (!stream) {
          // Non-streaming requests get the same failure as an HTTP error.
          const status = Object.values(SIMPLE_ERRORS).find((e) => e.type === errorType)?.status ?? 500;
          return sendError(rec, res, name, status, errorType, scenario.message ?? 'Overloaded');
        }
        const msg = buildMessage(rec, scenario.text ?? DEFAULT_SUMMARY_TEXT, undefined);
        rec.response = { scenario: name, status: 200 };
        const requestId = randomId('req_');
        startSse(res, requestId);
        const events = streamEvents(msg).slice(0, scenario.afterEvents ?? 3);
        events.push(
          sse('error', {
            type: 'error',
            error: { type: errorType, message: scenario.message ?? 'Overloaded' },
            request_id: requestId,
          }),
        );
        if (await writeEvents(res, events)) res.end();
        return;
      }
      case 'malformedSse': {
        const msg = buildMessage(rec, DEFAULT_SUMMARY_TEXT, undefined);
        rec.response = { scenario: name, status: 200 };
        if (!stream) {
          const text = '{"id":"msg_broken","type":"message",,, not json';
          res.writeHead(200, {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(text),
            'request-id': randomId('req_'),
          });
          res.end(text);
          return;
        }
        startSse(res, randomId('req_'));
        const events = [
          streamEvents(msg)[0],
          'event: content_block_start\ndata: {"type":"content_block_start",,, not json\n\n',
        ];
        if (await writeEvents(res, events)) res.end();
        return;
      }
      case 'hang':
        rec.response = { scenario: name, status: 0 };
        return; // never answer; close() destroys the socket
      case 'reset':
        rec.response = { scenario: name, status: 0 };
        req.socket.destroy();
        return;
      default: {
        const never: never = scenario;
        throw new Error(`unknown scenario ${JSON.stringify(never)}`);
      }
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;

  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    messageRequests: () => requests.filter((r) => r.kind === 'messages'),
    setScenario(s) {
      defaultScenario = s;
    },
    enqueue(...s) {
      queue.push(...s);
    },
    setScenarioAt(i, s) {
      byIndex.set(i, s);
    },
    clearRequests() {
      requests.length = 0;
    },
    releaseStreams() {
      releaseStreams();
    },
    close() {
      if (closing) return closing;
      closed = true;
      signalClosed();
      closing = new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        timers.clear();
        server.close(() => resolve());
        server.closeAllConnections();
        for (const s of sockets) s.destroy();
      });
      return closing;
    },
  };
}
