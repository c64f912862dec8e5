// The prompt cache and the next turn's cost in words, for the surfaces that hold a session's analysis (the Context
// Map's cost section): with a plan, the plan's economics (core/cache.ts `compactionEconomics`); without one, the
// cache's state and what the next turn's input costs as it is. Pure: no `vscode` import.
import type { Analysis } from '../../core/analysis';
import { cacheState, compactionEconomics, dollars, nextTurnCost } from '../../core/cache';
import type { CompactionPlan } from '../../core/compact/types';
import { contextNow } from '../../core/context';
import { DEFAULT_PRICES, priceFor, type PriceTable } from '../../core/cost';
import { newestUsageInContext } from '../../core/tokens/usage';
import { economicsText } from './planText';

/** "Prompt cache: cache warm for 3 min more (…); the next turn's input as it is ≈ $0.05 (at claude-sonnet-4-6 rates)." */
export function nextTurnText(
  analysis: Analysis,
  plan: CompactionPlan | null,
  now: number,
  prices: PriceTable = DEFAULT_PRICES,
): string {
  if (plan && !plan.nothingToDo) return economicsText(compactionEconomics(analysis, plan, { now, prices }));
  const { entries } = analysis.index;
  const cache = cacheState(entries, analysis.rounds, analysis.index.format.id, now);
  const state = `Prompt cache: ${cache.status === 'unknown' ? `state unknown (${cache.reason})` : cache.reason}`;
  const model = newestUsageInContext(entries, analysis.rounds)?.round.model;
  const priced = model ? priceFor(model, prices) : null;
  if (!priced) return `${state}.`;
  const contextTokens = contextNow(analysis.report).tokens;
  const { asIsUsd } = nextTurnCost({
    cache,
    contextTokens,
    overheadTokens: 0,
    afterTokens: contextTokens,
    summarizerUsd: 0,
    price: priced.price,
  });
  return `${state}; the next turn's input as it is ≈ ${dollars(asIsUsd)} (at ${priced.key} rates).`;
}
