// Sessions stored as one JSON document rather than JSON lines: Gemini CLI chats (`{sessionId, projectHash,
// messages: [...]}`), Cline / Roo Code tasks (`api_conversation_history.json`, an array of Anthropic messages, with
// token figures in `ui_messages.json` beside it) and Claude Code transcripts re-serialised as one array. Each
// message becomes common entries at the byte range and line where it starts, so the tree, rounds and figures work
// as for JSONL; these formats are read-only (nothing is written back).
import { open, readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { digestEntry, type Entry } from '../entries';
import { arr, asObject, obj, str, type JsonObject } from '../json';
import type { TranscriptIndex } from '../transcript';
import { agentName, type FormatId } from './types';
import { readSidecar } from '../sidecarFiles';

/** Documents larger than this are refused (they are parsed whole). */
const MAX_DOCUMENT_BYTES = 512 << 20;

/** True when the file is one JSON document (an array, or an object with a `messages` array), not JSON lines. */
export async function isJsonDocument(path: string): Promise<boolean> {
  const st = await stat(path);
  if (!st.isFile() || st.size === 0) return false;
  const fh = await open(path, 'r');
  let head: string;
  try {
    const buf = Buffer.alloc(Math.min(st.size, 64 << 10));
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    head = buf
      .subarray(0, bytesRead)
      .toString('utf8')
      .replace(/^\uFEFF/, '');
  } finally {
    await fh.close();
  }
  const first = head.trimStart();
  if (first.startsWith('[')) return true;
  if (!first.startsWith('{')) return false;
  const firstLine = first.split('\n', 1)[0];
  try {
    const o = asObject(JSON.parse(firstLine));
    // One line that is a whole object: a document only when it is a chat with a `messages` array.
    return o !== undefined && Array.isArray(o.messages) && o.type === undefined;
  } catch {
    // A first line that is not a whole object: pretty-printed JSON (a JSONL file's bad first line parses neither way).
    return firstLine.trim() === '{' || !first.includes('\n');
  }
}

interface Element {
  /** Character offsets in the text. */
  from: number;
  to: number;
  /** Byte offsets in the file. */
  start: number;
  end: number;
  line: number;
}

/**
 * The object elements of the document's message array (the top-level array, or the top-level object's `messages`
 * array), with their character and byte ranges and starting line, found in one pass over the text.
 */
export function messageElements(text: string, baseByte: number): Element[] {
  const out: Element[] = [];
  let depth = 0;
  let inString = false;
  let stringStart = -1;
  let lastKey: string | null = null;
  let arrayDepth = -1;
  let byte = baseByte;
  let line = 1;
  let cur: { from: number; start: number; line: number } | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const width = c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c <= 0xdbff ? 4 : c >= 0xdc00 && c <= 0xdfff ? 0 : 3;
    if (inString) {
      if (c === 92) {
        i++;
        byte += width + 1; // an escape's next char is ASCII
        continue;
      }
      if (c === 34) {
        inString = false;
        if (depth === 1) lastKey = text.slice(stringStart + 1, i);
      }
    } else if (c === 34) {
      inString = true;
      stringStart = i;
    } else if (c === 10) line++;
    else if (c === 123 || c === 91) {
      if (c === 123 && arrayDepth >= 0 && depth === arrayDepth) cur = { from: i, start: byte, line };
      if (c === 91 && arrayDepth < 0 && (depth === 0 || (depth === 1 && lastKey === 'messages')))
        arrayDepth = depth + 1;
      depth++;
    } else if (c === 125 || c === 93) {
      depth--;
      if (c === 125 && cur && depth === arrayDepth) {
        out.push({ from: cur.from, to: i + 1, start: cur.start, end: byte + 1, line: cur.line });
        cur = null;
      }
      if (c === 93 && depth === arrayDepth - 1) arrayDepth = -2; // only the first message array
    }
    byte += width;
  }
  return out;
}

function textBlocks(content: unknown): unknown {
  if (typeof content === 'string') return content;
  return (Array.isArray(content) ? (content as unknown[]) : []).map((p) => {
    const o = asObject(p);
    return typeof o?.text === 'string' ? { type: 'text', text: o.text } : { type: 'text', text: JSON.stringify(p) };
  });
}

/** A Gemini CLI message as Claude-shaped lines: the reply, then the results of its tool calls. */
function geminiShapes(m: JsonObject): JsonObject[] {
  const base = { uuid: str(m, 'id'), timestamp: str(m, 'timestamp') };
  const type = str(m, 'type');
  if (type === 'user') return [{ ...base, type: 'user', message: { role: 'user', content: textBlocks(m.content) } }];
  if (type !== 'gemini') return [{ type: `gemini-${type ?? 'unknown'}`, timestamp: base.timestamp }];
  const content: JsonObject[] = [];
  const thoughts = (arr(m, 'thoughts') ?? [])
    .map((t) => `${str(asObject(t), 'subject') ?? ''}: ${str(asObject(t), 'description') ?? ''}`)
    .join('\n');
  if (thoughts) content.push({ type: 'thinking', thinking: thoughts });
  const reply = textBlocks(m.content);
  if (typeof reply === 'string' ? reply.trim() : Array.isArray(reply) && reply.length)
    content.push(...(typeof reply === 'string' ? [{ type: 'text', text: reply }] : (reply as JsonObject[])));
  const results: JsonObject[] = [];
  for (const call of arr(m, 'toolCalls') ?? []) {
    const c = asObject(call);
    if (!c) continue;
    const id = str(c, 'id') ?? '';
    content.push({ type: 'tool_use', id, name: str(c, 'name') ?? 'tool', input: c.args ?? {} });
    const output = (arr(c, 'result') ?? []).map(
      (r) =>
        obj(obj(asObject(r), 'functionResponse'), 'response')?.output ??
        obj(obj(asObject(r), 'functionResponse'), 'response') ??
        r,
    );
    results.push({
      type: 'tool_result',
      tool_use_id: id,
      content: output.map((o) => (typeof o === 'string' ? o : JSON.stringify(o))).join('\n'),
      is_error: str(c, 'status') === 'error',
    });
  }
  const t = obj(m, 'tokens');
  const input = typeof t?.input === 'number' ? t.input : 0;
  const cached = typeof t?.cached === 'number' ? Math.min(input, t.cached) : 0;
  const usage = t
    ? {
        input_tokens: input - cached,
        cache_read_input_tokens: cached,
        output_tokens:
          (typeof t.output === 'number' ? t.output : 0) + (typeof t.thoughts === 'number' ? t.thoughts : 0),
      }
    : undefined;
  const shapes: JsonObject[] = [
    {
      ...base,
      type: 'assistant',
      message: { id: base.uuid, role: 'assistant', model: str(m, 'model'), content, usage },
    },
  ];
  if (results.length)
    shapes.push({
      uuid: `${base.uuid ?? ''}:results`,
      timestamp: base.timestamp,
      type: 'user',
      message: { role: 'user', content: results },
    });
  return shapes;
}

/**
 * Usage of each API request of a Cline / Roo task, in order, from `ui_messages.json` beside the history, and the cost
 * Cline itself recorded for them (the sum of their `cost` fields, as its task header shows it; null when none has one).
 */
async function clineUsage(historyPath: string): Promise<{ usage: JsonObject[]; costUsd: number | null }> {
  try {
    // Read like every file beside a transcript (sidecarFiles.ts): a link, FIFO, device or oversized file gives no figures.
    const bytes = await readSidecar(join(dirname(historyPath), 'ui_messages.json'), MAX_DOCUMENT_BYTES);
    const ui: unknown = bytes ? JSON.parse(bytes.toString('utf8')) : [];
    const out: JsonObject[] = [];
    let costUsd: number | null = null;
    for (const m of Array.isArray(ui) ? (ui as unknown[]) : []) {
      const o = asObject(m);
      if (o?.say !== 'api_req_started' || typeof o.text !== 'string') continue;
      try {
        const t = asObject(JSON.parse(o.text)) ?? {};
        out.push({
          input_tokens: t.tokensIn ?? 0,
          cache_creation_input_tokens: t.cacheWrites ?? 0,
          cache_read_input_tokens: t.cacheReads ?? 0,
          output_tokens: t.tokensOut ?? 0,
        });
        if (typeof t.cost === 'number' && Number.isFinite(t.cost) && t.cost >= 0) costUsd = (costUsd ?? 0) + t.cost;
      } catch {
        out.push({});
      }
    }
    return { usage: out, costUsd };
  } catch {
    return { usage: [], costUsd: null };
  }
}

/** Ids of the tool_use blocks of a Cline assistant message, in order. */
function clineCalls(content: unknown): string[] {
  return (Array.isArray(content) ? (content as unknown[]) : [])
    .map(asObject)
    .filter((b) => b?.type === 'tool_use' && typeof b.id === 'string')
    .map((b) => b!.id as string);
}

/**
 * A Cline user message with its tool results as tool_result blocks: Cline answers each tool call with a text block
 * `[<tool> for '<what>'] Result: …`, in the order of the calls.
 */
function clineResults(content: unknown, pending: string[]): unknown {
  if (!Array.isArray(content) || pending.length === 0) return content;
  const queue = [...pending];
  return (content as unknown[]).map((b) => {
    const o = asObject(b);
    if (o?.type === 'text' && typeof o.text === 'string' && /^\[[^\]\n]+\] Result:/.test(o.text) && queue.length) {
      return { type: 'tool_result', tool_use_id: queue.shift(), content: o.text };
    }
    return b;
  });
}

function detectDocument(doc: unknown): FormatId | null {
  const o = asObject(doc);
  if (o && Array.isArray(o.messages)) return 'gemini-cli';
  if (!Array.isArray(doc)) return null;
  const items = (doc as unknown[]).map(asObject);
  if (items.some((i) => i && typeof i.type === 'string' && (typeof i.uuid === 'string' || i.type === 'summary')))
    return 'claude-code';
  if (items.length && items.every((i) => i && typeof i.role === 'string' && 'content' in i)) return 'cline';
  return null;
}

/** Reads a JSON-document session into an index of common entries; null when the document is no session we know. */
export async function indexJsonDocument(path: string): Promise<TranscriptIndex | null> {
  const st = await stat(path);
  if (st.size > MAX_DOCUMENT_BYTES) return null;
  const bytes = await readFile(path);
  const bom = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  const text = bytes.subarray(bom ? 3 : 0).toString('utf8');
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return null;
  }
  const format = detectDocument(doc);
  if (!format) return null;
  const elements = messageElements(text, bom ? 3 : 0);
  const values: unknown[] = format === 'gemini-cli' ? (arr(asObject(doc), 'messages') ?? []) : (doc as unknown[]);
  const cline = format === 'cline' ? await clineUsage(path) : { usage: [], costUsd: null };
  const usage = cline.usage;
  const entries: Entry[] = [];
  let parent: string | null = null;
  let assistants = 0;
  let pendingCalls: string[] = [];
  values.forEach((value, k) => {
    const el = elements[k] ?? { start: 0, end: bytes.length, line: 1 };
    const v = asObject(value) ?? {};
    let shapes: JsonObject[];
    if (format === 'claude-code') shapes = [v];
    else if (format === 'gemini-cli') shapes = geminiShapes(v);
    else {
      const role = str(v, 'role') === 'assistant' ? 'assistant' : 'user';
      const id = role === 'assistant' ? `cline-${assistants}` : undefined;
      const u = role === 'assistant' ? usage[assistants++] : undefined;
      const content = role === 'assistant' ? v.content : clineResults(v.content, pendingCalls);
      pendingCalls = role === 'assistant' ? clineCalls(v.content) : [];
      // Cline records the model of each response beside it (modelInfo.modelId): what prices the response.
      const model = role === 'assistant' ? str(asObject(v.modelInfo), 'modelId') : undefined;
      shapes = [{ type: role, uuid: `cline:${k}`, message: { id, role, model, content, usage: u } }];
    }
    shapes.forEach((shape, part) => {
      // Gemini and Cline messages follow one another: each links to the one before it.
      const linked = format === 'claude-code' || shape.uuid === undefined ? shape : { ...shape, parentUuid: parent };
      if (format !== 'claude-code' && typeof shape.uuid === 'string') parent = shape.uuid;
      entries.push(digestEntry(linked, el.line, part, el.start, el.end));
    });
  });
  // Cline's own figure for the task: carried like Claude Code's cost-state total (cost.ts agentCost reads the newest).
  if (cline.costUsd !== null && entries.length)
    entries[entries.length - 1].agentCost = {
      usd: cline.costUsd,
      byModel: [],
      hasUnknownModelCost: false,
      source: "the cost of each API request in Cline's ui_messages.json",
    };
  const lines = text.split('\n').length;
  return {
    path,
    entries,
    malformed: [],
    lineCount: lines,
    consumedBytes: bytes.length,
    size: st.size,
    mtimeMs: st.mtimeMs,
    bom,
    crlfLines: 0,
    unterminatedTail: false,
    // A JSON document is read again whole on every change (inspect.ts `reinspect`): no fingerprint is needed.
    prefixDigest: '',
    reader: null,
    format: {
      id: format,
      agent: agentName(format),
      version: format === 'claude-code' ? (values.map((x) => str(asObject(x), 'version')).find(Boolean) ?? null) : null,
      container: 'json',
    },
  };
}
