// The plan: which active rounds are kept verbatim (with budgeted tool results), which are
// folded into the summary, and the token figures before and after. Deterministic for the
// same input and settings.
// Over 400 lines: the shared base (sizes, overhead, target room) and the automatic path's kept-tail rule belong
// together so the reference planner in test/unit/plan-linear.test.ts can mirror them; steering lives in steer.ts.
import type { Analysis } from '../analysis';
import { applyBudget, NO_LIMIT, wireMessages, type BudgetOutcome, type ResultText } from './budget';
import { emptyState, toolResultsDir, type BudgetState } from './state';
import { hasRoundDecisions, noDecisions, type ResultChoice, type UserDecisions } from './decisions';
import { planSteered } from './steer';
import {
  adjusted,
  adjustedContent,
  budgetedRoundSize,
  loadResultTexts,
  planDetailsOf,
  resumeBasis,
  resendReserveOf,
  roundTokens,
  summaryFloorTokens,
  yieldClock,
  type PlanBase,
  type PlanDetails,
} from './planBase';

export {
  adjusted,
  loadResultTexts,
  roundTokens,
  summaryFloorTokens,
  summaryRoundTokens,
  type PlanBase,
  type PlanDetails,
  type YieldClock,
} from './planBase';
import { CompactError, type CompactionPlan, type DecisionConflict, type PlannedRound } from './types';
import { DEFAULT_SETTINGS, type CompactSettings } from '../compactSettings';
import { agentModule, capabilitiesOf, unsupported } from '../formats/registry';
import type { AgentNow } from '../agentNow';
import { isSummaryDetail, SUMMARY_DETAIL_CHOICES, SUMMARY_TOKENS_BY_DETAIL } from '../summaryDetail';

export function resolveSettings(partial?: Partial<CompactSettings>): CompactSettings {
  const s = { ...DEFAULT_SETTINGS, ...(partial ?? {}) };
  if (!isSummaryDetail(s.summaryDetail))
    throw new Error(`setting summaryDetail must be ${SUMMARY_DETAIL_CHOICES}, got ${String(s.summaryDetail)}`);
  // The reserve predicts the summary: without a size given, the size the level's summary aims at.
  if (partial?.summaryTokens === undefined) s.summaryTokens = SUMMARY_TOKENS_BY_DETAIL[s.summaryDetail];
  for (const k of [
    'targetTokens',
    'keepRecentTokens',
    'maxToolResultCharsPerMessage',
    'maxToolResultChars',
    'previewBytes',
    'summaryTokens',
  ] as const) {
    if (!Number.isFinite(s[k]) || s[k] <= 0) throw new Error(`setting ${k} must be a positive number, got ${s[k]}`);
  }
  return s;
}

interface Evaluation {
  kept: number[];
  budget: BudgetOutcome;
  stripSet: Set<number>;
  after: Map<number, number>;
  total: number;
}

export async function planCompaction(
  analysis: Analysis,
  settings?: Partial<CompactSettings>,
  state?: BudgetState,
  decisions?: UserDecisions,
  agentNow?: AgentNow | null,
): Promise<CompactionPlan> {
  return (await planDetails(analysis, settings, state, decisions, agentNow)).plan;
}

/**
 * Settings as they apply to a file's format: where the agent's capabilities have no tool-result previews (they
 * rewrite Claude Code lines only), the plan keeps every kept tool output whole.
 */
export function settingsForFormat(
  format: Analysis['index']['format'],
  partial?: Partial<CompactSettings>,
): CompactSettings {
  const settings = resolveSettings(partial);
  if (capabilitiesOf(format).previews) return settings;
  return {
    ...settings,
    maxToolResultChars: NO_LIMIT,
    maxToolResultCharsPerMessage: NO_LIMIT,
  };
}

async function planBase(
  analysis: Analysis,
  partial: Partial<CompactSettings> | undefined,
  givenState: BudgetState | undefined,
  agentNow: AgentNow | null | undefined,
): Promise<PlanBase> {
  const refusal = unsupported(analysis.index.format);
  if (refusal) throw new CompactError('unsupported-format', refusal);
  const settings = settingsForFormat(analysis.index.format, partial);
  const { rounds, report, index } = analysis;
  // No file is read for the state: what is saved with the session is read by the caller (savedDecisions.ts).
  const state = givenState ?? emptyState();
  const calibration = report.totals.calibrationFactor || 1;
  const active = rounds.filter((r) => r.inContext).map((r) => r.index);
  // Planning size of a round: the usage delta when the file records it (truth), else the raw
  // estimate scaled by the session's final calibration. The first round of a segment's usage
  // figure also holds the system prompt and tools, which are not transcript content: estimate it.
  const clock = yieldClock();
  const sizes = new Map<number, number>();
  for (let i = 0; i < rounds.length; i++) {
    const r = rounds[i];
    const rep = report.rounds[r.index];
    const firstOfSegment = i === 0 || rounds[i - 1].segment !== r.segment || r.startsAtBoundary;
    const useUsage = rep.tokens.source === 'usage' && !firstOfSegment;
    sizes.set(r.index, useUsage ? rep.tokens.added : roundTokens(r, r.content, calibration));
    if (clock.due()) await clock.pause();
  }
  const preTokens = active.reduce((s, i) => s + sizes.get(i)!, 0);
  const notes: string[] = [];
  // The target is for the whole resumed context: leave room for the system prompt and tools, and for what the agent
  // gives the resumed session again in no kept round (its module's resumeOverhead: Codex's thread context).
  // The system prompt and tools of the resumed request: as the user's agent sends them today where their own newest
  // sessions record it (a resume is sent by the agent installed now, not the one that wrote the file); that figure
  // may hold the resume context already (Codex's, read from the user's Codex).
  const resume = resumeBasis(analysis, agentNow);
  const overhead = resume.includesResumeContext
    ? undefined
    : agentModule(index.format.id).resumeOverhead?.(index.entries, calibration);
  const resumeContext = overhead?.tokens ?? 0;
  if (overhead && resumeContext > 0) notes.push(overhead.note);
  const overheadTokens = resume.tokens + resumeContext;
  const messageTarget = Math.max(0, settings.targetTokens - overheadTokens);
  // As a resume by the user's agent sends it (its announcements where known): what the plan's resent figure counts.
  const resendReserve = resendReserveOf(analysis, calibration, resume.announced);
  if (overheadTokens > settings.targetTokens * 0.9) {
    notes.push(
      `the system prompt and tools alone take about ${overheadTokens} tokens, ${overheadTokens >= settings.targetTokens ? 'more than' : 'most of'} the ${settings.targetTokens}-token target`,
    );
  }
  return {
    analysis,
    settings,
    state,
    calibration,
    active,
    sizes,
    preTokens,
    overheadTokens,
    resume,
    resumeContextTokens: resumeContext,
    messageTarget,
    resendReserve,
    notes,
    toolDir: toolResultsDir(index.path),
    clock,
  };
}

/** What a plan is made from beside the file itself: values, each read (if at all) by the caller. */
export interface PlanValues {
  readonly settings?: Partial<CompactSettings>;
  /** The frozen budget decisions of earlier compactions (default none). */
  readonly state?: BudgetState;
  /** The user's decisions (default none). */
  readonly decisions?: UserDecisions;
  /** What the user's agent sends now (agentNow.ts); null or absent: the file's own figure. */
  readonly agentNow?: AgentNow | null;
}

/**
 * The plan, from values alone: the analysis and `values`. Nothing saved with the session is read here: the caller
 * reads it (loadSavedPlanInputs) and passes it, so the plan shown is the plan for what was shown (the transcript's own
 * tool-result texts are read for their budget, as the analysis locates them). With round decisions the steered
 * planner (steer.ts) decides; otherwise the automatic rules below, with any tool-result choices applied.
 */
export async function planOf(analysis: Analysis, values: PlanValues): Promise<PlanDetails> {
  const base = await planBase(analysis, values.settings, values.state, values.agentNow);
  const chosen = values.decisions ?? noDecisions();
  const { choices, unfollowed } = resultChoicesForFormat(analysis, chosen.toolResults);
  const details = hasRoundDecisions(chosen)
    ? await planSteered(base, { ...chosen, toolResults: choices })
    : await planAutomatic(base, choices);
  if (!unfollowed.length) return details;
  return { ...details, plan: { ...details.plan, conflicts: [...details.plan.conflicts, ...unfollowed] } };
}

/** `planOf` with its values in order (the form most callers use). */
export function planDetails(
  analysis: Analysis,
  settings?: Partial<CompactSettings>,
  state?: BudgetState,
  decisions?: UserDecisions,
  agentNow?: AgentNow | null,
): Promise<PlanDetails> {
  return planOf(analysis, { settings, state, decisions, agentNow });
}

/**
 * The tool-result choices a format's compaction can follow: where the agent has no previews (another format keeps
 * every kept tool output whole, settingsForFormat), a choice of a preview is said not to apply, with its reason.
 */
function resultChoicesForFormat(
  analysis: Analysis,
  choices: Readonly<Record<string, ResultChoice>>,
): { choices: Record<string, ResultChoice>; unfollowed: DecisionConflict[] } {
  const format = analysis.index.format;
  const noPreviews = unsupported(format, 'previews');
  if (noPreviews === null) return { choices: { ...choices }, unfollowed: [] };
  const followed: Record<string, ResultChoice> = {};
  const unfollowed: DecisionConflict[] = [];
  for (const [id, choice] of Object.entries(choices)) {
    if (choice !== 'preview') {
      followed[id] = choice;
      continue;
    }
    const round = analysis.rounds.find((r) => r.toolResults.some((t) => t.id === id));
    unfollowed.push({
      decision: `replace tool result ${id} by a preview`,
      round: round?.index ?? null,
      resolution: `kept in full instead. ${noPreviews}`,
    });
  }
  return { choices: followed, unfollowed };
}

async function planAutomatic(base: PlanBase, choices: Readonly<Record<string, ResultChoice>>): Promise<PlanDetails> {
  const { analysis, settings, calibration, active, preTokens, overheadTokens, messageTarget, notes, clock } = base;
  // What a summarizing plan leaves for its kept rounds and summary: a resume of it sends the announced context again.
  const room = Math.max(0, messageTarget - base.resendReserve);
  const { rounds } = analysis;
  const last = active.length - 1;
  // A target at or above the context now asks for nothing, whatever the rounds' estimates sum to.
  const underTarget =
    preTokens <= messageTarget || settings.targetTokens >= analysis.report.totals.currentContextTokens;
  let tailPos = await tailCandidate(base, underTarget);
  // Tool-result texts of every round that may be kept (read once).
  const texts = await loadResultTexts(analysis, active.slice(tailPos), clock);
  const tables = await tailTables(base, tailPos, texts, choices);

  const summaryTokens = tailPos > 0 ? settings.summaryTokens : 0;
  let choice: Evaluation;
  if (underTarget) choice = await tables.choose(tailPos, false);
  else {
    // The steps of the quadratic planner, with each candidate's total read off the tables above.
    let strip = false;
    let total = await tables.firstTotal(false);
    if (total + summaryTokens > room) total = await tables.firstTotal((strip = true));
    if (total + settings.summaryTokens > room && tailPos < last) {
      const totals = await tables.strippedTotals();
      while (total + settings.summaryTokens > room && tailPos < last) {
        tailPos++;
        while (tailPos < last && rounds[active[tailPos]].startsAtBoundary) tailPos++;
        total = tables.spans[tailPos] ? (await tables.evaluate(tailPos, true)).total : totals[tailPos];
      }
      strip = true;
    }
    choice = await tables.choose(tailPos, strip);
    // Out of reach only when the kept rounds with an empty summary are over the target; otherwise the summary is
    // clipped to the room left (writeback.ts fitSummary) and the result meets the target.
    if (choice.total + summaryFloorTokens(calibration) > room) {
      notes.push(
        `the newest response alone is about ${choice.total} tokens after budgeting: the result cannot reach the ${settings.targetTokens}-token target (${messageTarget} for the transcript beside about ${overheadTokens} of system prompt and tools)`,
      );
    }
  }
  const summarizing = !underTarget && tailPos > 0;
  if (!underTarget && tailPos === 0)
    notes.push('nothing older than the kept rounds to summarize; only tool-result budgets apply');

  const planned = await plannedRounds(base, choice, underTarget);
  return planDetailsOf(base, {
    rounds: planned,
    budget: choice.budget,
    keptTokens: choice.total,
    summarizing,
    // A frozen replacement whose preview is already the text in the file changes nothing.
    nothingToDo: underTarget && [...choice.budget.replacements.values()].every((r) => r.original === r.preview),
    droppedRounds: 0,
    notes,
    conflicts: [],
    tailStart: summarizing ? (active[tailPos] ?? rounds.length) : (active[0] ?? 0),
    kept: choice.kept,
    stripThinking: choice.stripSet,
  });
}

/**
 * Where the kept tail starts before the exact budget is applied: the newest rounds within keepRecentTokens (the
 * newest always), never an old boundary round; every active round when the context is under the target.
 */
async function tailCandidate(base: PlanBase, underTarget: boolean): Promise<number> {
  const { analysis, settings, active, clock } = base;
  const { rounds } = analysis;
  const last = active.length - 1;
  let tailPos = Math.max(0, last);
  // Grow the tail by each round's size once over-long results become previews (the exact budget is applied below).
  const budgetedSize = (ri: number) => budgetedRoundSize(base, ri);
  let acc = last >= 0 ? budgetedSize(active[last]) : 0;
  while (tailPos > 0 && acc + budgetedSize(active[tailPos - 1]) <= settings.keepRecentTokens) {
    tailPos--;
    acc += budgetedSize(active[tailPos]);
    if (clock.due()) await clock.pause();
  }
  while (tailPos < last && rounds[active[tailPos]].startsAtBoundary) tailPos++;
  // An earlier boundary round as the newest round (no response since that compaction): it is folded into the new
  // summary, not kept, because the writer does not copy a kept summary line and the earlier summary would be lost.
  if (last >= 0 && tailPos === last && rounds[active[last]].startsAtBoundary) tailPos = last + 1;
  // Under target nothing is summarized: every active round is kept, an earlier boundary round included (the writer
  // carries its summary over verbatim as the new summary line).
  if (underTarget) tailPos = 0;

  return tailPos;
}

/** A kept tail's figures for every start position at or after `first`, read off one budgeting of the longest tail. */
interface TailTables {
  /** The tail from active position `pos` evaluated from scratch: budget its wire messages, sum its rounds. */
  evaluate(pos: number, strip: boolean): Promise<Evaluation>;
  /** The tail from active position `pos`, as `evaluate(pos, strip)` gives it. */
  choose(pos: number, strip: boolean): Promise<Evaluation>;
  /** Total tokens of the longest candidate tail. */
  firstTotal(strip: boolean): Promise<number>;
  /** Total tokens of the tail from each active position (thinking stripped), in one scan from the newest round back. */
  strippedTotals(): Promise<Float64Array>;
  /** Positions whose round continues the previous round's last wire message (evaluated from scratch). */
  spans: Uint8Array;
}

async function tailTables(
  base: PlanBase,
  first: number,
  texts: Map<number, ResultText[]>,
  choices: Readonly<Record<string, ResultChoice>>,
): Promise<TailTables> {
  const { analysis, settings, state, calibration, active, toolDir, clock } = base;
  const { rounds } = analysis;
  const entries = analysis.index.entries;
  const last = active.length - 1;

  // The kept rounds' sizes once their budget is known (thinking stripped from all but the newest when `strip`).
  const sized = async (kept: number[], budget: BudgetOutcome, strip: boolean): Promise<Evaluation> => {
    const stripSet = new Set<number>(strip ? kept.slice(0, -1) : []);
    const after = new Map<number, number>();
    let total = 0;
    for (const ri of kept) {
      const t = roundTokens(rounds[ri], adjusted(rounds[ri], budget, stripSet.has(ri)), calibration);
      after.set(ri, t);
      total += t;
      if (clock.due()) await clock.pause();
    }
    return { kept, budget, stripSet, after, total };
  };

  // One candidate tail evaluated from scratch: budget its wire messages, sum its rounds.
  const evaluate = (pos: number, strip: boolean): Promise<Evaluation> => {
    const kept = active.slice(pos);
    const ordered = kept.flatMap((ri) => rounds[ri].entries);
    const roundOfEntry = new Map<number, number>();
    for (const ri of kept) for (const e of rounds[ri].entries) roundOfEntry.set(e, ri);
    return sized(
      kept,
      applyBudget(entries, wireMessages(entries, ordered), texts, settings, state, toolDir, roundOfEntry, choices),
      strip,
    );
  };

  // Choosing the tail in linear time. Doing the above for every candidate start was quadratic in the rounds (113 s for
  // 7,441 rounds). Instead the longest candidate tail (from `first`) is budgeted once, one wire message at a time, and
  // any shorter tail is read off it:
  // - a wire message is a run of user lines between assistant lines (budget.ts wireMessages) and a round begins with
  //   its assistant line (rounds.ts), so a shorter tail's wire messages are exactly the longest tail's messages that
  //   begin at or after its first round; only a round that does not begin with an assistant line (a compact boundary
  //   or a preamble) can continue the previous round's last message — a tail starting at such a round (`spans`; in
  //   practice only an earlier boundary as the newest round, and only in an artificial analysis) is evaluated from scratch;
  // - applyBudget decides each message from its own results, the settings and the frozen state alone, so a message is
  //   budgeted the same in every tail holding it; its decisions are renumbered by the tail's first message;
  // - a round's tokens depend on the tail only through `replacements`, where a tool id's entry comes from the newest
  //   kept message replacing it: that is the id's newest replacing message overall when the tail holds it, else none.
  //   Normally the message is in the round itself; a round whose id was last replaced in an older round (reused ids)
  //   is re-counted when the scan below reaches that round.
  const { groupPos, spans, outcomes, newestReplacement } = await budgetLongestTail(base, first, texts, choices);

  /** The tail from active position `pos`, as `evaluate(pos, strip)` gives it. */
  const choose = async (pos: number, strip: boolean): Promise<Evaluation> => {
    if (spans[pos]) return evaluate(pos, strip);
    const kept = active.slice(pos);
    let lo = 0;
    let hi = outcomes.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (groupPos[mid] < pos) lo = mid + 1;
      else hi = mid;
    }
    const budget: BudgetOutcome = { decisions: [], wireMessages: [], replacements: new Map() };
    for (let g = lo; g < outcomes.length; g++) {
      const wi = g - lo;
      const outcome = outcomes[g];
      for (const d of outcome.decisions) budget.decisions.push({ ...d, wireMessage: wi });
      for (const w of outcome.wireMessages) budget.wireMessages.push({ ...w, index: wi });
      for (const [id, rep] of outcome.replacements) budget.replacements.set(id, rep);
      if (clock.due()) await clock.pause();
    }
    return sized(kept, budget, strip);
  };

  /** Tokens of the round at active position `k` in the tail from `pos` (replacements as that tail has them). */
  const tokensAt = (k: number, pos: number, strip: boolean) => {
    const r = rounds[active[k]];
    const previewLength = (id: string) => {
      const rep = newestReplacement.get(id);
      return rep && rep.pos >= pos ? rep.length : undefined;
    };
    return roundTokens(r, adjustedContent(r, previewLength, strip && k !== last), calibration);
  };

  /** Total tokens of the longest candidate tail. */
  const firstTotal = async (strip: boolean): Promise<number> => {
    let total = 0;
    for (let k = first; k <= last; k++) {
      total += tokensAt(k, first, strip);
      if (clock.due()) await clock.pause();
    }
    return total;
  };

  /** Total tokens of the tail from each active position (thinking stripped), in one scan from the newest round back. */
  const strippedTotals = async (): Promise<Float64Array> => {
    // Rounds holding an id whose newest replacement is in an older round: re-counted when the scan reaches that round.
    const dependents = new Map<number, number[]>();
    for (let k = first; k <= last; k++) {
      let seen: Set<number> | null = null;
      for (const t of rounds[active[k]].toolResults) {
        const rep = newestReplacement.get(t.id);
        if (!rep || rep.pos >= k || seen?.has(rep.pos)) continue;
        (seen ??= new Set()).add(rep.pos);
        const list = dependents.get(rep.pos);
        if (list) list.push(k);
        else dependents.set(rep.pos, [k]);
      }
    }
    const totals = new Float64Array(last + 2);
    const current = new Float64Array(last + 1);
    let total = 0;
    for (let p = last; p >= first; p--) {
      current[p] = tokensAt(p, p, true);
      total += current[p];
      for (const k of dependents.get(p) ?? []) {
        const t = tokensAt(k, p, true);
        total += t - current[k];
        current[k] = t;
      }
      totals[p] = total;
      if (clock.due()) await clock.pause();
    }
    return totals;
  };

  return { evaluate, choose, firstTotal, strippedTotals, spans };
}

/** The longest candidate tail (from active position `first`) budgeted once, one wire message at a time. */
interface LongestTailBudget {
  /** Active position of each wire message's first round. */
  groupPos: Int32Array;
  /** Positions whose round continues the previous round's last wire message. */
  spans: Uint8Array;
  /** Each wire message's budget outcome, in order. */
  outcomes: BudgetOutcome[];
  /** Per tool id, its newest replacing message: the preview's length and the message's active position. */
  newestReplacement: Map<string, { length: number; pos: number }>;
}

async function budgetLongestTail(
  base: PlanBase,
  first: number,
  texts: Map<number, ResultText[]>,
  choices: Readonly<Record<string, ResultChoice>>,
): Promise<LongestTailBudget> {
  const { analysis, settings, state, active, toolDir, clock } = base;
  const { rounds } = analysis;
  const entries = analysis.index.entries;
  const last = active.length - 1;
  const posOf = new Int32Array(rounds.length).fill(-1);
  active.forEach((ri, k) => (posOf[ri] = k));
  const ordered0: number[] = [];
  const roundOfEntry0 = new Map<number, number>();
  for (let k = first; k <= last; k++) {
    for (const e of rounds[active[k]].entries) {
      ordered0.push(e);
      roundOfEntry0.set(e, active[k]);
    }
    if (clock.due()) await clock.pause();
  }
  const groups = wireMessages(entries, ordered0);
  const groupPos = new Int32Array(groups.length);
  const spans = new Uint8Array(last + 2);
  const outcomes: BudgetOutcome[] = [];
  const newestReplacement = new Map<string, { length: number; pos: number }>();
  for (let g = 0; g < groups.length; g++) {
    const group = groups[g];
    const from = posOf[roundOfEntry0.get(group[0])!];
    const to = posOf[roundOfEntry0.get(group[group.length - 1])!];
    groupPos[g] = from;
    for (let k = from + 1; k <= to; k++) spans[k] = 1;
    const outcome = applyBudget(entries, [group], texts, settings, state, toolDir, roundOfEntry0, choices);
    outcomes.push(outcome);
    for (const [id, rep] of outcome.replacements) newestReplacement.set(id, { length: rep.preview.length, pos: from });
    if (clock.due()) await clock.pause();
  }

  return { groupPos, spans, outcomes, newestReplacement };
}

/** The plan's line for every round: kept (with its size after budgeting), summarized, or untouched history. */
async function plannedRounds(base: PlanBase, choice: Evaluation, underTarget: boolean): Promise<PlannedRound[]> {
  const { analysis, active, sizes, clock } = base;
  const { rounds } = analysis;
  const last = active.length - 1;
  const keptSet = new Set(choice.kept);
  // A loop with one object literal per round (spreading a shared base cost ~7 µs a round), yielding as it goes.
  const planned: PlannedRound[] = [];
  for (const r of rounds) {
    const tokens = sizes.get(r.index)!;
    let action: PlannedRound['action'] = 'keep';
    let reason: string;
    let tokensAfter = 0;
    if (!r.inContext) reason = 'history before an earlier compact boundary; not in the active context, left untouched';
    else if (underTarget) {
      reason = 'the context is already under the target';
      tokensAfter = choice.after.get(r.index) ?? tokens;
    } else if (keptSet.has(r.index)) {
      const why = r.index === active[last] ? 'newest response, always kept verbatim' : 'recent work kept verbatim';
      reason = choice.stripSet.has(r.index) ? `${why} (stale thinking stripped)` : why;
      tokensAfter = choice.after.get(r.index)!;
    } else {
      action = 'summarize';
      reason = r.startsAtBoundary
        ? 'earlier compaction summary, folded into the new summary'
        : 'older than the kept recent rounds';
    }
    planned.push({
      index: r.index,
      firstLine: r.firstLine,
      lastLine: r.lastLine,
      label: r.label,
      tokens,
      inContext: r.inContext,
      action,
      by: 'plan',
      reason,
      tokensAfter,
    });
    if (clock.due()) await clock.pause();
  }

  return planned;
}
