// Rounds and cost of one session, for the Sessions list: the one figure there that needs the whole file. Read with the
// streaming indexer (yielding to the event loop as it goes, so a 100 MB file never holds up its caller's thread) and
// priced like the Rounds tree prices it (cost.ts).
import { buildChain } from './chain';
import { cacheState, expiredResumeCost, type CacheState, type ExpiredResume } from './cache';
import { DEFAULT_SETTINGS } from './compact/types';
import { DEFAULT_PRICES, priceFor, sessionCost, type PriceTable, type SessionCost } from './cost';
import { buildRounds } from './rounds';
import { readSessionIndex } from './inspect';
import { agentModule } from './formats/registry';
import { limitFacts } from './limits';
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
  /** The window of that model as the session's agent knows it (its module's limits); null when it does not say. */
  contextWindow: number | null;
  /**
   * The prompt cache as the file left it (read at `now`; whether it has expired since is the caller's to say from
   * `cache.expiresAt`), and what resuming after it expires costs, null when the model has no price.
   */
  cache: CacheState;
  expiredResume: ExpiredResume | null;
  /** The file as it was read: the figures hold while its size and mtime are these. */
  size: number;
  mtimeMs: number;
}

/** Lines read between yields to the event loop. */
const YIELD_EVERY = 2000;

export async function sessionStats(
  file: string,
  prices: PriceTable = DEFAULT_PRICES,
  now = Date.now(),
): Promise<SessionStats> {
  // Any agent's session: JSON lines, or one JSON document (Gemini CLI, Cline).
  const index = await readSessionIndex(file, { yieldEvery: YIELD_EVERY });
  const rounds = buildRounds(index.entries, buildChain(index.entries));
  const cost = sessionCost(index.entries, prices);
  const newest = newestUsageInContext(index.entries, rounds);
  const cache = cacheState(index.entries, rounds, index.format.id, now);
  const contextTokens = newest?.usage.contextTokens ?? null;
  const priced = newest?.round.model ? priceFor(newest.round.model, prices) : null;
  // Planning every listed session in the background is too costly; the default target stands for the plan's result.
  const expiredResume =
    priced && contextTokens !== null
      ? expiredResumeCost(cache, contextTokens, priced.price, DEFAULT_SETTINGS.targetTokens)
      : null;
  return {
    rounds: rounds.length,
    costUsd: cost.total.usd,
    unpriced: cost.unpriced,
    assumed: cost.assumed,
    agent: cost.agent,
    priceDate: cost.priceDate,
    contextTokens,
    model: newest?.round.model ?? null,
    contextWindow: agentModule(index.format.id).limits(
      newest?.round.model ?? null,
      limitFacts(index.format.id, index.entries).recordedWindow,
    ).window,
    cache,
    expiredResume,
    size: index.size,
    mtimeMs: index.mtimeMs,
  };
}
