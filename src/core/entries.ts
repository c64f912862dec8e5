// Turns one raw line into compact entry digests. The digest holds only what the
// pipeline needs (identity, links, block sizes, usage); the raw bytes stay in the file
// and are re-read by offset when needed, so untouched lines are written back byte-identical.
// Over 400 lines: one digest per line kind Claude Code writes (and the JSON-array and joined-object cases); the
// kinds share the block sizing below and split apart poorly.
import { textTokens } from './tokens/text';
import { countTokensInPieces } from './tokens/exact';

/** Size of one content block, by the kind that matters for token estimates and budgets. */
export interface BlockInfo {
  type: string;
  /** Characters of the block's payload (text, thinking, JSON of tool input, tool result text). */
  chars: number;
  /** Proxy token count of those characters (tokens/estimate.ts `textTokens`; tool_use: name and input). Absent for thinking, images, documents. */
  tokens?: number;
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
  /** Cache writes by lifetime, when the usage says (`usage.cache_creation`); they are billed at different rates. */
  cacheWrite?: { m5: number; h1: number };
  /** The response was served in fast mode (`usage.speed: "fast"`), billed at a multiple of the model's rates. */
  fast?: boolean;
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
  /** Proxy token count of the attachment's rendered payload. */
  attachmentTokens?: number;
  attachmentType?: string;
  /** Compact boundary metadata. */
  preTokens?: number;
  /** Compact boundary metadata: what started the compaction (`auto`: the agent, near its threshold; `manual`: /compact). */
  compactTrigger?: string;
  /**
   * The session that sent the request of this response, when Claude Code records one other than the line's own
   * (2.1.330 `requestSessionId`, on the responses a `--fork-session` fork copied from its original).
   */
  requestSessionId?: string;
  /** The context window the agent recorded for the model of its requests (Codex's `model_context_window`), in tokens. */
  contextWindow?: number;
  /**
   * Claude Code's own compact boundary: the tokens of the messages the session carries right after it (its
   * `compactMetadata.postTokens`: summary and preserved segment, without system prompt and tools). Not read from our
   * own boundaries, whose `postTokens` is the whole context.
   */
  messagesAfterCompaction?: number;
  /** `cost-state` lines: the agent's own running total of the session's cost (`costStateOf`). */
  agentCost?: AgentCostRecord;
  /**
   * Compact boundary of Claude Code's own /compact (2.1.330): the messages from before the boundary it keeps
   * verbatim, `tailUuid` back to `headUuid` along parentUuid, sent right after the `anchorUuid` entry (the summary).
   */
  preservedSegment?: PreservedSegment;
  /**
   * `api-request-shape` lines (2.1.330): tokens (o200k_base) of the system prompt blocks and tool definitions the
   * agent recorded for the requests that follow: what every request carries beside the messages.
   */
  recordedOverheadTokens?: number;
  /** Compact boundaries: what the record says of the compaction (`compactRecordOf`). */
  compactRecord?: CompactRecord;
  /**
   * Codex token counts right after a `compacted` record: the context Codex counts after the compaction (a
   * `last_token_usage` with no input or output, its `total_tokens` the size it left). Not a request.
   */
  compactedContextTokens?: number;
  /**
   * Codex token counts: the plan of the ChatGPT login the agent ran on (`rate_limits.plan_type`, e.g. `plus`, `pro`),
   * when it records one: its requests, and a summary by the same Codex, are billed to that plan.
   */
  loginPlan?: string;
  /**
   * Where in its record the entry stands, when the record holds a list of conversation items and the entry is one of
   * them (a Codex `compacted` record's `replacement_history`): the item's index. The record is the entry's line (and
   * part); absent for an entry that is its whole record.
   */
  item?: number;
}

/** What a compact boundary records of its compaction, beside `preTokens`. */
export interface CompactRecord {
  /** `compactMetadata.trigger` as written (e.g. manual, auto), or null when the record names none. */
  trigger: string | null;
  /** `compactMetadata.postTokens`: what the compaction left (Claude Code 2.1.330: the messages, without system prompt and tools). */
  postTokens: number | null;
  durationMs: number | null;
  /** Who compacted: the agent itself, or Agent Compactor (`compactor: "agent-compactor"`). */
  by: 'agent' | 'agent-compactor';
}

export interface PreservedSegment {
  headUuid: string;
  tailUuid: string;
  anchorUuid?: string;
}

/**
 * What a Claude Code `cost-state` line records: its own running total for the session (carried on across resumes,
 * from the last such line of the file) and the part of it by model.
 */
export interface AgentCostRecord {
  usd: number;
  byModel: { model: string; usd: number }[];
  /** Claude Code priced a model it has no rates for (at its default model's). */
  hasUnknownModelCost: boolean;
  /** Where an agent other than Claude Code keeps the figure (absent: Claude Code's `cost-state` lines). */
  source?: string;
  /** Its running token totals over every model (`modelUsage`); absent or null when it records none. */
  tokens?: AgentTokenTotals | null;
}

export interface AgentTokenTotals {
  input: number;
  output: number;
  cacheRead: number;
  cacheCreation: number;
}

/** The figures of a `cost-state` line; undefined when it holds no usable total (an odd line is never an error). */
function costStateOf(o: Record<string, unknown>): AgentCostRecord | undefined {
  const usd = o.totalCostUSD;
  if (typeof usd !== 'number' || !Number.isFinite(usd) || usd < 0) return undefined;
  const byModel: AgentCostRecord['byModel'] = [];
  let tokens: AgentTokenTotals | null = null;
  const mu = o.modelUsage;
  if (mu && typeof mu === 'object' && !Array.isArray(mu)) {
    for (const [model, u] of Object.entries(mu as Record<string, unknown>)) {
      const m = u && typeof u === 'object' ? (u as Record<string, unknown>) : undefined;
      const c = m?.costUSD;
      if (typeof c === 'number' && Number.isFinite(c) && c >= 0) byModel.push({ model, usd: c });
      if (m && typeof m.inputTokens === 'number') {
        tokens ??= { input: 0, output: 0, cacheRead: 0, cacheCreation: 0 };
        tokens.input += num(m.inputTokens);
        tokens.output += num(m.outputTokens);
        tokens.cacheRead += num(m.cacheReadInputTokens);
        tokens.cacheCreation += num(m.cacheCreationInputTokens);
      }
    }
  }
  return { usd, byModel, hasUnknownModelCost: o.hasUnknownModelCost === true, tokens };
}

/**
 * Attachments whose payload does not hold the text Claude Code sends for them: it renders a fixed reminder (in a
 * `<system-reminder>` block appended to the next user message or tool result) from the kind alone. Their size as
 * Claude Code 2.1.330 sends them, measured from its requests on resume (test/compat/compacted.test.ts resumes a
 * session holding each): characters and the text-token proxy (tokens/text.ts) of the rendered block. Without this a
 * kept round holding one was counted as a couple of characters, and the resumed request came out ~5% over the plan.
 */
const RENDERED_ATTACHMENTS: Readonly<Record<string, { chars: number; tokens: number }>> = Object.freeze({
  'auto_mode:full': { chars: 985, tokens: 226.9 },
  auto_mode_exit: { chars: 232, tokens: 49.7 },
  task_reminder: { chars: 458, tokens: 100 },
});

function renderedElsewhere(a: Record<string, unknown>): { chars: number; tokens: number } | undefined {
  const type = str(a.type);
  if (!type) return undefined;
  const key = type === 'auto_mode' ? `auto_mode:${str(a.reminderType) ?? ''}` : type;
  return Object.hasOwn(RENDERED_ATTACHMENTS, key) ? RENDERED_ATTACHMENTS[key] : undefined;
}

/** What a boundary's `compactMetadata` says of its compaction; an odd or missing field is null, never an error. */
function compactRecordOf(meta: Record<string, unknown> | undefined): CompactRecord {
  const figure = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : null);
  const trigger = meta ? str(meta.trigger) : undefined;
  return {
    trigger: trigger ? trigger : null,
    postTokens: figure(meta?.postTokens),
    durationMs: figure(meta?.durationMs),
    by: meta?.compactor === 'agent-compactor' ? 'agent-compactor' : 'agent',
  };
}

/** True for a compact boundary: the line after which Claude Code reads the conversation on resume. */
export function isCompactBoundary(e: Pick<Entry, 'kind' | 'subtype'>): boolean {
  return e.kind === 'system' && e.subtype === 'compact_boundary';
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

/** Most tokens one usage field can plausibly hold; anything larger is corrupt. */
const MAX_USAGE_TOKENS = 1e9;

function num(v: unknown): number {
  // Absurd counts (a corrupt 1e308 is finite, but two of them sum to Infinity) are ignored like negative ones.
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= MAX_USAGE_TOKENS ? v : 0;
}

function textOf(v: unknown): number {
  if (typeof v === 'string') return v.length;
  if (v === undefined || v === null) return 0;
  return JSON.stringify(v).length;
}

/** The text `textOf` measures: the string itself, or the JSON of anything else. */
/** The text of a record-level `rendered` list (`[{content: string}]`), or undefined when there is none. */
/** The text an attachment record says the agent sent (2.1.330's `rendered` beside `attachment`), or undefined. */
export function recordedRenderedText(o: Record<string, unknown>): string | undefined {
  return recordRendered(o.rendered);
}

function recordRendered(v: unknown): string | undefined {
  if (!Array.isArray(v)) return undefined;
  return v
    .map((p) =>
      p && typeof p === 'object' && typeof (p as Record<string, unknown>).content === 'string'
        ? ((p as Record<string, unknown>).content as string)
        : textString(p),
    )
    .join('\n');
}

function textString(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === undefined || v === null) return '';
  return JSON.stringify(v) ?? '';
}

/** ECMAScript WhiteSpace and LineTerminator (what `\s` and `trim` match). */
function isSpace(c: number): boolean {
  if (c < 128) return c === 32 || (c >= 9 && c <= 13);
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

const previewCodes: number[] = [];

/**
 * First words of a text for labels: `text.slice(0, 400).replace(/\s+/g, ' ').trim().slice(0, 80)`,
 * computed without the regex and returned as a fresh short string (a slice of the text would
 * keep the whole text alive as long as the digest lives).
 */
export function previewOf(text: string): string {
  const out = previewCodes;
  out.length = 0;
  const n = Math.min(text.length, 400);
  let pendingSpace = false;
  for (let i = 0; i < n && out.length < 80; i++) {
    const c = text.charCodeAt(i);
    if (isSpace(c)) {
      if (out.length > 0) pendingSpace = true; // leading spaces are trimmed
      continue;
    }
    if (pendingSpace) {
      out.push(32);
      pendingSpace = false;
      if (out.length === 80) break;
    }
    out.push(c);
  }
  // A space still pending at the end is trailing (trimmed) or falls beyond the 80 characters.
  return out.length === 0 ? '' : String.fromCharCode.apply(null, out);
}

function countImages(content: unknown): number {
  if (!Array.isArray(content)) return 0;
  let n = 0;
  for (const b of content) if (b && typeof b === 'object' && (b as { type?: unknown }).type === 'image') n++;
  return n;
}

/** Text characters of a tool_result's content (string, or text blocks; images counted apart), and their proxy tokens. */
function toolResultSize(content: unknown, info: BlockInfo): void {
  if (typeof content === 'string' || !Array.isArray(content)) {
    const t = textString(content);
    info.chars = t.length;
    info.tokens = textTokens(t);
    return;
  }
  let n = 0;
  let tokens = 0;
  for (const b of content) {
    if (!b || typeof b !== 'object') continue;
    const block = b as Record<string, unknown>;
    let t: string;
    if (block.type === 'text') t = textString(block.text);
    else if (block.type !== 'image') t = textString(block);
    else continue;
    n += t.length;
    tokens += textTokens(t);
  }
  info.chars = n;
  info.tokens = tokens;
}

/**
 * A block digest with every field present (undefined when absent): all digests share one
 * hidden class, which keeps the passes over them (chain, rounds, budgets) monomorphic.
 */
function newBlock(type: string, chars: number): BlockInfo {
  return {
    type,
    chars,
    tokens: undefined,
    toolId: undefined,
    name: undefined,
    isError: undefined,
    images: undefined,
    signatureChars: undefined,
    preview: undefined,
  };
}

export function blockInfo(raw: unknown): BlockInfo {
  if (!raw || typeof raw !== 'object') {
    const t = textString(raw);
    const info = newBlock(typeof raw === 'string' ? 'text' : 'unknown', t.length);
    info.tokens = textTokens(t);
    return info;
  }
  const b = raw as Record<string, unknown>;
  const type = str(b.type) ?? 'unknown';
  switch (type) {
    case 'text': {
      const text = str(b.text) ?? '';
      const info = newBlock(type, text.length);
      info.tokens = textTokens(text);
      info.preview = previewOf(text);
      return info;
    }
    case 'thinking': {
      const info = newBlock(type, textOf(b.thinking));
      info.signatureChars = textOf(b.signature);
      return info;
    }
    case 'redacted_thinking': {
      const info = newBlock(type, 0);
      info.signatureChars = textOf(b.data);
      return info;
    }
    case 'tool_use':
    case 'server_tool_use': {
      const input = textString(b.input);
      const name = str(b.name);
      const info = newBlock(type, input.length);
      info.tokens = textTokens(input) + (name ? textTokens(name) : 0);
      info.toolId = str(b.id);
      info.name = name;
      return info;
    }
    case 'tool_result': {
      const info = newBlock(type, 0);
      info.toolId = str(b.tool_use_id);
      toolResultSize(b.content, info);
      if (b.is_error === true) info.isError = true;
      const images = countImages(b.content);
      if (images) info.images = images;
      return info;
    }
    case 'image': {
      const info = newBlock(type, 0);
      info.images = 1;
      return info;
    }
    case 'document':
      return newBlock(type, textOf((b.source as Record<string, unknown> | undefined)?.data));
    case 'opaque': {
      // Content nobody here can read (an encrypted summary): no characters of text; its tokens as its agent counts them.
      const info = newBlock(type, 0);
      info.tokens = typeof b.tokens === 'number' && Number.isFinite(b.tokens) && b.tokens > 0 ? b.tokens : 0;
      return info;
    }
    default: {
      const t = textString(b);
      const info = newBlock(type, t.length);
      info.tokens = textTokens(t);
      return info;
    }
  }
}

function usageOf(u: unknown): Usage | undefined {
  if (!u || typeof u !== 'object') return undefined;
  const o = u as Record<string, unknown>;
  const usage: Usage = {
    input: num(o.input_tokens),
    cacheCreation: num(o.cache_creation_input_tokens),
    cacheRead: num(o.cache_read_input_tokens),
    output: num(o.output_tokens),
  };
  const w = o.cache_creation;
  if (w && typeof w === 'object') {
    const c = w as Record<string, unknown>;
    usage.cacheWrite = { m5: num(c.ephemeral_5m_input_tokens), h1: num(c.ephemeral_1h_input_tokens) };
  }
  if (o.speed === 'fast') usage.fast = true;
  return usage;
}

/** The entry digest of one parsed JSON object found at a line (the fields the engine reads). Throws only on non-objects. */
export function digestEntry(obj: unknown, line: number, part: number, start: number, end: number): Entry {
  const e = fullDigest(obj, line, part, start, end);
  return e.uuid === undefined && e.blocks.length === 0 && holdsOnlyKind(e) ? kindOnlyEntry(e) : e;
}

/**
 * The entry of a line (or a line's first object) that records nothing the engine reads but its type (`{}`, a
 * `{"type":"progress"}` without a uuid, a file-history snapshot): its own fields are where it is and its kind; every
 * other field (`part` 0 among them) is inherited from the prototype, which holds what a digest gives a line that
 * lacks it. A full digest is an object of 40 fields (about 350 bytes), and a file of millions of such lines spent
 * that on each (issue 31: 6,000,000 lines of `{}` took 2.7 GB); this one is 4 fields. Reads, `in`, JSON and
 * assignment (a reader adding a field) behave as on a full digest; a spread or a structured clone copies only the
 * own fields (the engine spreads only entries with a uuid). One class for every kind, so that the passes over the
 * entries see two shapes, not one per kind.
 */
class KindOnlyEntry {
  constructor(
    readonly line: number,
    readonly start: number,
    readonly end: number,
    readonly kind: string,
  ) {}
}

/** True for the entry of a line that holds nothing but its kind (see `KindOnlyEntry`). */
export function isKindOnly(e: Entry): boolean {
  return e instanceof KindOnlyEntry;
}

/** Fields a `KindOnlyEntry` holds itself; the others are the empty digest's. */
const OWN_FIELDS: ReadonlySet<string> = new Set(['line', 'start', 'end', 'kind']);

/** The digest of a line that records nothing: the value of every field a `KindOnlyEntry` inherits. */
const EMPTY_DIGEST = fullDigest({}, 0, 0, 0, 0) as unknown as Record<string, unknown>;
const INHERITED_FIELDS = Object.keys(EMPTY_DIGEST).filter((k) => !OWN_FIELDS.has(k) && k !== 'blocks');

for (const k of INHERITED_FIELDS)
  Object.defineProperty(KindOnlyEntry.prototype, k, {
    value: EMPTY_DIGEST[k],
    writable: true,
    enumerable: true,
    configurable: true,
  });
// Shared by every such entry: frozen, so that no caller can give them all a block by pushing into one.
Object.defineProperty(KindOnlyEntry.prototype, 'blocks', {
  value: Object.freeze([]),
  writable: true,
  enumerable: true,
  configurable: true,
});
// JSON.stringify writes own fields only: an analysis handed on as JSON (the extension's API) gets the same text as
// from a full digest, field for field and in order.
const ENTRY_FIELDS = Object.keys(EMPTY_DIGEST);
Object.defineProperty(KindOnlyEntry.prototype, 'toJSON', {
  value(this: Record<string, unknown>) {
    const out: Record<string, unknown> = {};
    for (const k of ENTRY_FIELDS) out[k] = this[k];
    return out;
  },
  writable: true,
  enumerable: false,
  configurable: true,
});

/**
 * True when `e` holds nothing but its place and kind (every other field, `part` too, as in the empty digest). Runs
 * for every line read, millions for some files: each field is named, not looked up by key (a loop over the field
 * names cost 1 µs a line, 3 of the 7 s of compacting a session followed by 3,000,000 lines of `{}`). The unit test of
 * kind-only entries changes each field of a full digest in turn and checks that this function sees it.
 */
export function holdsOnlyKind(e: Entry): boolean {
  return (
    e.part === 0 &&
    e.subtype === undefined &&
    e.uuid === undefined &&
    e.parentUuid === undefined &&
    e.logicalParentUuid === undefined &&
    e.isSidechain === false &&
    e.agentId === undefined &&
    e.timestamp === undefined &&
    e.sessionId === undefined &&
    e.role === undefined &&
    e.messageId === undefined &&
    e.requestId === undefined &&
    e.requestSessionId === undefined &&
    e.model === undefined &&
    e.stopReason === undefined &&
    e.usage === undefined &&
    e.textChars === undefined &&
    e.isCompactSummary === undefined &&
    e.isMeta === undefined &&
    e.isApiErrorMessage === undefined &&
    e.leafUuid === undefined &&
    e.attachmentChars === undefined &&
    e.attachmentTokens === undefined &&
    e.attachmentType === undefined &&
    e.preTokens === undefined &&
    e.compactTrigger === undefined &&
    e.contextWindow === undefined &&
    e.messagesAfterCompaction === undefined &&
    e.agentCost === undefined &&
    e.preservedSegment === undefined &&
    e.recordedOverheadTokens === undefined &&
    e.compactRecord === undefined &&
    e.compactedContextTokens === undefined &&
    e.loginPlan === undefined &&
    e.item === undefined
  );
}

/**
 * Kinds seen on kind-only lines, so that millions of `progress` lines share one string. Bounded: past 256 kinds, a
 * kind keeps the string it was parsed as.
 */
const KINDS = new Map<string, string>();
const MAX_KINDS = 256;

function kindOnlyEntry(e: Entry): Entry {
  let kind = KINDS.get(e.kind);
  if (kind === undefined) {
    kind = e.kind;
    if (KINDS.size < MAX_KINDS) KINDS.set(kind, kind);
  }
  return new KindOnlyEntry(e.line, e.start, e.end, kind) as unknown as Entry;
}

function fullDigest(obj: unknown, line: number, part: number, start: number, end: number): Entry {
  if (!obj || typeof obj !== 'object' || Array.isArray(obj)) throw new Error('line is JSON but not an object');
  const o = obj as Record<string, unknown>;
  const parentUuid = o.parentUuid === null ? null : typeof o.parentUuid === 'string' ? o.parentUuid : undefined;
  // Every field present (undefined when absent) so all entries share one hidden class.
  const e: Entry = {
    line,
    part,
    start,
    end,
    kind: str(o.type) ?? 'unknown',
    subtype: str(o.subtype) || undefined,
    uuid: str(o.uuid) || undefined,
    parentUuid,
    logicalParentUuid: str(o.logicalParentUuid) || undefined,
    isSidechain: o.isSidechain === true,
    agentId: str(o.agentId) || undefined,
    timestamp: str(o.timestamp) || undefined,
    sessionId: str(o.sessionId) || undefined,
    role: undefined,
    messageId: undefined,
    requestId: str(o.requestId) || undefined,
    requestSessionId: str(o.requestSessionId) || undefined,
    model: undefined,
    stopReason: undefined,
    usage: undefined,
    blocks: [],
    textChars: undefined,
    isCompactSummary: o.isCompactSummary === true ? true : undefined,
    isMeta: o.isMeta === true ? true : undefined,
    isApiErrorMessage: o.isApiErrorMessage === true ? true : undefined,
    leafUuid: str(o.leafUuid) || undefined,
    attachmentChars: undefined,
    attachmentTokens: undefined,
    attachmentType: undefined,
    preTokens: undefined,
    compactTrigger: undefined,
    contextWindow: undefined,
    messagesAfterCompaction: undefined,
    agentCost: undefined,
    preservedSegment: undefined,
    recordedOverheadTokens: undefined,
    compactRecord: undefined,
    compactedContextTokens: undefined,
    loginPlan: undefined,
    item: undefined,
  };
  if (e.kind === 'cost-state') e.agentCost = costStateOf(o);
  if (isCompactBoundary(e)) {
    const meta = o.compactMetadata as Record<string, unknown> | undefined;
    if (meta && typeof meta.preTokens === 'number') e.preTokens = meta.preTokens;
    if (meta && typeof meta.trigger === 'string') e.compactTrigger = meta.trigger;
    if (meta && typeof meta.postTokens === 'number' && meta.compactor === undefined)
      e.messagesAfterCompaction = meta.postTokens;
    e.compactRecord = compactRecordOf(meta);
    const seg =
      meta && typeof meta.preservedSegment === 'object' && meta.preservedSegment
        ? (meta.preservedSegment as Record<string, unknown>)
        : undefined;
    const headUuid = seg ? str(seg.headUuid) : undefined;
    const tailUuid = seg ? str(seg.tailUuid) : undefined;
    if (headUuid && tailUuid)
      e.preservedSegment = { headUuid, tailUuid, anchorUuid: str(seg!.anchorUuid) || undefined };
  }
  if (e.kind === 'api-request-shape') e.recordedOverheadTokens = shapeTokens(o.shape);
  if (e.kind === 'attachment' && o.attachment && typeof o.attachment === 'object') {
    const a = o.attachment as Record<string, unknown>;
    e.attachmentType = str(a.type);
    // 2.1.330 keeps what it sends on the record (`rendered: [{content}]`), beside `attachment`; older versions inside it.
    const t = recordRendered(o.rendered) ?? textString(a.rendered ?? a.content ?? a.snippet ?? '');
    const fixed = renderedElsewhere(a);
    e.attachmentChars = fixed ? fixed.chars + (t === '[]' ? 0 : t.length) : t.length;
    e.attachmentTokens = fixed ? fixed.tokens + (t === '[]' ? 0 : textTokens(t)) : textTokens(t);
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
    if ('stop_reason' in m) e.stopReason = str(m.stop_reason) ?? null;
    // Usage written by our own compaction is an estimate, not a record of a request: skip it.
    const usage = o.compactorEstimatedUsage === true ? undefined : usageOf(m.usage);
    if (usage) e.usage = usage;
    const content = m.content;
    if (typeof content === 'string') {
      e.textChars = content.length;
      const info = newBlock('text', content.length);
      info.tokens = textTokens(content);
      info.preview = previewOf(content);
      e.blocks.push(info);
    } else if (Array.isArray(content)) {
      for (const b of content) e.blocks.push(blockInfo(b));
    } else if (content !== undefined && content !== null) {
      const t = textString(content);
      const info = newBlock('unknown', t.length);
      info.tokens = textTokens(t);
      e.blocks.push(info);
    }
  }
  return e;
}

/** Largest recorded request shape counted (characters): a real one is tens of KB; a bigger one is left to the estimate. */
const MAX_SHAPE_CHARS = 1 << 20;

/**
 * Tokens of a recorded request shape `{system, tools}`: each system text block, and the tools as their JSON. A shape
 * without system text or without a tools list is not one the agent sent (a newer or damaged record): undefined, so
 * the figure is estimated instead of "recorded" as nothing.
 */
function shapeTokens(shape: unknown): number | undefined {
  if (!shape || typeof shape !== 'object') return undefined;
  const { system, tools } = shape as Record<string, unknown>;
  if (!Array.isArray(tools)) return undefined;
  const texts: string[] = [];
  if (typeof system === 'string') texts.push(system);
  else if (Array.isArray(system)) {
    for (const b of system) {
      const text =
        typeof b === 'string' ? b : b && typeof b === 'object' ? (b as Record<string, unknown>).text : undefined;
      if (typeof text === 'string') texts.push(text);
    }
  }
  if (texts.length === 0) return undefined;
  texts.push(JSON.stringify(tools));
  if (texts.reduce((n, t) => n + t.length, 0) > MAX_SHAPE_CHARS) return undefined;
  return texts.reduce((n, t) => n + countTokensInPieces(t), 0);
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
      if (c === 92)
        i++; // backslash: skip the escaped char
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

/** Number of `{` and `[` in `text`, counting no further than `limit`. */
function openersUpTo(text: string, limit: number): number {
  let n = 0;
  for (let i = text.indexOf('{'); i !== -1 && n < limit; i = text.indexOf('{', i + 1)) n++;
  for (let i = text.indexOf('['); i !== -1 && n < limit; i = text.indexOf('[', i + 1)) n++;
  return n;
}

/** Cheap guard against pathological nesting that would overflow the parser's stack. */
function tooDeep(text: string): boolean {
  let depth = 0;
  let inString = false;
  let maxDepth = 0;
  // Only worth scanning when the line has many openers near its start.
  if (text.length < MAX_DEPTH_PROBE) return false;
  // More than 1,000 levels need more than 1,000 openers: count them first with native
  // searches (cheap), and scan character by character only when there are that many.
  if (openersUpTo(text, 1001) <= 1000) return false;
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

/** Turns one parsed JSON value of a line into entries (a format's record reader); throws on non-objects. */
export type DigestFn = (value: unknown, line: number, part: number, start: number, end: number) => Entry[];

const digestClaudeCode: DigestFn = (value, line, part, start, end) => [digestEntry(value, line, part, start, end)];

/** Parses one line's text into entries (by `digest`, Claude Code's digest by default); never throws. */
export function parseLine(
  text: string,
  line: number,
  start: number,
  end: number,
  digest: DigestFn = digestClaudeCode,
): ParsedLine {
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
          entries.push(...digest(JSON.parse(parts[i]), line, i, start, end));
        } catch {
          /* a non-object part: reported below */
        }
      }
      return {
        entries,
        malformed: {
          line,
          start,
          end,
          error: `${parts.length} JSON objects joined on one line (recovered ${entries.length})`,
          recovered: entries.length,
        },
      };
    }
    return { entries: [], malformed: { line, start, end, error: `not valid JSON: ${message}`, recovered: 0 } };
  }
  // JSON.parse accepts 10,000-deep nesting, but JSON.stringify and structuredClone (used when
  // sizing blocks and when rewriting kept lines) overflow the stack past a few thousand levels.
  // Such a line is kept verbatim and reported instead.
  if (tooDeep(text)) {
    return {
      entries: [],
      malformed: {
        line,
        start,
        end,
        error: 'JSON nested too deeply (over 1,000 levels); kept verbatim, not parsed',
        recovered: 0,
      },
    };
  }
  try {
    return { entries: digest(obj, line, 0, start, end) };
  } catch (err) {
    return {
      entries: [],
      malformed: { line, start, end, error: err instanceof Error ? err.message : String(err), recovered: 0 },
    };
  }
}
