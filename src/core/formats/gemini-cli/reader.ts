// Gemini CLI chats (`~/.gemini/tmp/<project>/chats/*.json`): one `{sessionId, projectHash, messages: [...]}` document.
// Each message becomes engine-shaped lines: a user prompt, or the model's reply with its thoughts and tool calls,
// then the results of those calls.
import type { Entry } from '../../entries';
import { arr, asObject, obj, str, type JsonObject } from '../../json';
import type { DocumentElement } from '../agent';
import { linkedEntries } from '../document';

export function textBlocks(content: unknown): unknown {
  if (typeof content === 'string') return content;
  return (Array.isArray(content) ? (content as unknown[]) : []).map((p) => {
    const o = asObject(p);
    return typeof o?.text === 'string' ? { type: 'text', text: o.text } : { type: 'text', text: JSON.stringify(p) };
  });
}

/** A Gemini CLI message as engine-shaped lines: the reply, then the results of its tool calls. */
function geminiShapes(m: JsonObject): JsonObject[] {
  const base = { uuid: str(m, 'id'), timestamp: str(m, 'timestamp') };
  const type = str(m, 'type');
  if (type === 'user') return [{ ...base, type: 'user', message: { role: 'user', content: textBlocks(m.content) } }];
  if (type !== 'gemini') return [{ type: `gemini-${type ?? 'unknown'}`, timestamp: base.timestamp }];
  const content: JsonObject[] = [];
  const thoughts = (arr(m, 'thoughts') ?? [])
    .map((t) => `${str(asObject(t), 'subject') ?? ''}: ${str(asObject(t), 'description') ?? ''}`)
    .join('\n');
  if (thoughts) content.push({ type: 'thinking', thinking: thoughts });
  const reply = textBlocks(m.content);
  if (typeof reply === 'string' ? reply.trim() : Array.isArray(reply) && reply.length)
    content.push(...(typeof reply === 'string' ? [{ type: 'text', text: reply }] : (reply as JsonObject[])));
  const results: JsonObject[] = [];
  for (const call of arr(m, 'toolCalls') ?? []) {
    const c = asObject(call);
    if (!c) continue;
    const id = str(c, 'id') ?? '';
    content.push({ type: 'tool_use', id, name: str(c, 'name') ?? 'tool', input: c.args ?? {} });
    const output = (arr(c, 'result') ?? []).map(
      (r) =>
        obj(obj(asObject(r), 'functionResponse'), 'response')?.output ??
        obj(obj(asObject(r), 'functionResponse'), 'response') ??
        r,
    );
    results.push({
      type: 'tool_result',
      tool_use_id: id,
      content: output.map((o) => (typeof o === 'string' ? o : JSON.stringify(o))).join('\n'),
      is_error: str(c, 'status') === 'error',
    });
  }
  const t = obj(m, 'tokens');
  const input = typeof t?.input === 'number' ? t.input : 0;
  const cached = typeof t?.cached === 'number' ? Math.min(input, t.cached) : 0;
  const usage = t
    ? {
        input_tokens: input - cached,
        cache_read_input_tokens: cached,
        output_tokens:
          (typeof t.output === 'number' ? t.output : 0) + (typeof t.thoughts === 'number' ? t.thoughts : 0),
      }
    : undefined;
  const shapes: JsonObject[] = [
    {
      ...base,
      type: 'assistant',
      message: { id: base.uuid, role: 'assistant', model: str(m, 'model'), content, usage },
    },
  ];
  if (results.length)
    shapes.push({
      uuid: `${base.uuid ?? ''}:results`,
      timestamp: base.timestamp,
      type: 'user',
      message: { role: 'user', content: results },
    });
  return shapes;
}

/** True when the document is a Gemini CLI chat: an object with a `messages` array. */
export function isGeminiChat(doc: unknown): boolean {
  const o = asObject(doc);
  return o !== undefined && Array.isArray(o.messages);
}

export function geminiMessages(doc: unknown): unknown[] {
  return arr(asObject(doc), 'messages') ?? [];
}

export function geminiEntries(messages: unknown[], elements: readonly DocumentElement[]): Entry[] {
  return linkedEntries(messages, elements, (value) => geminiShapes(asObject(value) ?? {}));
}
