// The compactions Claude Code made itself in a session file, as the fidelity measure compares them
// (compact/agentSummaries.ts): a `compact_boundary` line; the span is the lines before it back to the previous
// boundary (the earlier summary among them), its summary the `isCompactSummary` line after it.
import { recordText, type ConversationRecord } from '../../conversation';
import type { JsonObject } from '../../json';
import type { OwnSummary } from '../agent';
import { claudeConversationRecord } from './message';

export function claudeOwnSummaries(lines: (JsonObject | null)[]): OwnSummary[] {
  const out: OwnSummary[] = [];
  let from = 0;
  lines.forEach((o, i) => {
    if (o?.type !== 'system' || o.subtype !== 'compact_boundary') return;
    const after = lines.slice(i + 1).find((l): l is JsonObject => l?.type === 'user' && l.isCompactSummary === true);
    const summary = recordText(after && claudeConversationRecord(after));
    const span = lines
      .slice(from, i)
      .map((l) => l && claudeConversationRecord(l))
      .filter((r): r is ConversationRecord => r !== null);
    if (summary)
      out.push({
        agent: 'claude-code',
        boundaryLine: i + 1,
        span,
        summary,
        summaryKind: 'text',
        size: { chars: summary.length, basis: 'readable' },
      });
    from = i + 1;
  });
  return out;
}
