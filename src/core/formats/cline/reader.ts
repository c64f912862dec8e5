// Cline / Roo Code tasks (`<VS Code global storage>/<extension>/tasks/<task id>/api_conversation_history.json`): an
// array of Anthropic messages, with the usage and cost of each API request in `ui_messages.json` beside it. Cline
// answers a tool call with a text block `[<tool> for '<what>'] Result: …`, read here as that call's result.
import { dirname, join } from 'node:path';
import type { Entry } from '../../entries';
import { asObject, str, type JsonObject } from '../../json';
import { readSidecar } from '../../io/sidecarFiles';
import type { DocumentElement } from '../agent';
import { linkedEntries } from '../document';
import { clineThreshold, clineWindow } from './limits';

/** ui_messages.json files larger than this give no figures (it is parsed whole). */
const MAX_UI_MESSAGES_BYTES = 512 << 20;

/**
 * Usage of each API request of a Cline / Roo task, in order, from `ui_messages.json` beside the history, and the cost
 * Cline itself recorded for them (the sum of their `cost` fields, as its task header shows it; null when none has one).
 */
async function clineUsage(historyPath: string): Promise<ClineRecords> {
  try {
    // Read like every file beside a transcript (sidecarFiles.ts): a link, FIFO, device or oversized file gives no figures.
    const bytes = await readSidecar(join(dirname(historyPath), 'ui_messages.json'), MAX_UI_MESSAGES_BYTES);
    const ui: unknown = bytes ? JSON.parse(bytes.toString('utf8')) : [];
    const out: JsonObject[] = [];
    let costUsd: number | null = null;
    const ranges: DeletedRange[] = [];
    for (const m of Array.isArray(ui) ? (ui as unknown[]) : []) {
      const o = asObject(m);
      const range = deletedRange(o?.conversationHistoryDeletedRange);
      const last = ranges[ranges.length - 1];
      if (range && !(last && last[0] === range[0] && last[1] === range[1])) ranges.push(range);
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
    return { usage: out, costUsd, ranges, read: bytes !== null && bytes !== undefined };
  } catch {
    return { usage: [], costUsd: null, ranges: [], read: false };
  }
}

/** Indices `[start, end]` (inclusive) of the history's messages Cline leaves out of what it sends. */
type DeletedRange = [number, number];

interface ClineRecords {
  usage: JsonObject[];
  costUsd: number | null;
  /** The truncations Cline recorded (`conversationHistoryDeletedRange`, stamped on its ui messages), in order. */
  ranges: DeletedRange[];
  /** Whether ui_messages.json was there to read. */
  read: boolean;
}

function deletedRange(v: unknown): DeletedRange | null {
  if (!Array.isArray(v) || v.length !== 2) return null;
  const [a, b] = v as unknown[];
  return Number.isInteger(a) && Number.isInteger(b) && (a as number) >= 0 && (b as number) >= (a as number)
    ? [a as number, b as number]
    : null;
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

/** True when the document is a Cline / Roo Code task history: an array of `{role, content}` messages. */
export function isClineHistory(doc: unknown): boolean {
  if (!Array.isArray(doc)) return false;
  const items = (doc as unknown[]).map(asObject);
  return items.length > 0 && items.every((i) => i && typeof i.role === 'string' && 'content' in i);
}

/** The entries of a task's messages, with the usage Cline recorded for each response and its own cost of the task. */
export async function clineEntries(
  path: string,
  messages: unknown[],
  elements: readonly DocumentElement[],
): Promise<Entry[]> {
  const records = await clineUsage(path);
  let entries = messageEntries(messages, elements, records, []);
  // What Cline sends is its history less the ranges it truncated: the ones it recorded, else (no ui_messages.json to
  // record them) the ones its rules make once the history no longer fits its window.
  const truncations: Truncation[] = records.read
    ? records.ranges.map((range) => ({ range, trigger: 'truncation' }))
    : assumedTruncations(entries).map((range) => ({ range, trigger: ASSUMED }));
  const usable = truncations.filter((t) => t.range[1] + 1 < messages.length && t.range[0] > 0);
  if (usable.length) entries = messageEntries(messages, elements, records, usable);
  // Cline's own figure for the task: carried like Claude Code's cost-state total (cost.ts agentCost reads the newest).
  if (records.costUsd !== null && entries.length)
    entries[entries.length - 1].agentCost = {
      usd: records.costUsd,
      byModel: [],
      hasUnknownModelCost: false,
      source: "the cost of each API request in Cline's ui_messages.json",
    };
  return entries;
}

/**
 * The trigger of a truncation Cline's files do not record, said with the compaction: the task has no ui_messages.json,
 * and its history does not fit its window, so Cline truncated it (it always does before a request that would not fit).
 */
const ASSUMED = 'assumed truncation: no ui_messages.json';

interface Truncation {
  range: DeletedRange;
  trigger: string;
}

/**
 * The messages' entries; before the message after each truncated range, a compact boundary (Cline leaves the range
 * out of every request from then on), whose preserved segment is what Cline keeps before the range (the task, and the
 * first reply).
 */
function messageEntries(
  messages: unknown[],
  elements: readonly DocumentElement[],
  records: ClineRecords,
  truncations: readonly Truncation[],
): Entry[] {
  const { usage } = records;
  const before = new Map<number, Truncation>();
  for (const t of truncations) before.set(t.range[1] + 1, t);
  let assistants = 0;
  let pendingCalls: string[] = [];
  const entries = linkedEntries(messages, elements, (value, k): JsonObject[] => {
    const v = asObject(value) ?? {};
    const role = str(v, 'role') === 'assistant' ? 'assistant' : 'user';
    const id = role === 'assistant' ? `cline-${assistants}` : undefined;
    const u = role === 'assistant' ? usage[assistants++] : undefined;
    const content = role === 'assistant' ? v.content : clineResults(v.content, pendingCalls);
    pendingCalls = role === 'assistant' ? clineCalls(v.content) : [];
    // Cline records the model of each response beside it (modelInfo.modelId): what prices the response.
    const model = role === 'assistant' ? str(asObject(v.modelInfo), 'modelId') : undefined;
    const message = { type: role, uuid: `cline:${k}`, message: { id, role, model, content, usage: u } };
    const t = before.get(k);
    if (!t) return [message];
    const [start, end] = t.range;
    const boundary = {
      type: 'system',
      subtype: 'compact_boundary',
      uuid: `cline:${start}-${end}:truncated`,
      compactMetadata: {
        trigger: t.trigger,
        preservedSegment: { headUuid: 'cline:0', tailUuid: `cline:${start - 1}` },
      },
    };
    return [boundary, message];
  });
  // A boundary starts the chain again; its logical parent is the message before it (as Claude Code writes one).
  for (const e of entries)
    if (e.subtype === 'compact_boundary') {
      e.logicalParentUuid = e.parentUuid ?? undefined;
      e.parentUuid = null;
    }
  return entries;
}

/** Messages Cline always keeps at the head of what it sends: the task and its first reply. */
const KEPT_HEAD = 2;

/**
 * The ranges Cline's rules truncate when no file records them: before each request (each assistant message) whose
 * context, estimated, reaches the threshold of the task's window, it leaves out half of the messages after the kept
 * head and the last range (a quarter kept when the context is over twice the threshold), an even number, ending on a
 * reply. None when the window is not known (the model is not one whose window Cline's files let us tell).
 */
function assumedTruncations(entries: readonly Entry[]): DeletedRange[] {
  let model: string | undefined;
  for (const e of entries) if (e.kind === 'assistant' && e.model) model = e.model;
  const window = clineWindow(model);
  if (window === null) return [];
  const threshold = clineThreshold(window);
  const size = entries.map((e) => e.blocks.reduce((n, b) => n + (b.tokens ?? Math.ceil(b.chars / 4)), 0));
  const ranges: DeletedRange[] = [];
  let range: DeletedRange | null = null;
  let context = 0;
  for (let k = 0; k < entries.length; k++) {
    if (entries[k].kind === 'assistant' && context >= threshold) {
      const rest: number = range ? range[1] + 1 : KEPT_HEAD;
      const quarter = context / 2 > threshold;
      const remove = quarter ? Math.floor(((k - rest) * 3) / 4 / 2) * 2 : Math.floor((k - rest) / 4) * 2;
      let end: number = rest + remove - 1;
      if (remove > 0 && entries[end].kind !== 'assistant') end--;
      if (end >= rest) {
        for (let i = rest; i <= end; i++) context -= size[i];
        range = [KEPT_HEAD, end];
        ranges.push(range);
      }
    }
    context += size[k];
  }
  return ranges;
}
