// The prompt cache and the next turn's cost in words, for the surfaces that hold a session's analysis (the Context
// Map's cost section): with a plan, the plan's economics (core/compact/economics.ts `compactionEconomics`); without one, the
// cache's state and what the next turn's input costs as it is. Pure: no `vscode` import.
import type { Analysis } from '../../core/analysis';
import { asIsLine, nextTurnAsIs } from '../../core/cache';
import { compactionEconomics } from '../../core/compact/economics';
import { OFFLINE_SUMMARIZER, type SummarizerPricing } from '../../core/compact/summarizerCost';
import type { CompactionPlan } from '../../core/compact/types';
import { DEFAULT_PRICES, type PriceTable } from '../../core/cost';
import { economicsText } from './planText';

const PRICES_SETTING = 'the setting agentCompactor.prices';

/** "Prompt cache: cache warm for 3 min more (…); the next turn's input as it is ≈ $0.05 (at claude-sonnet-4-6 rates)." */
export function nextTurnText(
  analysis: Analysis,
  plan: CompactionPlan | null,
  now: number,
  prices: PriceTable = DEFAULT_PRICES,
  summarizer: SummarizerPricing = OFFLINE_SUMMARIZER,
): string {
  const planned = plan
    ? compactionEconomics(analysis, plan, { now, prices, summarizer, pricesHint: PRICES_SETTING })
    : null;
  if (planned) return economicsText(planned);
  const asIs = nextTurnAsIs(analysis, { now, prices, pricesHint: PRICES_SETTING });
  const cache = asIs.cache;
  const state = `Prompt cache: ${cache.status === 'unknown' ? `state unknown (${cache.reason})` : cache.reason}`;
  return `${state}; ${asIsLine(asIs)}.`;
}
