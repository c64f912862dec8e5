// What a compaction plan costs and saves on the next turns: the cache's state (core/cache.ts) priced with and without
// the plan, the summarizer's own cost included. Beside the plan, because it needs one; core/cache.ts prices the next
// turn without a plan and knows nothing of compaction.
import type { Analysis } from '../analysis';
import {
  nextTurnAsIs,
  nextTurnCost,
  cacheState,
  dollars,
  type AsIsOptions,
  type CacheState,
  type NextTurnCost,
  type UnpricedEconomics,
} from '../cache';
import { contextNow } from '../context';
import { priceFor } from '../cost';
import { newestUsageInContext } from '../tokens/usage';
import {
  OFFLINE_SUMMARIZER,
  summarizerCostFor,
  summarizerCostText,
  type SummarizerCost,
  type SummarizerPricing,
} from './summarizerCost';
import type { CompactionPlan } from './types';

/** The figures a user weighs before compacting: the cache now, the next turn's cost both ways, and what was assumed. */
export interface CompactionEconomics extends NextTurnCost {
  priced: true;
  cache: CacheState;
  /** The model the next turn is priced at (the newest response's), and its price-table key. */
  model: string;
  priceKey: string;
  /** The model is not in the price table: another model's rates were used (`PriceMatch.assumed`). */
  assumed: boolean;
  contextTokens: number;
  afterTokens: number;
  /** The summarizer's own cost (`summarizerCostFor`): 0 offline; counted in `compactedUsd`. */
  summarizerUsd: number;
  summarizerCost: SummarizerCost;
}

export type PlanEconomics = CompactionEconomics | UnpricedEconomics;

export interface EconomicsOptions extends AsIsOptions {
  /** The summarizer the compaction would run (priced by `summarizerCostFor`); omitted: offline. */
  summarizer?: SummarizerPricing;
}

/**
 * The economics of the given plan for the analysed session: null when there is nothing to compact; unpriced (with
 * the reason) when the newest response's model is unknown or has no price, so every surface says so.
 */
export function compactionEconomics(
  analysis: Analysis,
  plan: CompactionPlan,
  options: EconomicsOptions,
): PlanEconomics | null {
  if (plan.nothingToDo) return null;
  const cache = cacheState(analysis.index.entries, analysis.rounds, analysis.index.format.id, options.now);
  const newest = newestUsageInContext(analysis.index.entries, analysis.rounds);
  const model = newest?.round.model ?? null;
  const priced = model ? priceFor(model, options.prices) : null;
  if (!model || !priced) return nextTurnAsIs(analysis, options) as UnpricedEconomics;
  const contextTokens = contextNow(analysis.report).tokens;
  const afterTokens = plan.postTokens + plan.overheadTokens;
  const summarizerCost = summarizerCostFor(analysis, plan, options.summarizer ?? OFFLINE_SUMMARIZER, options.prices);
  const cost = nextTurnCost({
    cache,
    contextTokens,
    overheadTokens: plan.overheadTokens,
    afterTokens,
    summarizerUsd: summarizerCost.usd,
    price: priced.price,
  });
  return {
    ...cost,
    priced: true,
    cache,
    model,
    priceKey: priced.key,
    assumed: priced.assumed,
    contextTokens,
    afterTokens,
    summarizerUsd: summarizerCost.usd,
    summarizerCost,
  };
}

/**
 * One line for the CLI and the dialogs: "next turn as it is $0.05 (cache warm until 14:06 UTC), compacted $0.08 …";
 * for an unpriced session, that it is not priced and why.
 */
export function economicsLine(e: PlanEconomics): string {
  if (!e.priced) return `next turn not priced (${e.reason})`;
  const cache =
    e.cache.status === 'unknown' ? `cache state unknown: ${e.cache.reason}` : e.cache.reason.replace(/ \(.*\)$/, '');
  const pays =
    e.breakEvenTurns === null
      ? 'it never pays for itself (the context gets no smaller)'
      : e.breakEvenTurns === 0
        ? 'it pays for itself at once'
        : `it pays for itself after ${e.breakEvenTurns} turn${e.breakEvenTurns === 1 ? '' : 's'}`;
  const horizon =
    e.savedOverHorizonUsd >= 0
      ? `saves ≈ ${dollars(e.savedOverHorizonUsd)} over the next ${e.horizon}`
      : `costs ≈ ${dollars(-e.savedOverHorizonUsd)} more over the next ${e.horizon}`;
  const share = summarizerCostText(e.summarizerCost, dollars);
  const summarizer = share ? `, ${share}` : '';
  const rates = e.assumed ? `${e.model} assumed at ${e.priceKey} rates` : `${e.priceKey} rates`;
  return `next turn as it is ${dollars(e.asIsUsd)} (${cache}), compacted ${dollars(e.compactedUsd)}${summarizer}; ${pays}; ${horizon} (input tokens at ${rates})`;
}
