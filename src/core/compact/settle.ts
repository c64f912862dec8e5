// Settling a plan: once its summary is written, the plan's figures with the summary's real size instead of its
// reserve, and the rounds the summarizer could not take (a prompt-too-long retry drops them); once the output is
// written, its measured size and the notes of the run. Each returns a new plan and leaves the one it was given as it
// was (a plan is a value: the one a surface showed is the one it still holds), and settling a summary says what
// changed.
import type { Analysis } from '../analysis';
import { reannouncedAfter, summaryRoundTokens, type PlanDetails } from './planBase';
import type { CompactionPlan, PlannedRound } from './types';

/** What settling a plan with its written summary changed, figure by figure. */
export interface PlanSettlement {
  /** Tokens the plan counted for the summary (its reserve; 0 when nothing is summarized), and the summary's real size. */
  readonly summaryTokens: { readonly planned: number; readonly written: number };
  /** The promised size of the transcript after the compaction (`CompactionPlan.postTokens`), before and after. */
  readonly postTokens: { readonly planned: number; readonly settled: number };
  /** What a resume sends again that no kept line holds (`CompactionPlan.resentTokens`), before and after. */
  readonly resentTokens: { readonly planned: number; readonly settled: number };
  /** Rounds the plan summarized that the summarizer left out (prompt-too-long retries): now dropped. */
  readonly dropped: readonly number[];
  /** Notes the settlement added to the plan (a summary clipped to its reserve). */
  readonly notes: readonly string[];
}

/** The summary as it is written, and what the summarizer left out. */
export interface WrittenSummary {
  readonly summary: string;
  /** Rounds cut from the summary request by prompt-too-long retries (not summarized). */
  readonly dropped: readonly number[];
  /** Why the summary was clipped to its reserve, or null when it was not. */
  readonly clipped: string | null;
}

const DROPPED_REASON = 'cut from the summary request by a prompt-too-long retry (not summarized)';

/**
 * The plan of `details` with its summary written: the rounds the summarizer left out dropped, what a resume sends
 * again and the promised size counted with the summary's real size. A new value; `details` is not changed.
 */
export function settleSummary(
  analysis: Analysis,
  details: PlanDetails,
  written: WrittenSummary,
): { details: PlanDetails; changes: PlanSettlement } {
  const before = details.plan;
  const calibration = details.calibration || 1;
  const dropped = new Set(written.dropped);
  const rounds: readonly PlannedRound[] = dropped.size
    ? before.rounds.map((r, ri) => (dropped.has(ri) ? { ...r, action: 'drop', by: 'plan', reason: DROPPED_REASON } : r))
    : before.rounds;
  const resentTokens = reannouncedAfter(analysis, rounds, calibration, details.announced);
  const summaryTokens = Math.round(summaryRoundTokens(written.summary, calibration));
  const notes = written.clipped === null ? [] : [written.clipped];
  const plan: CompactionPlan = {
    ...before,
    rounds,
    droppedRounds: before.droppedRounds + written.dropped.length,
    summarizedRounds: before.summarizedRounds - written.dropped.length,
    resentTokens,
    postTokens: before.keptTokens + summaryTokens + resentTokens,
    notes: [...before.notes, ...notes],
  };
  const plannedResent = before.resentTokens ?? 0;
  return {
    details: { ...details, plan },
    changes: {
      summaryTokens: { planned: before.postTokens - before.keptTokens - plannedResent, written: summaryTokens },
      postTokens: { planned: before.postTokens, settled: plan.postTokens },
      resentTokens: { planned: plannedResent, settled: resentTokens },
      dropped: [...written.dropped],
      notes,
    },
  };
}

/** What settling changed, in words (empty when nothing did). */
export function settlementText(c: PlanSettlement): string {
  const parts: string[] = [];
  const { planned, written } = c.summaryTokens;
  if (planned !== written)
    parts.push(
      `the summary is about ${written} tokens, ${planned ? `${planned} were planned for it` : 'none planned'}`,
    );
  if (c.dropped.length)
    parts.push(`round${c.dropped.length === 1 ? '' : 's'} ${c.dropped.join(', ')} dropped instead of summarized`);
  if (c.resentTokens.planned !== c.resentTokens.settled)
    parts.push(`what a resume sends again ${c.resentTokens.planned} → ${c.resentTokens.settled} tokens`);
  if (c.postTokens.planned !== c.postTokens.settled)
    parts.push(`about ${c.postTokens.planned} → ${c.postTokens.settled} tokens after compaction`);
  parts.push(...c.notes);
  return parts.join('; ');
}

/** The plan with `notes` added before its own (a re-plan's reason) or after them (what the run learned). */
export function withNotes(
  plan: CompactionPlan,
  notes: { before?: readonly string[]; after?: readonly string[] },
): CompactionPlan {
  return { ...plan, notes: [...(notes.before ?? []), ...plan.notes, ...(notes.after ?? [])] };
}

/** The plan with the size its written output measures (the checked temp file's estimate) and the run's notes. */
export function settleWritten(plan: CompactionPlan, postTokens: number, notes: readonly string[]): CompactionPlan {
  return { ...withNotes(plan, { after: notes }), postTokens };
}
