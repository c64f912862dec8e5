// OpenAI Codex CLI rollouts (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl): one `{timestamp, type, payload}` record
// a line (`ordinal` on every record in newer versions). Each record becomes the common entry the rest of the engine
// reads: conversation items (`response_item`) become user/assistant entries on one linear chain, the model's
// items between two requests share one response id (one round), `event_msg` token counts carry the usage truth,
// and a `compacted` record is a compact boundary followed by the history it replaces the context with.
import { digestEntry, type Entry } from '../../entries';
import { arr, asObject, obj, str, type JsonObject } from '../../json';
import type { RecordReader } from '../agent';

/** Record types a Codex rollout is made of (detection and validation). */
export const CODEX_RECORD_TYPES = new Set(['session_meta', 'turn_context', 'response_item', 'event_msg', 'compacted']);

/** True when a parsed JSONL value is a Codex rollout record. */
export function isCodexRecord(v: unknown): boolean {
  const o = asObject(v);
  return (
    o !== undefined && typeof o.type === 'string' && CODEX_RECORD_TYPES.has(o.type) && asObject(o.payload) !== undefined
  );
}

/**
 * The uuid the reader gives the entry of a line, or of item `historyItem` of a compacted record's history: an opaque
 * identity for the chain (the item's position is the entry's `item`, never read back from this string).
 */
function codexEntryUuid(line: number, historyItem?: number): string {
  return historyItem === undefined ? `codex:${line}` : `codex:${line}:h${historyItem}`;
}

interface CodexState {
  /** Uuid of the newest conversation entry (the parent of the next one). */
  lastUuid: string | null;
  /** Number of model responses seen; the current one is `resp-<responses>`. */
  responses: number;
  /** True while the model's items of the current response are being read (no input or usage since). */
  open: boolean;
  /** total_token_usage.total_tokens of the newest token count: a repeat of it is the same request again. */
  lastTotal: number | null;
  /** True when the current response already has its usage: a further count is a request that produced no items. */
  counted: boolean;
  /**
   * Where a response's token count sits: before its items (older rollouts, e.g. 0.36) or after them and their tool
   * outputs (newer ones). Decided by the file's first count: before any model item means leading.
   */
  leading: boolean | null;
  model: string | null;
  version: string | null;
  sessionId: string | null;
  /** A `compacted` record was read and no token count since: the next one may be Codex's count of what it left. */
  afterCompaction: boolean;
  /** When this thread was created (its session_meta's `timestamp`, ms), for a fork (`forked_from_id`); else null. */
  forkedAt: number | null;
  /** While the records a fork copied from its original are read: the original's id (their `requestSessionId`). */
  copying: string | null;
}

/**
 * Where a fork's copy of its original ends. A rollout whose session_meta names `forked_from_id` and that then holds a
 * second session_meta, its original's (Codex writes a legacy thread's fork as its own session_meta followed by every
 * record of the original, as they were, timestamps rewritten; observed with Codex CLI 0.169 forking a 0.140 rollout,
 * `codex exec fork`): the records from that session_meta on are the original's, their token counts requests the
 * original paid for, until the fork's own first record: one that names this thread (`thread_id`, 0.169's
 * `thread_settings_applied`), or a turn that started (`task_started.started_at`, seconds) after the fork was created.
 * A paginated fork (0.169's default) copies nothing: its history stays in the original's file.
 */
function forkOwnRecord(payload: JsonObject, st: CodexState): boolean {
  if (payload.thread_id !== undefined) return payload.thread_id === st.sessionId;
  const started = payload.started_at;
  return (
    payload.type === 'task_started' &&
    typeof started === 'number' &&
    st.forkedAt !== null &&
    started >= Math.floor(st.forkedAt / 1000)
  );
}

/** User-side text Codex adds itself (instructions, environment): meta, not a prompt. */
export function isContextText(text: string): boolean {
  const t = text.trimStart();
  return (
    t.startsWith('<environment_context>') ||
    t.startsWith('<user_instructions>') ||
    t.startsWith('# AGENTS.md instructions') ||
    t.startsWith('<permissions instructions>') ||
    t.startsWith('<turn_aborted>')
  );
}

/** Anthropic-style content blocks (the engine's, core/conversation.ts) of a Codex message's content parts. */
function messageBlocks(content: unknown): JsonObject[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  const out: JsonObject[] = [];
  for (const part of Array.isArray(content) ? (content as unknown[]) : []) {
    const p = asObject(part);
    if (!p) continue;
    if (p.type === 'input_image' || p.type === 'image') out.push({ type: 'image' });
    else if (typeof p.text === 'string') out.push({ type: 'text', text: p.text });
    else out.push({ type: 'text', text: JSON.stringify(p) });
  }
  return out;
}

/** Text of a tool output as Codex records it: a string, `{content, success}`, or content items. */
export function codexOutputContent(output: unknown): { content: unknown; isError: boolean } {
  if (typeof output === 'string') return { content: output, isError: codexOutputFailed(output) };
  if (Array.isArray(output)) return { content: messageBlocks(output), isError: false };
  const o = asObject(output);
  if (o) {
    const inner = o.content ?? o.body ?? '';
    const content = Array.isArray(inner)
      ? messageBlocks(inner)
      : typeof inner === 'string'
        ? inner
        : JSON.stringify(inner);
    return { content, isError: o.success === false };
  }
  return { content: output === undefined || output === null ? '' : JSON.stringify(output), isError: false };
}

/**
 * True when a tool output's text says the command failed: an exit code other than 0 in its header (`Exit code: 1`,
 * unified exec's `Process exited with code 1`, an older sandbox's `… exit code: 1, stdout: …` first line), in the
 * metadata of a JSON-wrapped output (`{"output": …, "metadata": {"exit_code": 1}}`), or a patch that did not apply.
 * Codex marks none of them as errors; Claude Code marks a failed Bash call `is_error`, and so do we, alike.
 */
export function codexOutputFailed(text: string): boolean {
  const t = text.trimStart();
  if (t.startsWith('{')) {
    try {
      const code = obj(asObject(JSON.parse(t)), 'metadata')?.exit_code;
      if (typeof code === 'number') return code !== 0;
    } catch {
      // not JSON: read as text
    }
  }
  const head = t.split(/\nOutput:\n/)[0].slice(0, 600);
  const header = /(?:^|\n)(?:Exit code:|Process exited with code) (-?\d+)/.exec(head);
  if (header) return Number(header[1]) !== 0;
  const firstLine = /exit code:? (-?\d+)/i.exec(t.split('\n')[0]);
  if (firstLine) return Number(firstLine[1]) !== 0;
  return /^(apply_patch verification failed|execution error)/i.test(t);
}

/** Text of a reasoning item: its summary (and content, when the rollout keeps it). */
function reasoningText(p: JsonObject): string {
  const parts: string[] = [];
  for (const key of ['summary', 'content']) {
    for (const s of arr(p, key) ?? []) {
      const t = str(asObject(s), 'text');
      if (t) parts.push(t);
    }
  }
  return parts.join('\n');
}

/**
 * Codex's own estimate of an encrypted item's tokens (codex-rs context_manager/history.rs
 * `estimate_response_item_model_visible_bytes`: a compaction's or a reasoning's `encrypted_content` of `len` base64
 * characters is `len * 3 / 4 - 650` bytes, at 4 bytes a token, rounded up). Only OpenAI's server can read the blob;
 * this is the figure Codex itself works with.
 */
export function codexEncryptedTokens(len: number): number {
  const bytes = Math.max(0, Math.floor((len * 3) / 4) - 650);
  return Math.ceil(bytes / 4);
}

/**
 * The block of a compaction summary Codex stores encrypted: opaque (core/entries.ts), so the blob is never shown,
 * counted as text or sent to a summarizer; its size is Codex's estimate of it. The blob stays on disk, byte for byte.
 */
function encryptedSummaryBlock(blob: string): JsonObject {
  return {
    type: 'opaque',
    label: 'compaction summary, encrypted by OpenAI',
    bytes: blob.length,
    tokens: codexEncryptedTokens(blob.length),
  };
}

type Side = 'model' | 'input';

/** A response item as a message: which side produced it, and its Anthropic-style content blocks. */
export function codexItemMessage(p: JsonObject): { side: Side; meta: boolean; blocks: JsonObject[] } | null {
  switch (p.type) {
    case 'message': {
      const role = str(p, 'role');
      const blocks = messageBlocks(p.content);
      if (role === 'assistant') return { side: 'model', meta: false, blocks };
      const text = blocks.map((b) => (typeof b.text === 'string' ? b.text : '')).join('');
      return { side: 'input', meta: role !== 'user' || isContextText(text), blocks };
    }
    case 'reasoning':
      return {
        side: 'model',
        meta: false,
        blocks: [{ type: 'thinking', thinking: reasoningText(p), signature: str(p, 'encrypted_content') ?? '' }],
      };
    case 'function_call':
      return {
        side: 'model',
        meta: false,
        blocks: [
          {
            type: 'tool_use',
            id: str(p, 'call_id') ?? str(p, 'id') ?? '',
            name: str(p, 'name') ?? 'function',
            input: str(p, 'arguments') ?? p.arguments ?? '',
          },
        ],
      };
    case 'custom_tool_call':
      return {
        side: 'model',
        meta: false,
        blocks: [
          {
            type: 'tool_use',
            id: str(p, 'call_id') ?? str(p, 'id') ?? '',
            name: str(p, 'name') ?? 'custom_tool',
            input: p.input ?? '',
          },
        ],
      };
    case 'local_shell_call':
      return {
        side: 'model',
        meta: false,
        blocks: [
          { type: 'tool_use', id: str(p, 'call_id') ?? str(p, 'id') ?? '', name: 'local_shell', input: p.action ?? {} },
        ],
      };
    case 'web_search_call':
      return { side: 'model', meta: false, blocks: [{ type: 'web_search_call', action: p.action ?? null }] };
    case 'function_call_output':
    case 'custom_tool_call_output':
    case 'local_shell_call_output': {
      const { content, isError } = codexOutputContent(p.output);
      return {
        side: 'input',
        meta: false,
        blocks: [{ type: 'tool_result', tool_use_id: str(p, 'call_id') ?? '', content, is_error: isError }],
      };
    }
    case 'compaction':
    case 'compaction_summary':
      return { side: 'input', meta: true, blocks: [encryptedSummaryBlock(str(p, 'encrypted_content') ?? '')] };
    default:
      return null;
  }
}

/**
 * Codex's count of the context right after a compaction: a `last_token_usage` with no input and no output (no request
 * was made) whose `total_tokens` is the size the compaction left; null for any other count.
 */
function compactedContext(last: JsonObject | undefined): number | null {
  if (!last || last.input_tokens !== 0 || (last.output_tokens ?? 0) !== 0) return null;
  const total = last.total_tokens;
  return typeof total === 'number' && Number.isFinite(total) && total > 0 ? total : null;
}

/** The Codex reader: one instance per file, fed its records in order. */
export class CodexReader implements RecordReader {
  private s: CodexState = {
    lastUuid: null,
    responses: 0,
    open: false,
    lastTotal: null,
    counted: false,
    leading: null,
    model: null,
    version: null,
    sessionId: null,
    afterCompaction: false,
    forkedAt: null,
    copying: null,
  };

  version(): string | null {
    return this.s.version;
  }

  snapshot(): unknown {
    return { ...this.s };
  }

  restore(snapshot: unknown): void {
    this.s = { ...(snapshot as CodexState) };
  }

  digest(value: unknown, line: number, part: number, start: number, end: number): Entry[] {
    const o = asObject(value);
    if (!o) throw new Error('line is JSON but not an object');
    const payload = obj(o, 'payload') ?? {};
    const timestamp = str(o, 'timestamp');
    const type = str(o, 'type') ?? 'unknown';
    const st = this.s;
    if (st.copying !== null && type === 'event_msg' && forkOwnRecord(payload, st)) st.copying = null;
    const plain = (kind: string, subtype?: string) =>
      digestEntry({ type: kind, subtype, timestamp, sessionId: st.sessionId ?? undefined }, line, part, start, end);
    const chained = (shape: JsonObject, historyItem?: number): Entry => {
      const uuid = codexEntryUuid(line, historyItem);
      const e = digestEntry(
        {
          ...shape,
          uuid,
          parentUuid: shape.parentUuid === null ? null : st.lastUuid,
          timestamp,
          sessionId: st.sessionId ?? undefined,
          // A record a fork copied: the session that sent its request paid for it (cost.ts `copiedResponse`).
          requestSessionId: st.copying ?? undefined,
        },
        line,
        0,
        start,
        end,
      );
      if (historyItem !== undefined) e.item = historyItem;
      st.lastUuid = uuid;
      return e;
    };
    switch (type) {
      case 'session_meta': {
        const id = str(payload, 'id') ?? str(payload, 'session_id');
        if (id && !st.sessionId) {
          st.sessionId = id;
          const created = Date.parse(str(payload, 'timestamp') ?? '');
          // Without its creation time, only a record naming the thread ends the copy.
          if (str(payload, 'forked_from_id')) st.forkedAt = Number.isFinite(created) ? created : Infinity;
        } else if (id && id !== st.sessionId && st.forkedAt !== null) st.copying = id;
        st.version = str(payload, 'cli_version') ?? st.version;
        return [plain('session_meta')];
      }
      case 'turn_context':
        st.model = str(payload, 'model') ?? st.model;
        return [plain('turn_context')];
      case 'response_item': {
        const m = codexItemMessage(payload);
        if (!m) return [plain('response_item', str(payload, 'type'))];
        return [this.itemEntry(m, (shape) => chained(shape), false)];
      }
      case 'event_msg': {
        const e = this.event(payload, plain, chained);
        // The window Codex works with for its model (token_count's info.model_context_window): the map's and status's window.
        const recorded = obj(payload, 'info')?.model_context_window;
        if (typeof recorded === 'number' && Number.isFinite(recorded) && recorded > 0) e.contextWindow = recorded;
        return [e];
      }
      case 'compacted': {
        const prev = st.lastUuid;
        // What the record says of the compaction, read as a Claude Code boundary's metadata is (entries.ts).
        const compactMetadata = { trigger: str(payload, 'trigger'), compactor: str(payload, 'compactor') };
        const out = [
          chained({
            type: 'system',
            subtype: 'compact_boundary',
            parentUuid: null,
            logicalParentUuid: prev ?? undefined,
            compactMetadata,
          }),
        ];
        st.open = false;
        st.afterCompaction = true;
        const history = arr(payload, 'replacement_history');
        if (!history) {
          out.push(
            chained(
              {
                type: 'user',
                isCompactSummary: true,
                message: { role: 'user', content: [{ type: 'text', text: str(payload, 'message') ?? '' }] },
              },
              0,
            ),
          );
          return out;
        }
        // The history the context restarts from: each item an entry, so that its newest rounds can be kept again.
        history.forEach((item, k) => {
          const m = codexItemMessage(asObject(item) ?? {});
          if (!m) return;
          out.push(this.itemEntry(m, (shape) => chained(shape, k), out.length === 1));
        });
        return out;
      }
      default:
        return [plain(type)];
    }
  }

  /** The entry of one conversation item: the model's items share the current response; any input closes it. */
  private itemEntry(
    m: NonNullable<ReturnType<typeof codexItemMessage>>,
    chained: (shape: JsonObject) => Entry,
    opensHistory: boolean,
  ): Entry {
    const st = this.s;
    if (m.side === 'model') {
      if (!st.open) {
        st.responses++;
        st.open = true;
        st.counted = false;
      }
      return chained({
        type: 'assistant',
        message: { id: `resp-${st.responses}`, role: 'assistant', model: st.model ?? undefined, content: m.blocks },
      });
    }
    st.open = false;
    return chained({
      type: 'user',
      isMeta: m.meta || undefined,
      isCompactSummary: opensHistory || undefined,
      message: { role: 'user', content: m.blocks },
    });
  }

  private event(
    payload: JsonObject,
    plain: (kind: string, subtype?: string) => Entry,
    chained: (shape: JsonObject) => Entry,
  ): Entry {
    const kind = str(payload, 'type') ?? 'unknown';
    if (kind !== 'token_count') return plain('event_msg', kind);
    const info = obj(payload, 'info');
    const e = this.tokenCount(info, plain, chained);
    const window = info?.model_context_window;
    if (typeof window === 'number' && Number.isFinite(window) && window > 0) e.contextWindow = window;
    const plan = str(obj(payload, 'rate_limits'), 'plan_type');
    if (plan) e.loginPlan = plan;
    return e;
  }

  /** A token count: the usage of the response it belongs to, or a plain event when it repeats one or opens none. */
  private tokenCount(
    info: JsonObject | undefined,
    plain: (kind: string, subtype?: string) => Entry,
    chained: (shape: JsonObject) => Entry,
  ): Entry {
    const st = this.s;
    const kind = 'token_count';
    const last = obj(info, 'last_token_usage');
    const total = obj(info, 'total_token_usage')?.total_tokens;
    const left = st.afterCompaction ? compactedContext(last) : null;
    st.afterCompaction = false;
    if (left !== null) {
      const e = plain('event_msg', kind);
      e.compactedContextTokens = left;
      return e;
    }
    // A token count repeats after other events without a new request: same total, same figures, counted once.
    if (!last || (typeof total === 'number' && total === st.lastTotal)) return plain('event_msg', kind);
    if (st.leading === null) st.leading = st.responses === 0;
    if (!st.leading && st.responses === 0) return plain('event_msg', kind);
    if (typeof total === 'number') st.lastTotal = total;
    if (st.leading) {
      // The count opens its response: the model items that follow belong to it.
      st.responses++;
      st.open = true;
      st.counted = true;
      return this.usageEntry(last, chained);
    }
    // A second request since the last model item (an aborted or empty turn): a response of its own, without items.
    if (st.counted) st.responses++;
    st.counted = true;
    st.open = false;
    return this.usageEntry(last, chained);
  }

  private usageEntry(last: JsonObject, chained: (shape: JsonObject) => Entry): Entry {
    const st = this.s;
    const input = typeof last.input_tokens === 'number' ? last.input_tokens : 0;
    const cached = typeof last.cached_input_tokens === 'number' ? Math.min(input, last.cached_input_tokens) : 0;
    const usage = {
      input_tokens: input - cached,
      cache_read_input_tokens: cached,
      cache_creation_input_tokens: 0,
      output_tokens: last.output_tokens ?? 0,
    };
    return chained({
      type: 'assistant',
      message: { id: `resp-${st.responses}`, role: 'assistant', model: st.model ?? undefined, content: [], usage },
    });
  }
}
