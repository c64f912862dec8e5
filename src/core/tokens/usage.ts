// Usage truth: the final figures of a response sit on the last line of its message.id
// (earlier lines may hold placeholders); never sum usage across lines of one id.
import type { Entry, Usage } from '../entries';
import type { Round } from '../rounds';

export interface RoundUsage {
  /** input + cache_creation + cache_read of the request that produced this response. */
  contextTokens: number;
  outputTokens: number;
}

export function contextOf(u: Usage): number {
  return u.input + u.cacheCreation + u.cacheRead;
}

/** Usage of a round's response from the last line of its id; null without usage or for synthetic responses. */
export function roundUsage(entries: Entry[], round: Round): RoundUsage | null {
  if (round.usageEntry < 0 || round.synthetic) return null;
  const u = entries[round.usageEntry].usage;
  if (!u) return null;
  const contextTokens = contextOf(u);
  if (contextTokens === 0) return null;
  return { contextTokens, outputTokens: u.output };
}

/**
 * The newest response's usage with the round it belongs to, or null when there is none or it precedes the last
 * compaction (its request is then not what the session carries now). The report's `contextTokens` is this figure.
 */
export function newestUsageInContext(entries: Entry[], rounds: Round[]): { usage: RoundUsage; round: Round } | null {
  for (let i = rounds.length - 1; i >= 0; i--) {
    const usage = roundUsage(entries, rounds[i]);
    if (usage) return rounds[i].inContext ? { usage, round: rounds[i] } : null;
  }
  return null;
}
