// Builds the Budget Preview's state (what the webview draws) from an analysis and a plan.
// Pure: no `vscode` import.
import type { Analysis } from '../../core/analysis';
import type { CompactionPlan } from '../../core/compact/types';
import { NO_LIMIT } from '../../core/compact/budget';
import { PROTOCOL_VERSION, type BudgetState, type ChartPoint } from '../../webview/protocol';
import { baseName } from './format';
import { planFigures, planSummary } from './planText';
import { contextNow } from '../../core/context';

/**
 * One point per round: the usage truth where known, and a running calibrated estimate. The
 * estimate of a segment (rounds between compact boundaries) is anchored to the segment's
 * first request usage, which includes what no round carries (system prompt, tool schemas),
 * so the two lines are comparable; without usage it starts at 0.
 */
export function chartPoints(analysis: Analysis, plan: CompactionPlan | null | undefined): ChartPoint[] {
  const marks = new Map(plan ? plan.rounds.map((r) => [r.index, r.action]) : []);
  const rounds = analysis.report.rounds;
  const points: ChartPoint[] = [];
  let start = 0;
  while (start < rounds.length) {
    let end = start + 1;
    while (end < rounds.length && !rounds[end].startsAtBoundary) end++;
    let before = 0;
    let baseline = 0;
    for (let i = start; i < end; i++) {
      const u = rounds[i].usage;
      if (u) {
        baseline = Math.max(0, u.contextTokens - before);
        break;
      }
      before += rounds[i].tokens.estimate;
    }
    let running = baseline;
    for (let i = start; i < end; i++) {
      const r = rounds[i];
      running += r.tokens.estimate;
      points.push({
        round: r.index,
        usage: r.cumulative.source === 'usage' ? r.cumulative.tokens : null,
        estimate: Math.round(running),
        mark: marks.get(r.index) ?? 'keep',
        boundary: r.startsAtBoundary,
        inContext: r.inContext,
      });
    }
    start = end;
  }
  return points;
}

/** The last round that is summarized or dropped (the cut point), or null. */
export function cutAfterRound(plan: CompactionPlan | null | undefined): number | null {
  if (!plan) return null;
  let cut: number | null = null;
  for (const r of plan.rounds) if (r.action !== 'keep' && (cut === null || r.index > cut)) cut = r.index;
  return cut;
}

export function buildBudgetState(file: string, analysis: Analysis, plan: CompactionPlan): BudgetState {
  const f = planFigures(plan);
  const context = contextNow(analysis.report);
  const keepRounds = f.kept;
  return {
    version: PROTOCOL_VERSION,
    file,
    fileName: baseName(file),
    summary: planSummary(plan, context),
    nothingToDo: plan.nothingToDo,
    notes: [...plan.notes],
    counts: {
      kept: f.keptResults,
      replaced: f.replacedResults,
      frozen: f.frozenResults,
      keepRounds,
      summarizeRounds: f.summarized,
      dropRounds: f.dropped,
    },
    chart: {
      points: chartPoints(analysis, plan),
      targetTokens: plan.settings.targetTokens,
      floorTokens: context.overheadKnown && context.overhead > 0 ? Math.round(context.overhead) : null,
      cutAfterRound: cutAfterRound(plan),
      preTokens: Math.round(plan.preTokens),
      postTokens: Math.round(plan.postTokens),
    },
    wireMessages: plan.wireMessages.map((w) => ({
      index: w.index,
      round: w.round,
      lines: [...w.lines],
      beforeChars: w.beforeChars,
      afterChars: w.afterChars,
      limit: w.limit === NO_LIMIT ? null : w.limit,
    })),
    toolResults: plan.toolResults.map((t) => ({
      toolUseId: t.toolUseId,
      toolName: t.toolName ?? '(unknown tool)',
      round: t.round,
      line: t.line,
      wireMessage: t.wireMessage,
      originalChars: t.originalChars,
      decision: t.action,
      preview: t.preview,
      fullTextPath: t.fullTextPath,
      reason: t.reason,
      byUser: t.by === 'user',
    })),
    userRounds: plan.rounds
      .filter((r) => r.by === 'user')
      .map((r) => ({ round: r.index, mark: r.action, label: r.label })),
  };
}
