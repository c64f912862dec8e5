// The smallest target a compaction can reach: what every request carries (system prompt and tools), the newest
// response (always kept verbatim, after budgeting its tool results), the smallest summary and what a resume sends
// again; or the context as it is, when that is smaller (a target it already fits needs no compaction).
// The one floor every surface shows: the Preview input's message, the Context Map's floor line and its drag minimum.
import type { Analysis } from '../analysis';
import type { AgentNow } from '../agentNow';
import type { BudgetState } from './state';
import type { UserDecisions } from './decisions';
import { planDetails, summaryFloorTokens } from './plan';
import { resendReserveOf } from './planBase';
import type { CompactSettings } from '../compactSettings';

export async function smallestReachableTarget(
  analysis: Analysis,
  settings?: Partial<CompactSettings>,
  state?: BudgetState,
  decisions?: UserDecisions,
  agentNow?: AgentNow | null,
): Promise<number> {
  const { plan, calibration, announced } = await planDetails(
    analysis,
    { ...settings, targetTokens: 1 },
    state,
    decisions,
    agentNow,
  );
  // Summarizing, the plan keeps room for what a resume sends again (planBase.ts resendReserveOf).
  const summarized =
    plan.keptTokens + summaryFloorTokens(calibration || 1) + resendReserveOf(analysis, calibration || 1, announced);
  const byRounds = Math.min(plan.preTokens, summarized) + plan.overheadTokens;
  // A target at or above the context now plans nothing (plan.ts): reached as it is, whatever the rounds' estimates.
  return Math.min(byRounds, analysis.report.totals.currentContextTokens);
}
