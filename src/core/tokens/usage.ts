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
