// A session file's cost, the one figure every surface shows (the Sessions row, the Context Map and the status bar,
// `inspect` and `inspect --json`): the responses the file itself received (not those it copied from another session's
// file, by the marks its agent's module knows), its subagents' and the agent's own compaction requests (cost.ts).
import { DEFAULT_PRICES, sessionCost, type PriceTable, type SessionCost } from './cost';
import type { Entry } from './entries';
import { agentModule } from './formats/registry';
import type { TranscriptIndex } from './transcript';

/** The session's cost from its file's index (`subagentResponses`: its subagents' responses, `readSubagentResponses`). */
export function fileCost(
  index: Pick<TranscriptIndex, 'path' | 'entries' | 'format'>,
  prices: PriceTable = DEFAULT_PRICES,
  subagentResponses: readonly Entry[] = [],
): SessionCost {
  const records = index.format.container === 'jsonl' ? agentModule(index.format.id).records : undefined;
  return sessionCost(index.entries, prices, subagentResponses, records?.ownSession?.(index.path) ?? null);
}
