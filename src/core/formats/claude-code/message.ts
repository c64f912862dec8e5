// A Claude Code line's message in the engine's model (core/conversation.ts): user and assistant lines as messages,
// `attachment` lines by their kind, file and the text Claude Code sends for them; other lines (system, progress,
// metadata) hold none.
import type { ConversationRecord } from '../../conversation';
import { obj, str, type JsonObject } from '../../json';

/** What Claude Code sends for an `attachment` line (rendered as a meta user message), or null when nothing. */
export function claudeAttachmentText(line: JsonObject): string | null {
  const a = obj(line, 'attachment');
  if (!a) return null;
  const body = a.rendered ?? a.content ?? a.snippet;
  if (body === undefined || body === null || body === '') return null;
  return typeof body === 'string' ? body : JSON.stringify(body);
}

/** The message a Claude Code line holds, or null for a line that holds none. */
export function claudeConversationRecord(line: JsonObject): ConversationRecord | null {
  const cwd = str(line, 'cwd');
  if (line.type === 'user' || line.type === 'assistant') {
    const message = obj(line, 'message');
    const content = message?.content;
    // One literal of one shape for every line (a compaction reads tens of thousands of them).
    return {
      kind: 'message',
      role: line.type,
      content: typeof content === 'string' || Array.isArray(content) ? content : [],
      id: line.type === 'assistant' ? str(message, 'id') : undefined,
      meta: line.isMeta ? true : undefined,
      compactSummary: line.isCompactSummary ? true : undefined,
      sidechain: line.isSidechain ? true : undefined,
      cwd,
    };
  }
  if (line.type === 'attachment') {
    const a = obj(line, 'attachment');
    const type = str(a, 'type');
    const filename = str(a, 'filename');
    return {
      kind: 'attachment',
      ...(type !== undefined && { type }),
      ...(filename !== undefined && { filename }),
      text: claudeAttachmentText(line),
      ...(cwd !== undefined && { cwd }),
    };
  }
  return null;
}
