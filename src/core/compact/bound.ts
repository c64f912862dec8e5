// What bounds a plan's result: the target itself, the keep-recent limit, or a floor (the system prompt and tools, the
// newest round, the rounds the user pinned). One explanation for every surface that shows a plan (the CLI's plan,
// the Rounds view's plan node, the confirmation dialog, the Context Map), so a result far from the target is never
// left unexplained.
import type { CompactionPlan, PlannedRound } from './types';

export type PlanBoundKind =
  /**
   * Nothing to compact: the target is at or above the context (or the transcript fits the target's room). A plan for
   * a target at or above the context that still changes something (over-long tool results become previews, what the
   * agent attached is not sent again) is this kind too: it summarizes nothing, and `stillChanges` says the rest.
   */
  | 'nothing-to-do'
  /** The result reaches the target as closely as whole rounds allow. */
  | 'target'
  /** Well below the target: the kept-verbatim part stops at keepRecentTokens although older rounds would fit. */
  | 'keep-recent'
  /** Above the target: the system prompt and tools alone are at or above it. */
  | 'overhead'
  /** Above the target: the rounds the user chose to keep are more than the target leaves room for. */
  | 'pinned'
  /** Above the target: the newest round (always kept) with the system prompt, tools and summary is more than it. */
  | 'newest-round'
  /** Above the target although its floor is not: the parts of the result, named with their sizes, say by how much. */
  | 'parts';

export interface PlanBound {
  kind: PlanBoundKind;
  /** The whole context after the plan (transcript, summary, system prompt and tools); the context now when nothing is to do. */
  resultTokens: number;
  targetTokens: number;
  /** The context now (the plan's starting figure). */
  contextTokens: number;
  /**
   * About the least any target can make of this context: the system prompt and tools, the newest round and the
   * rounds the user pinned (as budgeted), and the summary's room and what a resume sends again when older rounds
   * would be summarized.
   */
  floorTokens: number;
  /** One sentence for the user. */
  text: string;
  /** The bound alone, a clause to follow "above/below the target:" ('' when the target itself bounds the result). */
  reason: string;
  /**
   * Nothing to compact, yet a compaction would still change the context (the result differs from the context now):
   * what it would change, with the tokens named ("2 over-long tool results would become previews (~8.2k less)");
   * absent otherwise.
   */
  stillChanges?: string;
}

function k(n: number): string {
  const r = Math.round(n);
  return r >= 1000 ? `${(r / 1000).toFixed(r >= 10_000 ? 0 : 1)}k` : String(r);
}

function keptSize(r: PlannedRound): number {
  return r.action === 'keep' ? Math.min(r.tokens, r.tokensAfter) || r.tokensAfter : 0;
}

/** The plan's floor: what stays whatever the target (see PlanBound.floorTokens). */
export function planFloor(plan: CompactionPlan): number {
  const active = plan.rounds.filter((r) => r.inContext);
  const newest = active[active.length - 1];
  const pinned = active.filter((r) => r !== newest && r.by === 'user' && r.action === 'keep');
  const summarizing = active.length > 1 + pinned.length;
  const summary = summarizing ? plan.settings.summaryTokens + (plan.resentTokens ?? 0) : 0;
  const newestTokens = newest ? (newest.action === 'keep' ? keptSize(newest) : newest.tokens) : 0;
  return Math.round(plan.overheadTokens + newestTokens + pinned.reduce((s, r) => s + keptSize(r), 0) + summary);
}

/** What bounds the plan's result, in one sentence (see PlanBoundKind). */
export function planBound(plan: CompactionPlan): PlanBound {
  const target = plan.settings.targetTokens;
  const context = plan.context.tokens;
  const floorTokens = Math.min(planFloor(plan), Math.max(context, plan.overheadTokens));
  const base = { targetTokens: target, contextTokens: context, floorTokens };
  const result = Math.round(plan.postTokens + plan.overheadTokens);
  if (!plan.nothingToDo && target >= context && plan.summarizedRounds === 0 && plan.droppedRounds === 0) {
    // The target asks for nothing; the plan still budgets over-long tool results, and a resume does not send what the
    // agent attached. Said as that, not as a shrink of "0 rounds" to a figure nobody explains (issue 37, item 5).
    const reason = `the context now (${Math.round(context).toLocaleString('en-US')}) is within it`;
    const stillChanges = stillChangesOf(plan);
    return {
      ...base,
      kind: 'nothing-to-do',
      resultTokens: result,
      reason,
      ...(stillChanges ? { stillChanges } : {}),
      text: `nothing needs compacting with your ${k(target)} target: ${reason}; compacting anyway would make it ~${k(result)}${stillChanges ? `: ${stillChanges}` : ''}`,
    };
  }
  if (plan.nothingToDo) {
    const reason =
      target >= context
        ? `the target is at or above the context now (${k(context)})`
        : `the transcript (~${k(plan.preTokens)}) already fits the target beside ~${k(plan.overheadTokens)} of system prompt and tools`;
    return {
      ...base,
      kind: 'nothing-to-do',
      resultTokens: context,
      reason,
      text: `nothing to compact with your ${k(target)} target: ${reason}`,
    };
  }
  const active = plan.rounds.filter((r) => r.inContext);
  const above = (kind: PlanBoundKind, reason: string): PlanBound => ({
    ...base,
    kind,
    resultTokens: result,
    reason,
    text: `result ${k(result)}, above your ${k(target)} target: ${reason}`,
  });
  if (result > target) {
    if (plan.overheadTokens >= target) {
      return above('overhead', `the system prompt and tools alone take ~${k(plan.overheadTokens)}`);
    }
    const pinned = active.filter((r) => r.by === 'user' && r.action === 'keep');
    const pinnedTokens = pinned.reduce((s, r) => s + keptSize(r), 0);
    if (pinned.length && plan.overheadTokens + pinnedTokens > target - plan.settings.summaryTokens) {
      return above(
        'pinned',
        `the ${pinned.length} round${pinned.length === 1 ? '' : 's'} you chose to keep take ~${k(pinnedTokens)}`,
      );
    }
    if (floorTokens > target)
      return above(
        'newest-round',
        `the least this context can become is ~${k(floorTokens)} (system prompt and tools, the newest round, always kept, and the summary)`,
      );
    // The floor is within the target, so it explains nothing: say what the result is made of, and by how much it is over.
    const resent = plan.resentTokens ?? 0;
    const summary = Math.max(0, plan.postTokens - plan.keptTokens - resent);
    const parts = [
      `system prompt and tools ~${k(plan.overheadTokens)}`,
      `kept verbatim ~${k(plan.keptTokens)}`,
      summary ? `summary ~${k(summary)}` : '',
      resent ? `sent again on resume ~${k(resent)}` : '',
    ].filter(Boolean);
    return above('parts', `${(result - target).toLocaleString('en-US')} tokens over, made of ${parts.join(' + ')}`);
  }
  // Under the target: would the next older round the plan summarized have fitted the target, but not the keep-recent
  // limit? Then that limit, not the target, stopped the kept part (plan.ts tailCandidate grows the tail only within
  // keepRecentTokens). One that fitted both was left out by the room a summarizing plan keeps for what a resume sends
  // again (its most), which is the target's doing. The limit is measured as the planner grows the tail: by the rounds'
  // sizes before the exact budget (a kept round's size after it can be smaller, and then a tail the limit stopped
  // looked as if it had room left: 37.2k kept + a 1.9k round under 40k, for a tail the planner sized at over 40k).
  const nextOlder = [...active].reverse().find((r) => r.action === 'summarize' && r.by === 'plan');
  // (Rounds the user pinned do not count against it: steer.ts grows the rest of the tail within it beside them.)
  const tailSized = active.reduce((s, r) => s + (r.action === 'keep' && r.by === 'plan' ? r.tokens : 0), 0);
  if (
    nextOlder &&
    result + nextOlder.tokens <= target &&
    tailSized + nextOlder.tokens > plan.settings.keepRecentTokens
  ) {
    const reason = `kept verbatim capped at ${k(plan.settings.keepRecentTokens)} by Keep Recent Tokens`;
    return {
      ...base,
      kind: 'keep-recent',
      resultTokens: result,
      reason,
      text: `${reason}: result ${k(result)}, below your ${k(target)} target (raise Keep Recent Tokens to keep more)`,
    };
  }
  return {
    ...base,
    kind: 'target',
    resultTokens: result,
    reason: '',
    text: `result ${k(result)}, within your ${k(target)} target`,
  };
}

/**
 * What a plan that summarizes nothing would still change, with the tokens named: the tool results it replaces by
 * previews, and what the agent attached after its own compaction, which a resume starts without.
 */
function stillChangesOf(plan: CompactionPlan): string {
  const replaced = plan.toolResults.filter((t) => t.action === 'replaced').length;
  const saved = Math.round(plan.preTokens - plan.keptTokens);
  const attached = plan.context.attached;
  return [
    replaced
      ? `${replaced} over-long tool result${replaced === 1 ? '' : 's'} would become previews${saved > 0 ? ` (~${k(saved)} less)` : ''}`
      : '',
    attached > 0 ? `a resume starts without the ~${k(attached)} the agent attached after its compaction` : '',
  ]
    .filter(Boolean)
    .join('; ');
}
