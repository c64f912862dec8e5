// The plan when the user has decided some rounds (decisions.ts): every decision is honoured,
// the rounds left to the plan are filled toward the target (newest first, as the automatic plan
// keeps a recent tail), and where a decision would make the request invalid (a tool call and its
// result split between a kept and an unkept round) whole rounds keep their pairs together and the
// plan says which decision gave way and what it did instead.
import { applyBudget, wireMessages } from './budget';
import { resolveRounds, type RoundChoice, type UserDecisions } from './decisions';
import {
  adjusted,
  budgetedRoundSize,
  loadResultTexts,
  planDetailsOf,
  roundTokens,
  summaryFloorTokens,
  type PlanBase,
  type PlanDetails,
} from './planBase';
import type { DecidedBy, DecisionConflict, PlannedRound, RoundAction } from './types';

interface Fate {
  action: RoundAction;
  by: DecidedBy;
  reason: string;
}

const VERB: Record<RoundChoice, string> = { keep: 'keep', drop: 'drop', summarize: 'summarize' };

/**
 * Pairs of rounds that must share a fate: a tool call in `use`, its result in `result` (a later round). In a
 * transcript the API accepted, a result travels in the user message right after its call, which rounds.ts puts in
 * the same round; a pair spans rounds only where the agent wrote something between them. A result whose id is also
 * called in its own round belongs to that call (ids can repeat across rounds).
 */
function crossRoundPairs(base: PlanBase): { use: number; result: number; id: string }[] {
  const { rounds } = base.analysis;
  const lastUse = new Map<string, number>();
  const pairs: { use: number; result: number; id: string }[] = [];
  for (const ri of base.active) {
    const own = new Set(rounds[ri].toolUses.map((u) => u.id));
    for (const t of rounds[ri].toolResults) {
      const u = lastUse.get(t.id);
      if (!own.has(t.id) && u !== undefined) pairs.push({ use: u, result: ri, id: t.id });
    }
    for (const id of own) lastUse.set(id, ri);
  }
  return pairs;
}

export async function planSteered(base: PlanBase, decisions: UserDecisions): Promise<PlanDetails> {
  const {
    analysis,
    settings,
    state,
    calibration,
    active,
    sizes,
    preTokens,
    overheadTokens,
    messageTarget,
    toolDir,
    clock,
  } = base;
  const { rounds } = analysis;
  const entries = analysis.index.entries;
  const notes = [...base.notes];
  const conflicts: DecisionConflict[] = [];
  const { choices, ignored } = resolveRounds(decisions, analysis);
  notes.push(...ignored);

  const fate = new Map<number, Fate>();
  for (const [ri, c] of choices) {
    const r = rounds[ri];
    if (r.startsAtBoundary && c.choice !== 'summarize') {
      // The writer never copies an earlier summary line as a kept round, and dropping it would lose the only record
      // of everything before it: it is folded into the new summary, quoted whole.
      conflicts.push({
        decision: `${VERB[c.choice]} round ${ri}`,
        round: ri,
        resolution: 'round holds an earlier compaction summary: it is quoted whole in the new summary instead',
      });
      fate.set(ri, {
        action: 'summarize',
        by: 'plan',
        reason: 'earlier compaction summary, quoted whole in the new summary',
      });
      continue;
    }
    fate.set(ri, { action: c.choice, by: 'user', reason: c.why });
  }

  // Rounds left to the plan: all kept when the context is under the target and nothing is summarized or dropped by
  // choice; otherwise the newest, within keepRecentTokens and the room the pinned rounds and the summary leave. Sizes
  // here count over-long results as previews (as the automatic plan grows its tail); the figures below are exact.
  const chosenAway = [...fate.values()].some((f) => f.action !== 'keep');
  const underTarget = preTokens <= messageTarget;
  const open = active.filter((ri) => !fate.has(ri));
  if (underTarget && !chosenAway) {
    for (const ri of open)
      fate.set(ri, { action: 'keep', by: 'plan', reason: 'the context is already under the target' });
  } else {
    const est = (ri: number) => budgetedRoundSize(base, ri);
    let pinned = 0;
    for (const ri of active) if (fate.get(ri)?.action === 'keep') pinned += est(ri);
    const room = underTarget ? Infinity : messageTarget - base.resendReserve - settings.summaryTokens - pinned;
    const recent = underTarget ? Infinity : settings.keepRecentTokens;
    let acc = 0;
    let open_ = true;
    for (let k = open.length - 1; k >= 0; k--) {
      const ri = open[k];
      const t = est(ri);
      const newest = ri === active[active.length - 1];
      if (open_ && !rounds[ri].startsAtBoundary && (newest || (acc + t <= room && acc + t <= recent))) {
        acc += t;
        fate.set(ri, {
          action: 'keep',
          by: 'plan',
          reason: newest ? 'newest response, kept verbatim' : 'recent work kept verbatim',
        });
      } else {
        open_ = false;
        fate.set(ri, {
          action: 'summarize',
          by: 'plan',
          reason: rounds[ri].startsAtBoundary
            ? 'earlier compaction summary, folded into the new summary'
            : 'older than the kept recent rounds',
        });
      }
      if (clock.due()) await clock.pause();
    }
  }
  keepPairsTogether(base, fate, conflicts);
  foldUnansweredCalls(base, fate, conflicts);

  // An earlier summary kept as a round only when nothing else changes (the writer then carries it over verbatim).
  const summarizing = active.some((ri) => fate.get(ri)!.action !== 'keep');
  if (summarizing) {
    for (const ri of active) {
      if (rounds[ri].startsAtBoundary && fate.get(ri)!.action === 'keep')
        fate.set(ri, {
          action: 'summarize',
          by: 'plan',
          reason: 'earlier compaction summary, folded into the new summary',
        });
    }
  }

  const kept = active.filter((ri) => fate.get(ri)!.action === 'keep');
  // Tool-result texts of the kept rounds only (read from the file: the costly part of planning).
  const texts = await loadResultTexts(analysis, kept, clock);
  const ordered: number[] = [];
  const roundOfEntry = new Map<number, number>();
  for (const ri of kept) {
    for (const e of rounds[ri].entries) {
      ordered.push(e);
      roundOfEntry.set(e, ri);
    }
  }
  const budget = applyBudget(
    entries,
    wireMessages(entries, ordered),
    texts,
    settings,
    state,
    toolDir,
    roundOfEntry,
    decisions.toolResults,
  );
  const stripThinking = new Set<number>(summarizing ? kept.slice(0, -1) : []);
  const after = new Map<number, number>();
  let keptTokens = 0;
  for (const ri of kept) {
    const t = roundTokens(rounds[ri], adjusted(rounds[ri], budget, stripThinking.has(ri)), calibration);
    after.set(ri, t);
    keptTokens += t;
  }
  const pinnedRounds = kept.filter((ri) => fate.get(ri)!.by === 'user');
  if (summarizing && keptTokens + summaryFloorTokens(calibration) + base.resendReserve > messageTarget) {
    const pinnedTokens = pinnedRounds.reduce((s, ri) => s + after.get(ri)!, 0);
    const who = pinnedRounds.length
      ? `the rounds you chose to keep (${listRounds(pinnedRounds)}) take about ${pinnedTokens} tokens and the`
      : 'the';
    notes.push(
      `${who} kept rounds total about ${keptTokens} tokens after budgeting: the result cannot reach the ${settings.targetTokens}-token target (${messageTarget} for the transcript beside about ${overheadTokens} of system prompt and tools); every choice is still followed`,
    );
  }

  const planned: PlannedRound[] = [];
  for (const r of rounds) {
    const f = fate.get(r.index);
    const tokens = sizes.get(r.index)!;
    if (!r.inContext || !f) {
      planned.push({
        index: r.index,
        firstLine: r.firstLine,
        lastLine: r.lastLine,
        label: r.label,
        tokens,
        inContext: r.inContext,
        action: 'keep',
        by: 'plan',
        reason: 'history before an earlier compact boundary; not in the active context, left untouched',
        tokensAfter: 0,
      });
      continue;
    }
    const reason = stripThinking.has(r.index) ? `${f.reason} (stale thinking stripped)` : f.reason;
    planned.push({
      index: r.index,
      firstLine: r.firstLine,
      lastLine: r.lastLine,
      label: r.label,
      tokens,
      inContext: true,
      action: f.action,
      by: f.by,
      reason,
      tokensAfter: after.get(r.index) ?? 0,
    });
  }
  const firstUnkept = active.find((ri) => fate.get(ri)!.action !== 'keep');
  return planDetailsOf(base, {
    rounds: planned,
    budget,
    keptTokens,
    summarizing,
    nothingToDo: !summarizing && [...budget.replacements.values()].every((r) => r.original === r.preview),
    droppedRounds: planned.filter((p) => p.action === 'drop').length,
    notes,
    conflicts,
    tailStart: firstUnkept ?? active[0] ?? 0,
    kept,
    stripThinking,
  });
}

/**
 * A tool call and its result in different rounds must both be kept or both not. Which one gives way: a round the
 * plan decided follows a round the user decided; between two user decisions, keeping wins (dropping content the
 * user pinned would break their other choice, keeping more only costs tokens); between two plan decisions, the
 * unkept one is kept. Repeated until stable (chains of such pairs are rare and short).
 */
function keepPairsTogether(base: PlanBase, fate: Map<number, Fate>, conflicts: DecisionConflict[]): void {
  const pairs = crossRoundPairs(base);
  for (let changed = true, guard = 0; changed && guard <= pairs.length; guard++) {
    changed = false;
    for (const { use, result, id } of pairs) {
      const a = fate.get(use)!;
      const b = fate.get(result)!;
      if ((a.action === 'keep') === (b.action === 'keep')) continue;
      const [kept, unkept, keptRound, unkeptRound] = a.action === 'keep' ? [a, b, use, result] : [b, a, result, use];
      const link = `the tool call ${id} in round ${use} is answered in round ${result}`;
      if (kept.by === 'plan' && unkept.by === 'user') {
        fate.set(keptRound, {
          action: unkept.action,
          by: 'plan',
          reason: `${unkept.action === 'drop' ? 'dropped' : 'summarized'} with round ${unkeptRound}, which you chose to ${unkept.action}: ${link}`,
        });
      } else {
        if (unkept.by === 'user') {
          conflicts.push({
            decision: `${unkept.action} round ${unkeptRound}`,
            round: unkeptRound,
            resolution: `kept verbatim instead: ${link}, and round ${keptRound} is kept${kept.by === 'user' ? ' by your choice' : ''}; a request must carry a tool call and its result together`,
          });
        }
        fate.set(unkeptRound, { action: 'keep', by: 'plan', reason: `kept with round ${keptRound}: ${link}` });
      }
      changed = true;
    }
  }
}

/**
 * A kept round whose tool call has no result anywhere can only end the request (the agent answers a dangling call
 * when it resumes): followed by another kept round, it would be an invalid request, so it is summarized instead.
 */
function foldUnansweredCalls(base: PlanBase, fate: Map<number, Fate>, conflicts: DecisionConflict[]): void {
  const { rounds } = base.analysis;
  const answered = new Set<string>();
  for (const ri of base.active) for (const t of rounds[ri].toolResults) answered.add(t.id);
  const kept = base.active.filter((ri) => fate.get(ri)!.action === 'keep');
  for (const ri of kept.slice(0, -1)) {
    const open = rounds[ri].toolUses.find((u) => !answered.has(u.id));
    if (!open) continue;
    const f = fate.get(ri)!;
    const why = `its tool call ${open.id} has no result, so it can only be the last round kept`;
    if (f.by === 'user')
      conflicts.push({ decision: `keep round ${ri}`, round: ri, resolution: `summarized instead: ${why}` });
    fate.set(ri, { action: 'summarize', by: 'plan', reason: `summarized: ${why}` });
  }
}

function listRounds(rs: number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < rs.length;) {
    let j = i;
    while (j + 1 < rs.length && rs[j + 1] === rs[j] + 1) j++;
    parts.push(i === j ? String(rs[i]) : `${rs[i]}-${rs[j]}`);
    i = j + 1;
  }
  return parts.join(', ');
}
