// The compaction summary that opens a transcript's active context, as Claude Code would send it first.
import { loadEntryObjects } from '../../src/core/lines';
import { messageContent } from '../../src/core/json';
import { inspectFile } from '../../src/core/inspect';

/** The text of the compaction summary that opens the active context, or null when it does not open with one. */
export async function activeSummary(file: string): Promise<string | null> {
  const a = await inspectFile(file, { subagents: false });
  const entries = a.index.entries;
  const first = a.chain.main.slice(a.chain.activeStart).find((i) => entries[i].kind === 'user');
  if (first === undefined || !entries[first].isCompactSummary) return null;
  const obj = (await loadEntryObjects(file, entries, [first])).get(first);
  const c = messageContent(obj);
  if (typeof c === 'string') return c;
  return Array.isArray(c) ? c.map((b: any) => (b?.type === 'text' ? b.text : '')).join('\n') : null;
}
