// Turns one raw line into compact entry summaries. The summary holds only what the
// pipeline needs (identity, links, block sizes, usage); the raw bytes stay in the file
// and are re-read by offset when needed, so untouched lines are written back byte-identical.

/** Size of one content block, by the kind that matters for token estimates and budgets. */
export interface BlockInfo {
  type: string;
  /** Characters of the block's payload (text, thinking, JSON of tool input, tool result text). */
  chars: number;
  /** tool_use id (tool_use) or tool_use_id (tool_result). */
  toolId?: string;
  /** Tool name (tool_use). */
  name?: string;
  isError?: boolean;
  /** Number of images inside (image block, or images nested in a tool result). */
  images?: number;
  /** Thinking signature length (kept byte-identical; counted separately). */
  signatureChars?: number;
  /** First words of a user text block, for labels. */
  preview?: string;
}

export interface Usage {
  input: number;
  cacheCreation: number;
  cacheRead: number;
  output: number;
}

export interface Entry {
  /** 1-based physical line number. */
  line: number;
  /** 0 normally; 1.. for further objects recovered from a line holding joined JSON objects. */
  part: number;
  /** Byte offsets of the line in the file ([start, end), without terminator). */
  start: number;
  end: number;
  /** The `type` field, e.g. user, assistant, system, summary, progress, attachment... */
  kind: string;
  subtype?: string;
  uuid?: string;
  parentUuid?: string | null;
  logicalParentUuid?: string;
  isSidechain: boolean;
  agentId?: string;
  timestamp?: string;
  sessionId?: string;
  role?: string;
  messageId?: string;
  requestId?: string;
  model?: string;
  stopReason?: string | null;
  usage?: Usage;
  blocks: BlockInfo[];
  /** Plain string content of a user message (content given as a string). */
  textChars?: number;
  isCompactSummary?: boolean;
  isMeta?: boolean;
  isApiErrorMessage?: boolean;
  /** `last-prompt` lines: the leaf they name. */
  leafUuid?: string;
  /** Characters of an attachment's rendered payload (attachments are sent as meta user text). */
  attachmentChars?: number;
  attachmentType?: string;
  /** Compact boundary metadata. */
  preTokens?: number;
}

export interface Malformed {
  line: number;
  start: number;
  end: number;
  error: string;
  /** Entries recovered from the line (joined objects). */
  recovered: number;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0;
}

function textOf(v: unknown): number {
  if (typeof v === 'string') return v.length;
  if (v === undefined || v === null) return 0;
  return JSON.stringify(v).length;
}

function previewOf(text: string): string {
  return text.replace(/\s+/g, ' ').trim().slice(0, 80);
}

function countImages(content: unknown): number {
  if (!Array.isArray(content)) return 0;
  let n = 0;
  for (const b of content) if (b && typeof b === 'object' && (b as { type?: unknown }).type === 'image') n++;
  return n;
}

/** Text characters of a tool_result's content (string, or text blocks; images counted apart). */
function toolResultChars(content: unknown): number {
  if (typeof content === 'string') return content.length;
  if (!Array.isArray(content)) return textOf(content);
  let n = 0;
  for (const b of content) {
    if (!b || typeof b !== 'object') continue;
    const block = b as Record<string, unknown>;
    if (block.type === 'text') n += textOf(block.text);
    else if (block.type !== 'image') n += textOf(block);
  }
  return n;
}

export function blockInfo(raw: unknown): BlockInfo {
  if (!raw || typeof raw !== 'object') return { type: typeof raw === 'string' ? 'text' : 'unknown', chars: textOf(raw) };
  const b = raw as Record<string, unknown>;
  const type = str(b.type) ?? 'unknown';
  switch (type) {
    case 'text': {
      const text = str(b.text) ?? '';
      return { type, chars: text.length, preview: previewOf(text.slice(0, 400)) };
    }
    case 'thinking':
      return { type, chars: textOf(b.thinking), signatureChars: textOf(b.signature) };
    case 'redacted_thinking':
      return { type, chars: 0, signatureChars: textOf(b.data) };
    case 'tool_use':
    case 'server_tool_use':
      return { type, chars: textOf(b.input), toolId: str(b.id), name: str(b.name) };
    case 'tool_result': {
      const info: BlockInfo = { type, chars: toolResultChars(b.content), toolId: str(b.tool_use_id) };
      if (b.is_error === true) info.isError = true;
      const images = countImages(b.content);
      if (images) info.images = images;
      return info;
    }
    case 'image':
      return { type, chars: 0, images: 1 };
    case 'document':
      return { type, chars: textOf((b.source as Record<string, unknown> | undefined)?.data) };
    default:
      return { type, chars: textOf(b) };
  }
}

function usageOf(u: unknown): Usage | undefined {
  if (!u || typeof u !== 'object') return undefined;
  const o = u as Record<string, unknown>;
  return {
    input: num(o.input_tokens),
    cacheCreation: num(o.cache_creation_input_tokens),
    cacheRead: num(o.cache_read_input_tokens),
    output: num(o.output_tokens),
  };
}

/** Summarises one parsed JSON object found at a line. Throws only on non-objects. */
export function summarize(obj: unknown, line: number, part: number, start: number, end: number): Entry {
  if (!obj || typeof obj !== 'object' || Array.isArray(obj)) throw new Error('line is JSON but not an object');
  const o = obj as Record<string, unknown>;
  const e: Entry = {
    line,
    part,
    start,
    end,
    kind: str(o.type) ?? 'unknown',
    isSidechain: o.isSidechain === true,
    blocks: [],
  };
  const subtype = str(o.subtype);
  if (subtype) e.subtype = subtype;
  const uuid = str(o.uuid);
  if (uuid) e.uuid = uuid;
  if (o.parentUuid === null) e.parentUuid = null;
  else if (typeof o.parentUuid === 'string') e.parentUuid = o.parentUuid;
  const lp = str(o.logicalParentUuid);
  if (lp) e.logicalParentUuid = lp;
  const agentId = str(o.agentId);
  if (agentId) e.agentId = agentId;
  const ts = str(o.timestamp);
  if (ts) e.timestamp = ts;
  const sid = str(o.sessionId);
  if (sid) e.sessionId = sid;
  if (o.isCompactSummary === true) e.isCompactSummary = true;
  if (o.isMeta === true) e.isMeta = true;
  if (o.isApiErrorMessage === true) e.isApiErrorMessage = true;
  const leaf = str(o.leafUuid);
  if (leaf) e.leafUuid = leaf;
  const rid = str(o.requestId);
  if (rid) e.requestId = rid;
  if (e.kind === 'system' && subtype === 'compact_boundary') {
    const meta = o.compactMetadata as Record<string, unknown> | undefined;
    if (meta && typeof meta.preTokens === 'number') e.preTokens = meta.preTokens;
  }
  if (e.kind === 'attachment' && o.attachment && typeof o.attachment === 'object') {
    const a = o.attachment as Record<string, unknown>;
    e.attachmentType = str(a.type);
    e.attachmentChars = textOf(a.rendered ?? a.content ?? a.snippet ?? '');
  }
  const msg = o.message;
  if (msg && typeof msg === 'object' && !Array.isArray(msg)) {
    const m = msg as Record<string, unknown>;
    const role = str(m.role);
    if (role) e.role = role;
    const id = str(m.id);
    if (id) e.messageId = id;
    const model = str(m.model);
    if (model) e.model = model;
    if ('stop_reason' in m) e.stopReason = (str(m.stop_reason) ?? null);
    // Usage written by our own compaction is an estimate, not a record of a request: skip it.
    const usage = o.compactorEstimatedUsage === true ? undefined : usageOf(m.usage);
    if (usage) e.usage = usage;
    const content = m.content;
    if (typeof content === 'string') {
      e.textChars = content.length;
      e.blocks.push({ type: 'text', chars: content.length, preview: previewOf(content.slice(0, 400)) });
    } else if (Array.isArray(content)) {
      for (const b of content) e.blocks.push(blockInfo(b));
    } else if (content !== undefined && content !== null) {
      e.blocks.push({ type: 'unknown', chars: textOf(content) });
    }
  }
  return e;
}

/**
 * Splits a line holding several concatenated JSON values (`{...}{...}`) into their texts.
 * Returns null when the line is not such a concatenation.
 */
export function splitJoinedObjects(text: string): string[] | null {
  const parts: string[] = [];
  let depth = 0;
  let inString = false;
  let startIdx = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // backslash: skip the escaped char
      else if (c === 34) inString = false;
      continue;
    }
    if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (depth === 0) startIdx = i;
      depth++;
    } else if (c === 125 || c === 93) {
      depth--;
      if (depth < 0) return null;
      if (depth === 0) parts.push(text.slice(startIdx, i + 1));
    } else if (depth === 0 && c !== 32 && c !== 9 && c !== 13) {
      return null;
    }
  }
  if (depth !== 0 || parts.length < 2) return null;
  return parts;
}

export interface ParsedLine {
  entries: Entry[];
  malformed?: Malformed;
}

const MAX_DEPTH_PROBE = 2000;

/** Cheap guard against pathological nesting that would overflow the parser's stack. */
function tooDeep(text: string): boolean {
  let depth = 0;
  let inString = false;
  let maxDepth = 0;
  // Only worth scanning when the line has many openers near its start.
  if (text.length < MAX_DEPTH_PROBE) return false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
      continue;
    }
    if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      depth++;
      if (depth > maxDepth) maxDepth = depth;
      if (maxDepth > 1000) return true;
    } else if (c === 125 || c === 93) depth--;
  }
  return false;
}

/** Parses one line's text into entries; never throws. */
export function parseLine(text: string, line: number, start: number, end: number): ParsedLine {
  const trimmed = text.trim();
  if (trimmed === '') return { entries: [] };
  let obj: unknown;
  try {
    obj = JSON.parse(text);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (message.includes('Maximum call stack') || tooDeep(text)) {
      return { entries: [], malformed: { line, start, end, error: 'JSON nested too deeply', recovered: 0 } };
    }
    const parts = splitJoinedObjects(trimmed);
    if (parts) {
      const entries: Entry[] = [];
      for (let i = 0; i < parts.length; i++) {
        try {
          entries.push(summarize(JSON.parse(parts[i]), line, i, start, end));
        } catch {
          /* a non-object part: reported below */
        }
      }
      return {
        entries,
        malformed: { line, start, end, error: `${parts.length} JSON objects joined on one line (recovered ${entries.length})`, recovered: entries.length },
      };
    }
    return { entries: [], malformed: { line, start, end, error: `not valid JSON: ${message}`, recovered: 0 } };
  }
  try {
    return { entries: [summarize(obj, line, 0, start, end)] };
  } catch (err) {
    return { entries: [], malformed: { line, start, end, error: err instanceof Error ? err.message : String(err), recovered: 0 } };
  }
}
