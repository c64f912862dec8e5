// The plan: which active rounds are kept verbatim (with budgeted tool results), which are
// folded into the summary, and the token figures before and after. Deterministic for the
// same input and settings.
import type { Analysis } from '../inspect';
import type { Round, RoundContent } from '../rounds';
import { continuesToolLoop, rawEstimate, TOKEN_MODEL } from '../tokens/estimate';
import { summarize } from '../entries';
import { buildRounds } from '../rounds';
import { SUMMARY_PREFIX } from './summarize/prompt';
import { applyBudget, wireMessages, type BudgetOutcome, type ResultText } from './budget';
import { loadEntryObjects, toolResultText } from './lines';
import { loadState, toolResultsDir, type BudgetState } from './state';
import { DEFAULT_SETTINGS, type CompactSettings, type CompactionPlan, type PlannedRound } from './types';

export interface PlanDetails {
  plan: CompactionPlan;
  /** Index (into analysis.rounds) of the first kept round; rounds before it in the active context are summarized. */
  tailStart: number;
  /** Rounds (indices into analysis.rounds) kept verbatim, in order. */
  kept: number[];
  /** Rounds whose thinking blocks are stripped (all kept but the newest). */
  stripThinking: Set<number>;
  budget: BudgetOutcome;
  state: BudgetState;
  calibration: number;
}

export function resolveSettings(partial?: Partial<CompactSettings>): CompactSettings {
  const s = { ...DEFAULT_SETTINGS, ...(partial ?? {}) };
  for (const k of ['targetTokens', 'keepRecentTokens', 'maxToolResultCharsPerMessage', 'maxToolResultChars', 'previewBytes', 'summaryTokens'] as const) {
    if (!Number.isFinite(s[k]) || s[k] <= 0) throw new Error(`setting ${k} must be a positive number, got ${s[k]}`);
  }
  return s;
}

/**
 * Tokens of the summary round (boundary + isCompactSummary line with `summary`) in the resumed context, estimated the
 * way checkResumable estimates the written file (same entry summary, round content and estimator).
 */
export function summaryRoundTokens(summary: string, calibration: number): number {
  const entry = summarize({ type: 'user', uuid: 'summary', parentUuid: null, message: { role: 'user', content: SUMMARY_PREFIX + summary } }, 1, 0, 0, 0);
  const chain = { main: [0], activeStart: 0, boundaries: [], leaf: 0, sidechains: [], offChain: 0, notes: [], subagentFile: false };
  const [round] = buildRounds([entry], chain);
  return rawEstimate(round.content, continuesToolLoop(round)) * calibration;
}

/** Tokens of the summary round with an empty summary (the continuation prefix and its framing), as validated. */
export function summaryFloorTokens(calibration: number): number {
  return Math.ceil(summaryRoundTokens('', calibration));
}

/** Tokens a round occupies in the resumed context, given its budgeted content. */
export function roundTokens(round: Round, content: RoundContent, calibration: number): number {
  return Math.round(rawEstimate(content, continuesToolLoop(round)) * calibration);
}

function adjusted(round: Round, budget: BudgetOutcome | null, strip: boolean): RoundContent {
  const c = { ...round.content };
  if (budget) {
    for (const t of round.toolResults) {
      const rep = budget.replacements.get(t.id);
      if (rep) c.toolResult += rep.preview.length - t.chars;
    }
  }
  if (strip) {
    c.thinking = 0;
    c.signature = 0;
  }
  return c;
}

export async function planCompaction(analysis: Analysis, settings?: Partial<CompactSettings>, state?: BudgetState): Promise<CompactionPlan> {
  return (await planDetails(analysis, settings, state)).plan;
}

export async function planDetails(analysis: Analysis, partial?: Partial<CompactSettings>, givenState?: BudgetState): Promise<PlanDetails> {
  const settings = resolveSettings(partial);
  const { rounds, report, index } = analysis;
  const entries = index.entries;
  const state = givenState ?? (await loadState(index.path));
  const calibration = report.totals.calibrationFactor || 1;
  const active = rounds.filter((r) => r.inContext).map((r) => r.index);
  // Planning size of a round: the usage delta when the file records it (truth), else the raw
  // estimate scaled by the session's final calibration. The first round of a segment's usage
  // figure also holds the system prompt and tools, which are not transcript content: estimate it.
  const calibrationNow = report.totals.calibrationFactor || 1;
  const sizes = new Map<number, number>(
    rounds.map((r, i) => {
      const rep = report.rounds[r.index];
      const firstOfSegment = i === 0 || rounds[i - 1].segment !== r.segment || r.startsAtBoundary;
      const useUsage = rep.tokens.source === 'usage' && !firstOfSegment;
      return [r.index, useUsage ? rep.tokens.added : roundTokens(r, r.content, calibrationNow)];
    }),
  );
  const preTokens = active.reduce((s, i) => s + sizes.get(i)!, 0);
  const notes: string[] = [];
  const toolDir = toolResultsDir(index.path);

  // Candidate tail: newest rounds within keepRecentTokens (the newest always), never an old boundary round.
  const last = active.length - 1;
  let tailPos = Math.max(0, last);
  // Grow the tail by each round's size once over-long results become previews, so one huge
  // tool result does not stop recent work from being kept (the exact budget is applied below).
  const budgetedSize = (ri: number) => {
    let saved = 0;
    for (const t of rounds[ri].toolResults) if (t.chars > settings.maxToolResultChars) saved += t.chars - settings.previewBytes - 300;
    return Math.max(0, sizes.get(ri)! - Math.round(saved * TOKEN_MODEL.toolResult * calibrationNow));
  };
  let acc = last >= 0 ? budgetedSize(active[last]) : 0;
  while (tailPos > 0 && acc + budgetedSize(active[tailPos - 1]) <= settings.keepRecentTokens) {
    tailPos--;
    acc += budgetedSize(active[tailPos]);
  }
  while (tailPos < last && rounds[active[tailPos]].startsAtBoundary) tailPos++;
  // An earlier boundary round as the newest round (no response since that compaction): it is folded into the new
  // summary, not kept. Kept, its summary line was dropped by the writer and the earlier summary was lost (found by
  // test/compat/roundtrip.test.ts on Claude Code's own /compact output).
  if (last >= 0 && tailPos === last && rounds[active[last]].startsAtBoundary) tailPos = last + 1;
  // The target is for the whole resumed context: leave room for the system prompt and tools.
  const overheadTokens = report.totals.overheadTokens ?? 0;
  const messageTarget = Math.max(0, settings.targetTokens - overheadTokens);
  if (overheadTokens > settings.targetTokens * 0.9) {
    notes.push(`the system prompt and tools alone take about ${overheadTokens} tokens, ${overheadTokens >= settings.targetTokens ? 'more than' : 'most of'} the ${settings.targetTokens}-token target`);
  }
  const underTarget = preTokens <= messageTarget;
  // Under target nothing is summarized: every active round is kept, an earlier boundary round included (the writer
  // carries its summary over verbatim as the new summary line).
  if (underTarget) tailPos = 0;

  // Tool-result texts of every round that may be kept (read once).
  const candidateRounds = active.slice(tailPos);
  const texts = await loadResultTexts(analysis, candidateRounds);

  const evaluate = (pos: number, strip: boolean) => {
    const kept = active.slice(pos);
    const ordered = kept.flatMap((ri) => rounds[ri].entries);
    const roundOfEntry = new Map<number, number>();
    for (const ri of kept) for (const e of rounds[ri].entries) roundOfEntry.set(e, ri);
    const budget = applyBudget(entries, wireMessages(entries, ordered), texts, settings, state, toolDir, roundOfEntry);
    const stripSet = new Set<number>(strip ? kept.slice(0, -1) : []);
    const after = new Map<number, number>();
    let total = 0;
    for (const ri of kept) {
      const t = roundTokens(rounds[ri], adjusted(rounds[ri], budget, stripSet.has(ri)), calibration);
      after.set(ri, t);
      total += t;
    }
    return { kept, budget, stripSet, after, total };
  };

  const summaryTokens = tailPos > 0 ? settings.summaryTokens : 0;
  let choice = evaluate(tailPos, false);
  if (!underTarget) {
    if (choice.total + summaryTokens > messageTarget) choice = evaluate(tailPos, true);
    while (choice.total + settings.summaryTokens > messageTarget && tailPos < last) {
      tailPos++;
      while (tailPos < last && rounds[active[tailPos]].startsAtBoundary) tailPos++;
      choice = evaluate(tailPos, true);
    }
    // Out of reach only when the kept rounds with an empty summary are over the target; otherwise the summary is
    // clipped to the room left (writeback.ts fitSummary). This note used to be given whenever the summary reserve
    // did not fit, also when the result then met the target.
    if (choice.total + summaryFloorTokens(calibration) > messageTarget) {
      notes.push(`the newest response alone is about ${choice.total} tokens after budgeting: the result cannot reach the ${settings.targetTokens}-token target (${messageTarget} for the transcript beside about ${overheadTokens} of system prompt and tools)`);
    }
  }
  const summarizing = !underTarget && tailPos > 0;
  if (!underTarget && tailPos === 0) notes.push('nothing older than the kept rounds to summarize; only tool-result budgets apply');

  const keptSet = new Set(choice.kept);
  const planned: PlannedRound[] = rounds.map((r) => {
    const base = { index: r.index, firstLine: r.firstLine, lastLine: r.lastLine, label: r.label, tokens: sizes.get(r.index)!, inContext: r.inContext };
    if (!r.inContext) return { ...base, action: 'keep' as const, reason: 'history before an earlier compact boundary; not in the active context, left untouched', tokensAfter: 0 };
    if (underTarget) return { ...base, action: 'keep' as const, reason: 'the context is already under the target', tokensAfter: choice.after.get(r.index) ?? base.tokens };
    if (keptSet.has(r.index)) {
      const why = r.index === active[last] ? 'newest response, always kept verbatim' : 'recent work kept verbatim';
      return { ...base, action: 'keep' as const, reason: choice.stripSet.has(r.index) ? `${why} (stale thinking stripped)` : why, tokensAfter: choice.after.get(r.index)! };
    }
    return { ...base, action: 'summarize' as const, reason: r.startsAtBoundary ? 'earlier compaction summary, folded into the new summary' : 'older than the kept recent rounds', tokensAfter: 0 };
  });

  const keptTokens = choice.total;
  const postTokens = keptTokens + (summarizing ? settings.summaryTokens : 0);
  const plan: CompactionPlan = {
    file: index.path,
    settings,
    rounds: planned,
    toolResults: choice.budget.decisions,
    wireMessages: choice.budget.wireMessages,
    preTokens,
    postTokens,
    keptTokens,
    overheadTokens,
    messageTarget,
    summarizedRounds: planned.filter((p) => p.action === 'summarize').length,
    droppedRounds: 0,
    // A frozen replacement whose preview is already the text in the file changes nothing.
    nothingToDo: underTarget && [...choice.budget.replacements.values()].every((r) => r.original === r.preview),
    notes,
  };
  return { plan, tailStart: summarizing ? active[tailPos] ?? rounds.length : active[0] ?? 0, kept: choice.kept, stripThinking: choice.stripSet, budget: choice.budget, state, calibration };
}

/** Tool-result texts by entry, for the given rounds. */
async function loadResultTexts(analysis: Analysis, roundIdx: number[]): Promise<Map<number, ResultText[]>> {
  const { rounds, index } = analysis;
  const entries = index.entries;
  const wanted: number[] = [];
  const roundOf = new Map<number, number>();
  for (const ri of roundIdx) {
    for (const e of rounds[ri].entries) {
      if (entries[e].kind === 'user' && entries[e].blocks.some((b) => b.type === 'tool_result')) {
        wanted.push(e);
        roundOf.set(e, ri);
      }
    }
  }
  const names = new Map<string, string>();
  for (const ri of roundIdx) for (const u of rounds[ri].toolUses) names.set(u.id, u.name);
  const objects = await loadEntryObjects(index.path, entries, wanted);
  const out = new Map<number, ResultText[]>();
  for (const e of wanted) {
    const obj = objects.get(e)!;
    const content = obj?.message?.content;
    if (!Array.isArray(content)) continue;
    const list: ResultText[] = [];
    for (const b of content) {
      if (!b || b.type !== 'tool_result' || typeof b.tool_use_id !== 'string') continue;
      const { text, hasNonText } = toolResultText(b.content);
      list.push({ toolUseId: b.tool_use_id, entry: e, round: roundOf.get(e)!, line: entries[e].line, toolName: names.get(b.tool_use_id) ?? null, text, binary: hasNonText });
    }
    out.set(e, list);
  }
  return out;
}
