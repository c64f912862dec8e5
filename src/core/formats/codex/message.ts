// A Codex record's message in the engine's model (core/conversation.ts), with Anthropic-style blocks as the reader
// maps them: what the summarizers, the fidelity measure and the readable views read of a rollout.
import type { ConversationMessage } from '../../conversation';
import type { Entry } from '../../entries';
import { asObject, str, type JsonObject } from '../../json';
import { codexItemMessage } from './reader';

/** An entry's message as the summarizers read it: its item, or its compacted record's item; null for none. */
export function codexConversationRecord(record: JsonObject, entry: Entry): ConversationMessage | null {
  const payload = asObject(record.payload) ?? {};
  let item: JsonObject | undefined = payload;
  if (record.type === 'compacted') {
    if (entry.kind === 'system') return null;
    const k = entry.item;
    if (k === undefined)
      return { kind: 'message', role: 'user', content: [{ type: 'text', text: str(payload, 'message') ?? '' }] };
    item = asObject((Array.isArray(payload.replacement_history) ? (payload.replacement_history as unknown[]) : [])[k]);
  } else if (record.type !== 'response_item') return null;
  return item ? codexItemRecord(item) : null;
}

/** A response item (of the rollout, or of a compacted record's history) as a message, or null for none. */
export function codexItemRecord(item: JsonObject): ConversationMessage | null {
  const m = codexItemMessage(item);
  if (!m) return null;
  return {
    kind: 'message',
    role: m.side === 'model' ? 'assistant' : 'user',
    content: m.blocks,
    ...(m.meta && { meta: true }),
  };
}
