// Cline / Roo Code tasks (`<VS Code global storage>/<extension>/tasks/<task id>/api_conversation_history.json`): an
// array of Anthropic messages, with the usage and cost of each API request in `ui_messages.json` beside it. Cline
// answers a tool call with a text block `[<tool> for '<what>'] Result: …`, read here as that call's result.
import { dirname, join } from 'node:path';
import type { Entry } from '../../entries';
import { asObject, str, type JsonObject } from '../../json';
import { readSidecar } from '../../io/sidecarFiles';
import type { DocumentElement } from '../agent';
import { linkedEntries } from '../document';

/** ui_messages.json files larger than this give no figures (it is parsed whole). */
const MAX_UI_MESSAGES_BYTES = 512 << 20;

/**
 * Usage of each API request of a Cline / Roo task, in order, from `ui_messages.json` beside the history, and the cost
 * Cline itself recorded for them (the sum of their `cost` fields, as its task header shows it; null when none has one).
 */
async function clineUsage(historyPath: string): Promise<{ usage: JsonObject[]; costUsd: number | null }> {
  try {
    // Read like every file beside a transcript (sidecarFiles.ts): a link, FIFO, device or oversized file gives no figures.
    const bytes = await readSidecar(join(dirname(historyPath), 'ui_messages.json'), MAX_UI_MESSAGES_BYTES);
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
  const { usage, costUsd } = await clineUsage(path);
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
    return [{ type: role, uuid: `cline:${k}`, message: { id, role, model, content, usage: u } }];
  });
  // Cline's own figure for the task: carried like Claude Code's cost-state total (cost.ts agentCost reads the newest).
  if (costUsd !== null && entries.length)
    entries[entries.length - 1].agentCost = {
      usd: costUsd,
      byModel: [],
      hasUnknownModelCost: false,
      source: "the cost of each API request in Cline's ui_messages.json",
    };
  return entries;
}
