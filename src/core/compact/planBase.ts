// What the automatic planner (plan.ts) and the steered one (steer.ts) share: the plan's details, the sizes of rounds
// and of the summary, a round's budgeted content, the base every plan starts from and the tool-result texts it budgets.
// A module of its own so that the two planners depend on it and not on each other.
import type { Analysis } from '../analysis';
import { userTextContent, type Round, type RoundContent } from '../rounds';
import { continuesToolLoop, rawEstimate, TOKEN_MODEL } from '../tokens/estimate';
import { SUMMARY_PREFIX } from './summarize/prompt';
import type { BudgetOutcome, ResultText } from './budget';
import { loadConversation } from '../lines';
import { contentBlocks, toolResultText } from '../conversation';
import type { BudgetState } from './state';
import type { CompactionPlan, PlannedRound } from './types';
import type { CompactSettings } from '../compactSettings';
import { contextNow, reannouncedOnResume } from '../context';
import type { AgentNow, ResumeBasis } from '../formats/agent';
import { agentModule } from '../formats/registry';
import { limitFacts } from '../limits';

export interface PlanDetails {
  /** The plan (a value: settling it makes a new one, settle.ts). */
  readonly plan: CompactionPlan;
  /** Index (into analysis.rounds) of the first kept round; rounds before it in the active context are summarized. */
  tailStart: number;
  /** Rounds (indices into analysis.rounds) kept verbatim, in order. */
  kept: number[];
  /** Rounds whose thinking blocks are stripped (all kept but the newest). */
  stripThinking: Set<number>;
  budget: BudgetOutcome;
  state: BudgetState;
  calibration: number;
  /** The session-start context the user's agent announces today, or null: the file's own (ResumeBasis). */
  announced: Readonly<Record<string, number>> | null;
}

/**
 * Tokens of the summary round in the resumed context: a function of the summary's text (with the continuation prefix
 * every writer puts before it) and the calibration, estimated as checkResumable estimates the written file (the same
 * round content and estimator; a message of one text block ends no tool loop).
 */
export function summaryRoundTokens(summary: string, calibration: number): number {
  return rawEstimate(userTextContent(SUMMARY_PREFIX + summary), false) * calibration;
}

/**
 * What a resume of the planned result sends beyond its kept rounds and summary: the agent's session-start context
 * its kept rounds no longer hold (src/core/context.ts `reannouncedOnResume`). Part of every promised size.
 */
export function reannouncedAfter(
  analysis: Analysis,
  planned: readonly PlannedRound[],
  calibration: number,
  announcedNow: Readonly<Record<string, number>> | null,
): number {
  const kept = new Set(planned.filter((p) => p.action === 'keep' && p.inContext).map((p) => p.index));
  return reannouncedOnResume(analysis.index.entries, analysis.rounds, kept, calibration, announcedNow);
}

/**
 * The model the file's own agent used last, which it resumes it with: the newest main-chain response's (limits.ts),
 * or in a subagent's transcript (every line a sidechain) its newest response's.
 */
function resumedModel(analysis: Analysis): string | null {
  const main = limitFacts(analysis.index.format.id, analysis.index.entries).model;
  if (main !== null || !analysis.chain.subagentFile) return main;
  const entries = analysis.index.entries;
  for (let i = entries.length - 1; i >= 0; i--) {
    const m = entries[i].model;
    if (entries[i].kind === 'assistant' && m && m !== '<synthetic>') return m;
  }
  return null;
}

/**
 * The resume's system prompt and tools: as the user's agent sends them today (its module's `agentNow.resumeBasis`,
 * from what their own newest sessions record), else the file's own record of them, else the file's usage-based
 * estimate.
 */
export function resumeBasis(analysis: Analysis, agentNow: AgentNow | null | undefined): ResumeBasis {
  const t = analysis.report.totals;
  const own: ResumeBasis = {
    tokens: t.overheadTokens ?? 0,
    source: t.overheadSource,
    from:
      t.overheadSource === 'recorded'
        ? 'as this session recorded it'
        : t.overheadSource === 'estimated'
          ? "estimated from this session's usage"
          : 'unknown',
    announced: null,
  };
  const format = analysis.index.format.id;
  const spec = agentModule(format).agentNow;
  if (!agentNow || agentNow.agent !== format || !spec) return own;
  return spec.resumeBasis(agentNow, resumedModel(analysis), own);
}

/**
 * The room a summarizing plan keeps for what a resume sends again (PlanBase.resendReserve): the most it can be, with
 * no announced kind kept.
 */
export function resendReserveOf(
  analysis: Analysis,
  calibration: number,
  announcedNow: Readonly<Record<string, number>> | null = null,
): number {
  return reannouncedOnResume(analysis.index.entries, analysis.rounds, new Set(), calibration, announcedNow);
}

/** Tokens of the summary round with an empty summary (the continuation prefix and its framing), as validated. */
export function summaryFloorTokens(calibration: number): number {
  return Math.ceil(summaryRoundTokens('', calibration));
}

/** Tokens a round occupies in the resumed context, given its budgeted content. */
export function roundTokens(round: Round, content: RoundContent, calibration: number): number {
  return Math.round(rawEstimate(content, continuesToolLoop(round)) * calibration);
}

/** A round's content with replaced tool results (by `previewLength` of their id) and, when `strip`, no thinking. */
export function adjustedContent(
  round: Round,
  previewLength: (toolUseId: string) => number | undefined,
  strip: boolean,
): RoundContent {
  const c = { ...round.content };
  for (const t of round.toolResults) {
    const len = previewLength(t.id);
    if (len !== undefined) c.toolResult += len - t.chars;
  }
  if (strip) {
    // The writer removes the blocks themselves (writeback.ts rewriteResponse), so their framing goes too: the kept
    // round is then sized as the written file's round is.
    c.thinking = 0;
    c.signature = 0;
    c.blocks -= c.thinkingBlocks ?? 0;
    c.thinkingBlocks = 0;
  }
  return c;
}

export function adjusted(round: Round, budget: BudgetOutcome | null, strip: boolean): RoundContent {
  return adjustedContent(round, (id) => budget?.replacements.get(id)?.preview.length, strip);
}

/**
 * Gives the event loop a turn about every `sliceMs` of synchronous work: planning runs on the
 * extension host's thread. `due()` is cheap; `await pause()` when it says so.
 */
export function yieldClock(sliceMs = 10): { due: () => boolean; pause: () => Promise<void> } {
  let last = performance.now();
  return {
    due: () => performance.now() - last >= sliceMs,
    pause: () =>
      new Promise<void>((resolve) =>
        setImmediate(() => {
          last = performance.now();
          resolve();
        }),
      ),
  };
}
export type YieldClock = ReturnType<typeof yieldClock>;

/** What every plan starts from: settings, state, sizes and the room the target leaves for transcript content. */
export interface PlanBase {
  analysis: Analysis;
  settings: CompactSettings;
  state: BudgetState;
  calibration: number;
  /** Indices of the rounds in the active context, in order. */
  active: number[];
  /** Planning size of every round. */
  sizes: Map<number, number>;
  preTokens: number;
  overheadTokens: number;
  /** What the resume is sent with beside the transcript (overheadTokens includes its `tokens`). */
  resume: ResumeBasis;
  /** Part of `overheadTokens`: the context Codex gives a resumed thread again (CompactionPlan.resumeContextTokens). */
  resumeContextTokens: number;
  messageTarget: number;
  /**
   * Room a summarizing plan keeps within `messageTarget` for what a resume sends again (`reannouncedAfter`): the most
   * it can be (no announced kind kept), so the promised size, which includes it, stays within the target.
   */
  resendReserve: number;
  notes: string[];
  toolDir: string;
  clock: YieldClock;
}

/** What a planner decided; `planDetailsOf` derives the plan's figures from it the same way for every planner. */
export interface PlanDecided {
  rounds: PlannedRound[];
  budget: BudgetOutcome;
  /** Tokens of the kept rounds after budgeting. */
  keptTokens: number;
  /** Whether a summary replaces the rounds before the kept ones. */
  summarizing: boolean;
  nothingToDo: boolean;
  droppedRounds: number;
  notes: string[];
  conflicts: CompactionPlan['conflicts'];
  tailStart: number;
  kept: number[];
  stripThinking: Set<number>;
}

/**
 * The plan and its details from what a planner decided (plan.ts's and steer.ts's): the promised size is the kept
 * rounds, the summary's reserve when summarizing, and what a resume sends again beside the kept rounds.
 */
export function planDetailsOf(base: PlanBase, d: PlanDecided): PlanDetails {
  const { analysis, settings, calibration } = base;
  const resentTokens = reannouncedAfter(analysis, d.rounds, calibration, base.resume.announced);
  const plan: CompactionPlan = {
    file: analysis.index.path,
    settings,
    rounds: d.rounds,
    toolResults: d.budget.decisions,
    wireMessages: d.budget.wireMessages,
    preTokens: base.preTokens,
    context: contextNow(analysis.report),
    postTokens: d.keptTokens + (d.summarizing ? settings.summaryTokens : 0) + resentTokens,
    keptTokens: d.keptTokens,
    resentTokens,
    overheadTokens: base.overheadTokens,
    overheadSource: base.resume.source,
    overheadFrom: base.resume.from,
    resumeContextTokens: base.resumeContextTokens,
    messageTarget: base.messageTarget,
    summarizedRounds: d.rounds.filter((p) => p.inContext && p.action === 'summarize').length,
    droppedRounds: d.droppedRounds,
    nothingToDo: d.nothingToDo,
    notes: d.notes,
    conflicts: d.conflicts,
  };
  return {
    plan,
    tailStart: d.tailStart,
    kept: d.kept,
    stripThinking: d.stripThinking,
    budget: d.budget,
    state: base.state,
    calibration,
    announced: base.resume.announced,
  };
}

/**
 * A round's planning size with its over-long tool results counted as previews: how both planners grow the kept tail
 * before the exact budget is applied, so that one huge tool result does not stop recent work from being kept.
 */
export function budgetedRoundSize(base: PlanBase, ri: number): number {
  const { settings, sizes, calibration } = base;
  let saved = 0;
  for (const t of base.analysis.rounds[ri].toolResults)
    if (t.chars > settings.maxToolResultChars) saved += t.chars - settings.previewBytes - 300;
  return Math.max(0, sizes.get(ri)! - Math.round(saved * TOKEN_MODEL.toolResult * calibration));
}

const LOAD_BATCH_BYTES = 1 << 20;

/** Tool-result texts by entry, for the given rounds. */
export async function loadResultTexts(
  analysis: Analysis,
  roundIdx: number[],
  clock: YieldClock,
): Promise<Map<number, ResultText[]>> {
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
    if (clock.due()) await clock.pause();
  }
  const names = new Map<string, string>();
  for (const ri of roundIdx) {
    for (const u of rounds[ri].toolUses) names.set(u.id, u.name);
    if (clock.due()) await clock.pause();
  }
  const out = new Map<number, ResultText[]>();
  // Read in batches of about 1 MB of lines: the event loop gets a turn between batches, and only one batch of parsed
  // lines (with their toolUseResult copies, often larger than the results) is alive at a time.
  for (let i = 0; i < wanted.length;) {
    let j = i;
    let bytes = 0;
    while (
      j < wanted.length &&
      (j === i || bytes + entries[wanted[j]].end - entries[wanted[j]].start <= LOAD_BATCH_BYTES)
    ) {
      bytes += entries[wanted[j]].end - entries[wanted[j]].start;
      j++;
    }
    const batch = wanted.slice(i, j);
    i = j;
    // Each record as its agent's module reads it (RecordFormat.message): a tool output is a tool_result block there,
    // whatever the agent writes (Claude Code's user line, Codex's function_call_output or custom_tool_call_output).
    const records = await loadConversation(index.path, index.format.id, entries, batch);
    for (const e of batch) {
      const blocks = contentBlocks(records.get(e));
      if (blocks.length === 0) continue;
      const list: ResultText[] = [];
      for (const b of blocks) {
        if (b.type !== 'tool_result' || typeof b.tool_use_id !== 'string') continue;
        const { text, hasNonText } = toolResultText(b.content);
        list.push({
          toolUseId: b.tool_use_id,
          entry: e,
          round: roundOf.get(e)!,
          line: entries[e].line,
          toolName: names.get(b.tool_use_id) ?? null,
          text,
          binary: hasNonText,
        });
      }
      out.set(e, list);
    }
    if (clock.due()) await clock.pause();
  }
  return out;
}
