// A Codex record's message in the engine's message shape (`{type, message: {role, content}}` with Anthropic-style
// blocks, as the reader maps it): what the summarizers and the fidelity measure read of a rollout.
import type { Entry } from '../../entries';
import { asObject, str, type JsonObject } from '../../json';
import { codexItemMessage } from './reader';

/** An entry's message as the summarizers read it: its item, or its compacted record's item; null for none. */
export function codexSummaryShape(record: JsonObject, entry: Entry): JsonObject | null {
  const payload = asObject(record.payload) ?? {};
  let item: JsonObject | undefined = payload;
  if (record.type === 'compacted') {
    if (entry.kind === 'system') return null;
    const k = entry.item;
    if (k === undefined)
      return {
        type: 'user',
        message: { role: 'user', content: [{ type: 'text', text: str(payload, 'message') ?? '' }] },
      };
    item = asObject((Array.isArray(payload.replacement_history) ? (payload.replacement_history as unknown[]) : [])[k]);
  } else if (record.type !== 'response_item') return null;
  return item ? codexItemShape(item) : null;
}

/** A response item (of the rollout, or of a compacted record's history) as a Claude-shaped user/assistant line, or null. */
export function codexItemShape(item: JsonObject): JsonObject | null {
  const m = codexItemMessage(item);
  if (!m) return null;
  return {
    type: m.side === 'model' ? 'assistant' : 'user',
    isMeta: m.meta || undefined,
    message: { role: m.side === 'model' ? 'assistant' : 'user', content: m.blocks },
  };
}
