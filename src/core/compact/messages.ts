// Rebuilds API messages from a session's records (core/conversation.ts) the way Claude Code does on resume:
// assistant records sharing a message id merge, consecutive user records merge.
import type { ConversationRecord } from '../conversation';
import { isObject, type JsonObject } from '../json';

export type ApiBlock = JsonObject & { type: string };
export interface ApiMessage {
  role: 'user' | 'assistant';
  content: ApiBlock[];
  /** message.id of a merged assistant message. */
  id?: string;
}

function blocksOf(content: unknown): ApiBlock[] {
  if (typeof content === 'string') return content ? [{ type: 'text', text: content }] : [];
  if (!Array.isArray(content)) return [];
  return content.filter((b): b is ApiBlock => isObject(b) && typeof b.type === 'string');
}

/** The first `max` characters of `s`, followed by a note of how many were left out (`s` itself when it fits). */
export function clipNotingRest(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max)} […${s.length - max} more characters]`;
}

/** Records in chain order → API messages (an attachment with text as a `<system-reminder>` user message). */
export function toApiMessages(records: readonly (ConversationRecord | null | undefined)[]): ApiMessage[] {
  const out: ApiMessage[] = [];
  for (const r of records) {
    if (!r) continue;
    let role: 'user' | 'assistant' | null = null;
    let blocks: ApiBlock[] = [];
    if (r.kind === 'message') {
      role = r.role;
      blocks = blocksOf(r.content);
    } else if (r.text) {
      role = 'user';
      blocks = [{ type: 'text', text: `<system-reminder>\n${r.text}\n</system-reminder>` }];
    }
    if (!role || blocks.length === 0) continue;
    const prev = out[out.length - 1];
    const id = r.kind === 'message' && role === 'assistant' ? r.id : undefined;
    if (prev && prev.role === role && (role === 'user' || (id !== undefined && prev.id === id))) {
      prev.content.push(...blocks);
    } else {
      const m: ApiMessage = { role, content: [...blocks] };
      if (id) m.id = id;
      out.push(m);
    }
  }
  return out;
}

export interface ValidityProblem {
  message: number;
  problem: string;
}

/**
 * API validity as the Messages API checks it: starts with a user message, roles alternate,
 * every tool_use is answered by a tool_result in the next user message, no orphan tool_result.
 */
export function checkApiValidity(messages: ApiMessage[]): ValidityProblem[] {
  const problems: ValidityProblem[] = [];
  if (messages.length === 0) return [{ message: 0, problem: 'no messages' }];
  if (messages[0].role !== 'user') problems.push({ message: 0, problem: 'first message is not a user message' });
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (i > 0 && messages[i - 1].role === m.role && m.role === 'user')
      problems.push({ message: i, problem: 'two user messages in a row' });
    if (m.role === 'assistant') {
      const uses = m.content.filter((b) => b.type === 'tool_use').map((b) => b.id);
      if (uses.length === 0) continue;
      const next = messages[i + 1];
      if (!next) continue; // a dangling final tool_use is answered by the client
      const answered = new Set(
        next.role === 'user' ? next.content.filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id) : [],
      );
      for (const id of uses)
        if (!answered.has(id))
          problems.push({ message: i, problem: `tool_use ${String(id)} has no tool_result in the next user message` });
    } else {
      const prev = messages[i - 1];
      const asked = new Set(
        prev && prev.role === 'assistant' ? prev.content.filter((b) => b.type === 'tool_use').map((b) => b.id) : [],
      );
      for (const b of m.content) {
        if (b.type === 'tool_result' && !asked.has(b.tool_use_id))
          problems.push({ message: i, problem: `orphan tool_result ${String(b.tool_use_id)}` });
      }
    }
  }
  return problems;
}
