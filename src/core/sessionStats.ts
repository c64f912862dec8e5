// Rounds and cost of one session, for the Sessions list: the one figure there that needs the whole file. Read with the
// streaming indexer (yielding to the event loop as it goes, so a 100 MB file never holds up its caller's thread) and
// priced like the Rounds tree prices it (cost.ts).
import { buildChain } from './chain';
import { cacheState, expiredResumeCost, type CacheState, type ExpiredResume } from './cache';
import { DEFAULT_SETTINGS } from './compact/types';
import { DEFAULT_PRICES, priceFor, sessionCost, type PriceTable, type SessionCost } from './cost';
import { buildRounds } from './rounds';
import { assertTranscript, indexTranscript } from './transcript';
import { newestUsageInContext } from './tokens/usage';

export interface SessionStats {
  /** Rounds of the main conversation (history and active context), as the Rounds tree lists them. */
  rounds: number;
  /** Every response of the file priced once at `priceDate`'s list prices (responses of unpriced models count 0). */
  costUsd: number;
  unpriced: string[];
  /** Models priced at another model's rates (not in the table). */
  assumed: SessionCost['assumed'];
  /** The agent's own figure (its `cost-state` records), or null when it records none. */
  agent: SessionCost['agent'];
  priceDate: string;
  /**
   * The newest request's context (input + cache writes + cache reads) and model, as the Rounds tree finds them: the
   * list's quick read of the file's end leaves it unknown when that request lies far back, and this corrects it.
   */
  contextTokens: number | null;
  model: string | null;
  /**
   * The prompt cache as the file left it (read at `now`; whether it has expired since is the caller's to say from
   * `cache.expiresAt`), and what resuming costs while it is warm and after it expires, null when the model has no price.
   */
  cache: CacheState;
  expiredResume: ExpiredResume | null;
  /** The file as it was read: the figures hold while its size and mtime are these. */
  size: number;
  mtimeMs: number;
}

/** Lines read between yields to the event loop. */
const YIELD_EVERY = 2000;

/**
 * `targetTokens`: the user's target (agentCompactor.targetTokens), what "compacted first" is estimated at, since
 * planning every listed session in the background is too costly.
 */
export async function sessionStats(
  file: string,
  prices: PriceTable = DEFAULT_PRICES,
  now = Date.now(),
  targetTokens = DEFAULT_SETTINGS.targetTokens,
): Promise<SessionStats> {
  const index = await indexTranscript(file, { yieldEvery: YIELD_EVERY });
  assertTranscript(index);
  const rounds = buildRounds(index.entries, buildChain(index.entries));
  const cost = sessionCost(index.entries, prices);
  const newest = newestUsageInContext(index.entries, rounds);
  const cache = cacheState(index.entries, rounds, index.format.id, now);
  const contextTokens = newest?.usage.contextTokens ?? null;
  const priced = newest?.round.model ? priceFor(newest.round.model, prices) : null;
  const expiredResume =
    priced && contextTokens !== null ? expiredResumeCost(cache, contextTokens, priced.price, targetTokens) : null;
  return {
    rounds: rounds.length,
    costUsd: cost.total.usd,
    unpriced: cost.unpriced,
    assumed: cost.assumed,
    agent: cost.agent,
    priceDate: cost.priceDate,
    contextTokens,
    model: newest?.round.model ?? null,
    cache,
    expiredResume,
    size: index.size,
    mtimeMs: index.mtimeMs,
  };
}
