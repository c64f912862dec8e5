// A record's message in the engine's own model: what the summarizers, the fidelity measure and the readable views
// read of a session, whatever agent wrote it. Each agent's module maps its records to it (RecordFormat.message:
// Claude Code's lines in formats/claude-code/message.ts, Codex's response items in formats/codex/message.ts), so
// nothing after reading knows an agent's line schema.
import { asObject, isObject, jsonText, type JsonObject } from './json';

/** A user or assistant message, with Anthropic-style content (a string, or text, tool_use, tool_result, image blocks). */
export interface ConversationMessage {
  kind: 'message';
  role: 'user' | 'assistant';
  /** As the record holds it: a string, or its blocks (anything else is read as no content). */
  content: string | unknown[];
  /** The API message id of an assistant message: the records of one response share it. */
  id?: string;
  /** Context the agent adds itself (reminders, AGENTS.md, environment), not typed by the user. */
  meta?: boolean;
  /** The summary of an earlier compaction. */
  compactSummary?: boolean;
  /** A subagent's message, not the main conversation's. */
  sidechain?: boolean;
  /** The session's working folder where the record (or the session) names it: paths are shown relative to it. */
  cwd?: string;
}

/** Context the agent attaches to a request (a file it read, a reminder): sent as a user message when it has text. */
export interface ConversationAttachment {
  kind: 'attachment';
  /** The agent's kind of attachment (Claude Code: `edited_text_file`, `todo_reminder`, …). */
  type?: string;
  filename?: string;
  /** The text the agent sends for it, or null when it sends none. */
  text: string | null;
  cwd?: string;
}

export type ConversationRecord = ConversationMessage | ConversationAttachment;

/** The message of `r` when it is one, in `role` when given. */
export function messageOf(
  r: ConversationRecord | undefined,
  role?: 'user' | 'assistant',
): ConversationMessage | undefined {
  return r?.kind === 'message' && (role === undefined || r.role === role) ? r : undefined;
}

/** The content blocks of a message (objects only; none for a string or for an attachment). */
export function contentBlocks(r: ConversationRecord | undefined): JsonObject[] {
  const c = messageOf(r)?.content;
  return Array.isArray(c) ? c.map(asObject).filter((b): b is JsonObject => b !== undefined) : [];
}

/** The text of a content value: itself when a string, else its text blocks joined by newlines. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return (content as unknown[])
    .map((item) => {
      const b = asObject(item);
      return b?.type === 'text' && typeof b.text === 'string' ? b.text : '';
    })
    .join('\n');
}

/** The text of a record's message: its string content, or its text blocks joined by lines. */
export function recordText(o: ConversationRecord | null | undefined): string {
  const c = messageOf(o ?? undefined)?.content;
  if (typeof c === 'string') return c;
  return contentBlocks(o ?? undefined)
    .filter((b) => b.type === 'text')
    .map((b) => jsonText(b.text ?? ''))
    .join('\n');
}

/** Text of a tool_result block's content: strings joined, images and other blocks skipped. */
export function toolResultText(content: unknown): { text: string; hasNonText: boolean } {
  if (typeof content === 'string') return { text: content, hasNonText: false };
  if (!Array.isArray(content)) return { text: content == null ? '' : JSON.stringify(content), hasNonText: false };
  const parts: string[] = [];
  let hasNonText = false;
  for (const b of content as unknown[]) {
    const text = isObject(b) && b.type === 'text' ? b.text : undefined;
    if (typeof text === 'string') parts.push(text);
    else hasNonText = true;
  }
  return { text: parts.join('\n'), hasNonText };
}
