// Compactions an agent made itself in a session file, as the fidelity measure compares them (bench/fidelity.ts, the
// fidelity tests): the span each summarized, as the summarizers read it (core/conversation.ts), and the text the
// agent kept of it that can be read (its module's `ownSummaries`: formats/claude-code/ownSummaries.ts,
// formats/codex/ownSummaries.ts), beside our offline summary of the same span at no more than that size.
import type { JsonObject } from '../json';
import type { OwnSummary } from '../formats/agent';
import { recordAgentOf } from '../formats/registry';
import { measureFidelity, spanFacts, type FidelityReport } from './fidelity';
import { extractiveSummary, shapeForExtractive } from './summarize/extractive';
import { SUMMARY_PREFIX } from './summarize/prompt';

/** The compactions the agent made itself in a session file's parsed lines (null for a line that did not parse). */
export function agentCompactions(lines: (JsonObject | null)[]): OwnSummary[] {
  const first = lines.find((l) => l !== null);
  return first ? (recordAgentOf(first).ownSummaries?.(lines) ?? []) : [];
}

/** The agent's own summary of a compaction and our offline one of the same span, no longer (ours with its prefix), measured alike. */
export interface SummaryComparison {
  agent: FidelityReport;
  ours: FidelityReport;
  /** Characters of the agent's readable summary, and of ours as it would be written (SUMMARY_PREFIX included). */
  // (ours is limited to c.size.chars, or to agentChars when asked for the readable part's size)
  agentChars: number;
  oursChars: number;
  oursText: string;
}

/**
 * `share`: ours limited to that share of the agent's size (1: the same size); `size`: which size, "its size" (the
 * default, OwnSummary.size) or the readable part's (the stricter bound where the agent's summary cannot be read).
 */
export function offlineAgainstAgent(
  c: OwnSummary,
  share = 1,
  size: 'its size' | 'readable part' = 'its size',
): SummaryComparison {
  const facts = spanFacts(c.span);
  const chars = size === 'its size' ? c.size.chars : c.summary.length;
  // Shaped as compact.ts loads summarized lines for the offline summary.
  const oursText = extractiveSummary({
    records: c.span.map((o) => shapeForExtractive(o)),
    maxChars: Math.floor(chars * share) - SUMMARY_PREFIX.length,
  });
  return {
    agent: measureFidelity(facts, c.summary),
    ours: measureFidelity(facts, oursText),
    agentChars: c.summary.length,
    oursChars: SUMMARY_PREFIX.length + oursText.length,
    oursText,
  };
}
