// Tool results whose call is gone from what resume loads (the call's line was never written, or it sits before the
// compact boundary resume reads from). The API rejects a tool_result without its tool_use, so such a block cannot be
// sent as it is; dropping the line would lose what the tool returned. Repair turns each such block into a plain text
// block that says what it was, followed by the result's text (images and documents kept as their own blocks), placed
// after the line's remaining tool results (the API wants those first). The line's other fields stay as they were.
import { blockInfo, type BlockInfo, type Entry } from './entries';

/** What the text block of a converted result starts with: the transcript says, in the conversation, what it was. */
export function orphanHeader(toolId: string, isError: boolean): string {
  return `[Agent Compactor repair: this was the ${isError ? 'error ' : ''}result of tool call ${toolId}, whose call is no longer in the transcript, so it is kept as plain text. What the tool returned follows.]`;
}

type Block = Record<string, unknown>;

/** The blocks that replace one tool_result block. */
function replacement(b: Block): Block[] {
  const id = typeof b.tool_use_id === 'string' ? b.tool_use_id : '(no id)';
  const parts: string[] = [orphanHeader(id, b.is_error === true)];
  const kept: Block[] = [];
  if (typeof b.content === 'string') parts.push(b.content);
  else if (Array.isArray(b.content)) {
    for (const c of b.content as unknown[]) {
      if (!c || typeof c !== 'object') continue;
      const inner = c as Block;
      if (inner.type === 'text' && typeof inner.text === 'string') parts.push(inner.text);
      else if (inner.type === 'image' || inner.type === 'document') kept.push(inner);
      else parts.push(JSON.stringify(inner));
    }
  } else if (b.content !== undefined && b.content !== null) parts.push(JSON.stringify(b.content));
  return [{ type: 'text', text: parts.join('\n') }, ...kept];
}

const isOrphan = (b: unknown, ids: ReadonlySet<string>): b is Block =>
  !!b && typeof b === 'object' && (b as Block).type === 'tool_result' && ids.has(String((b as Block).tool_use_id));

/** `content` with the tool_result blocks answering `ids` turned into text, after the remaining results. */
export function convertContent(content: unknown[], ids: ReadonlySet<string>): unknown[] {
  const rest = content.filter((b) => !isOrphan(b, ids));
  const converted = content.filter((b): b is Block => isOrphan(b, ids)).flatMap(replacement);
  return [...rest, ...converted];
}

/**
 * One JSON line with its orphan results converted (and its parentUuid set to `parent` when given); null when the line
 * is not a user message with such blocks. Every other field keeps its value and place.
 */
export function convertLine(text: string, ids: ReadonlySet<string>, parent?: string): string | null {
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return null;
  }
  const m = o.message as { content?: unknown } | undefined;
  if (o.type !== 'user' || !m || !Array.isArray(m.content) || !m.content.some((b) => isOrphan(b, ids))) return null;
  m.content = convertContent(m.content, ids);
  if (parent !== undefined) o.parentUuid = parent;
  return JSON.stringify(o);
}

/** The digest of an entry after `convertLine` (block sizes as the reader would compute them). */
export function convertEntry(e: Entry, ids: ReadonlySet<string>): Entry {
  const rest: BlockInfo[] = [];
  const converted: BlockInfo[] = [];
  for (const b of e.blocks) {
    if (b.type !== 'tool_result' || !b.toolId || !ids.has(b.toolId)) {
      rest.push(b);
      continue;
    }
    const t = blockInfo({ type: 'text', text: orphanHeader(b.toolId, b.isError === true) });
    t.chars += b.chars + 1;
    t.tokens = (t.tokens ?? 0) + (b.tokens ?? 0);
    converted.push(t);
    for (let k = 0; k < (b.images ?? 0); k++) converted.push(blockInfo({ type: 'image' }));
  }
  return { ...e, blocks: [...rest, ...converted] };
}
