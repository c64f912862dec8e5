// One round as a person reads it: the prompt, the assistant's text, thinking, each tool call
// with its input and each result with its size, re-read from the file by byte offset. Texts
// are returned whole (for exact counting) and cut for display by the caller.
import type { Analysis } from './analysis';
import { loadConversation } from './lines';
import { isObject } from './json';
import { estimateStringTokens } from './tokens/estimate';

export type RoundItemKind =
  'prompt' | 'text' | 'thinking' | 'toolCall' | 'toolResult' | 'attachment' | 'summary' | 'image';

export interface RoundItem {
  kind: RoundItemKind;
  line: number;
  tool: string | null;
  text: string;
  isError: boolean;
  /** Calibrated estimate of the item's tokens. */
  estimate: number;
}

function textOfResult(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return content === undefined || content === null ? '' : JSON.stringify(content);
  const parts: string[] = [];
  for (const b of content) {
    if (isObject(b) && b.type === 'text' && typeof b.text === 'string') parts.push(b.text);
    else if (isObject(b) && b.type === 'image') parts.push('[image]');
    else parts.push(JSON.stringify(b));
  }
  return parts.join('\n');
}

/** The items of round `round` (an index into the analysis' rounds), in file order. */
export async function readRoundItems(analysis: Analysis, round: number): Promise<RoundItem[]> {
  const r = analysis.rounds[round];
  if (!r) throw new Error(`no round ${round} (the transcript has ${analysis.rounds.length})`);
  const calibration = analysis.report.totals.calibrationFactor;
  const entries = analysis.index.entries;
  // Each record as its agent's module reads it (core/conversation.ts).
  const records = await loadConversation(analysis.index.path, analysis.index.format.id, entries, r.entries);
  const toolNames = new Map<string, string>();
  for (const rr of analysis.rounds.slice(Math.max(0, round - 1), round + 1))
    for (const u of rr.toolUses) toolNames.set(u.id, u.name);
  const items: RoundItem[] = [];
  const push = (kind: RoundItemKind, line: number, text: string, tool: string | null = null, isError = false) => {
    const est = kind === 'toolResult' ? 'toolResult' : kind === 'toolCall' ? 'toolUseInput' : 'prose';
    items.push({
      kind,
      line,
      tool,
      text,
      isError,
      estimate: kind === 'image' ? 0 : estimateStringTokens(text, est, calibration),
    });
  };
  for (const idx of r.entries) {
    const e = entries[idx];
    const o = records.get(idx);
    if (!o) continue;
    if (o.kind === 'attachment') {
      if (o.text) push('attachment', e.line, o.text);
      continue;
    }
    if (e.kind !== 'user' && e.kind !== 'assistant') continue;
    const content = o.content;
    const userKind: RoundItemKind = e.isCompactSummary ? 'summary' : e.isMeta ? 'attachment' : 'prompt';
    if (typeof content === 'string') {
      push(e.kind === 'assistant' ? 'text' : userKind, e.line, content);
      continue;
    }
    if (!Array.isArray(content)) continue;
    for (const b of content) {
      if (!isObject(b)) continue;
      switch (b.type) {
        case 'text':
          push(e.kind === 'assistant' ? 'text' : userKind, e.line, typeof b.text === 'string' ? b.text : '');
          break;
        case 'thinking':
          push('thinking', e.line, typeof b.thinking === 'string' ? b.thinking : '');
          break;
        case 'redacted_thinking':
          push('thinking', e.line, '[redacted thinking]');
          break;
        case 'tool_use':
        case 'server_tool_use':
          push('toolCall', e.line, JSON.stringify(b.input ?? {}, null, 2), typeof b.name === 'string' ? b.name : '?');
          break;
        case 'tool_result': {
          const id = typeof b.tool_use_id === 'string' ? b.tool_use_id : '';
          push('toolResult', e.line, textOfResult(b.content), toolNames.get(id) ?? null, b.is_error === true);
          break;
        }
        case 'image':
          push('image', e.line, '[image]');
          break;
        case 'opaque':
          push(userKind, e.line, `[${typeof b.label === 'string' ? b.label : 'opaque content'}: not readable here]`);
          break;
        default:
          push(e.kind === 'assistant' ? 'text' : userKind, e.line, JSON.stringify(b));
      }
    }
  }
  return items;
}
