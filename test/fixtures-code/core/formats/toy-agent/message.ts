// A Toy Agent record's message in the engine's model (core/conversation.ts): what the summarizers, the fidelity
// measure and the readable views read of a toy session. The reader's shapes, so both read a record alike.
import type { ConversationRecord } from '../../conversation';
import type { Entry } from '../../entries';
import { str, type JsonObject } from '../../json';
import { toyMessage } from './reader';

/** The message a toy record holds for `entry`, or null (the session head; a compaction's boundary). */
export function toyConversationRecord(record: JsonObject, entry: Entry): ConversationRecord | null {
  if (record.toy === 'compaction')
    return entry.kind === 'user'
      ? {
          kind: 'message',
          role: 'user',
          content: [{ type: 'text', text: str(record, 'summary') ?? '' }],
          compactSummary: true,
        }
      : null;
  const m = toyMessage(record);
  if (!m) return null;
  return {
    kind: 'message',
    role: m.role,
    content: m.content,
    ...(m.role === 'assistant' && { id: str(record, 'id') }),
    ...(record.summary === true && { compactSummary: true }),
  };
}
