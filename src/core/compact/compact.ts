// Compact Transcript: plan, summarize (Anthropic or offline; summary.ts), write back atomically with a
// backup, and verify the result resumes, or write nothing at all. In phases: plan (read the file and what is saved
// with it, plan, load the lines: loadLines.ts), summarize (summarizePlan.ts: the summary, and the plan settled by it
// as a new value, settle.ts), then write (writeOut.ts: the output the agent's writer builds — formats/<agent>/
// writer.ts, from formats/writers.ts — written to a temp file and checked as that agent reads it, then sidecars and
// the commit; where it goes: outputPath.ts). Every agent we write goes through the same phases, so the user's
// decisions, a given summary and the sidecars apply alike. A plan is never changed once made: what a step learns
// makes a new plan, so the plan a caller was shown is the plan it still holds.
import { lstat, realpath, stat } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { inspectFile } from '../inspect';
import type { Analysis } from '../analysis';
import { agentName, unsupported, type AgentId } from '../formats/registry';
import { writerOf } from '../formats/writers';
import type { AgentWriter } from '../formats/writer';
import { planOf, summaryRoundTokens, type PlanDetails } from './plan';
import {
  splitOptions,
  type CompactionParts,
  type CompactOptions,
  type OutputOptions,
  type PlanInputs,
  type RuntimeHooks,
  type SummarizerOptions,
} from './options';
import { withNotes, type PlanSettlement } from './settle';
import { promisedContext } from './promise';
import {
  CompactError,
  type AttemptRecord,
  type ContextAfter,
  type CompactionPlan,
  type CompactResult,
  type ProgressReporter,
} from './types';
import { loadSavedPlanInputs } from './savedDecisions';
import type { BudgetState } from './state';
import type { UserDecisions } from './decisions';
import type { AgentNow } from '../agentNow';
import { agentCliRefusal } from './summary';
import { acquireLock } from '../io/lock';
import type { Fact, FidelityReport } from './fidelity';
import { resolveOutput } from './outputPath';
import { readAgentNow } from '../agentNow';
import { isOffline, loadForSummary, withNewlyKept, type Loaded } from './loadLines';
import { summarize } from './summarizePlan';
import { checkCancelled, progressOf, writeOut } from './writeOut';

export type { CompactOptions, OutputOptions, PlanInputs, RuntimeHooks, SummarizerOptions } from './options';
export type { PlanSettlement } from './settle';
export type { Loaded } from './loadLines';

export { DEFAULT_MODEL } from './summary';
export { checkCancelled, COMMITTING } from './writeOut';
export { checkOutputPath, isOurOutput } from './outputPath';

/** Plans and applies in one step: `planCompactionOf` then `applyCompaction`, under one lock. */
export async function compactFile(file: string, options: CompactOptions): Promise<CompactResult> {
  const parts = splitOptions(options);
  const target = await compactedFile(file, parts.runtime);
  // One lock from the plan to the commit: nothing can change the session's files in between.
  const lock = await acquireLock(target.file);
  try {
    return await applyLocked(await planWithSaved(target, parts), parts.runtime);
  } finally {
    await lock.release();
  }
}

/** What a compaction was planned over; apply checks the file still is that before it writes the plan. */
export interface PlanBasis {
  size: number;
  mtimeMs: number;
}

/**
 * The plan's inputs as the plan was made with them: what was not given read once where planning reads (the user's
 * decisions and the frozen budget decisions saved with the session, what the user's agent sends now). A re-plan of
 * the same compaction uses them again (the budget state read anew: another compaction may have written it).
 */
export interface ResolvedPlanInputs extends PlanInputs {
  readonly decisions: UserDecisions;
  readonly agentNow: AgentNow | null;
  /** The frozen budget decisions of earlier compactions (state.ts). */
  readonly state: BudgetState;
}

/**
 * A compaction planned and not yet applied: `plan` is what the user is shown (`agent-compactor plan`, the
 * extension's confirmation, a drafted summary's figures), and `applyCompaction` writes exactly it, or, when the file
 * changed since, plans again and says what changed. It carries what it was planned with, each part once.
 */
export interface PlannedCompaction {
  /** The file compacted (a symbolic link resolved) and the path the caller named. */
  readonly file: string;
  readonly given: string;
  /** The plan shown: `details.plan`. */
  readonly plan: CompactionPlan;
  readonly basis: PlanBasis;
  readonly inputs: ResolvedPlanInputs;
  readonly summarizer: SummarizerOptions;
  readonly output: OutputOptions;
  /** How planning was watched and stopped; `applyCompaction` is given its own. */
  readonly runtime: RuntimeHooks;
  readonly analysis: Analysis;
  readonly details: PlanDetails;
  readonly loaded: Loaded;
  /** What the agent's writer read of the file for its output (its `prepare`). */
  readonly facts: unknown;
}

/**
 * The plan a compaction of `file` with `options` writes, with the lines it needs loaded; nothing is written. The
 * edge of planning: what is saved with the session (the frozen budget decisions, and the user's decisions unless
 * `options.decisions` gives them) is read here and passed to the planner as values. `analysis` is the file as the
 * caller already read it (inspectFile with `subagents: false`); by default it is read here.
 */
export async function planCompactionOf(
  file: string,
  options: CompactOptions,
  analysis?: Analysis,
): Promise<PlannedCompaction> {
  const parts = splitOptions(options);
  const target = await compactedFile(file, parts.runtime);
  // Planned under the session's lock (released after): never over the files of a compaction half done.
  const lock = await acquireLock(target.file);
  try {
    return await planWithSaved(target, parts, analysis);
  } finally {
    await lock.release();
  }
}

/**
 * The planned compaction with `summaryText` as its summary, used verbatim (Apply Summary's reviewed text), and none of
 * the hooks its drafting was watched with: the plan is the one the draft settled and showed.
 */
export function withSummaryText(planned: PlannedCompaction, summaryText: string): PlannedCompaction {
  return { ...planned, inputs: { ...planned.inputs, summaryText }, runtime: {} };
}

interface Target {
  file: string;
  given: string;
}

/** The file a compaction of `file` reads and writes (a symbolic link resolved, and said), and the path given. */
async function compactedFile(file: string, runtime: RuntimeHooks): Promise<Target> {
  file = resolve(file);
  const given = file;
  const st = await lstat(file);
  if (st.isSymbolicLink()) {
    // Resolve deliberately: compact the real file (a fork is still written beside the link), and say so.
    const real = await realpath(file);
    runtime.onProgress?.(`${file} is a symbolic link; compacting its target ${real}`);
    file = real;
  }
  return { file, given };
}

/** The plan over `target` with what is saved with the session (read here, the edge) and the options' decisions on top. */
async function planWithSaved(target: Target, parts: CompactionParts, analysis?: Analysis): Promise<PlannedCompaction> {
  checkCancelled(parts.runtime.signal);
  const saved = await loadSavedPlanInputs(target.file);
  return planOver(
    target,
    parts,
    { state: saved.state, decisions: parts.inputs.decisions ?? saved.decisions },
    analysis,
  );
}

/** The plan over the file with the saved values given, its lines loaded; what the user's agent sends now read here. */
async function planOver(
  target: Target,
  parts: CompactionParts,
  saved: { state: BudgetState; decisions: UserDecisions },
  read?: Analysis,
): Promise<PlannedCompaction> {
  const { file, given } = target;
  const analysis = await analysisOf(file, read, progressOf(parts.runtime));
  const writer = writableBy(file, analysis, parts.output);
  const facts = await writer.prepare(file, analysis);
  refuseHalfWrittenTail(file, analysis, parts.output.inPlace === true, writer.writerName);
  // What the user's agent sends now, read once here (the edge) and kept with the plan: a re-plan uses the same.
  const agentNow = parts.inputs.agentNow === undefined ? await readAgentNow(file, analysis) : parts.inputs.agentNow;
  const inputs: ResolvedPlanInputs = { ...parts.inputs, ...saved, agentNow };
  const { details, loaded } = await planLoaded(file, analysis, inputs, parts);
  const basis: PlanBasis = { size: analysis.index.size, mtimeMs: analysis.index.mtimeMs };
  const { summarizer, output, runtime } = parts;
  return {
    file,
    given,
    plan: details.plan,
    basis,
    inputs,
    summarizer,
    output,
    runtime,
    analysis,
    details,
    loaded,
    facts,
  };
}

/** The file as the caller read it, or read here when it was not (or was another file). */
async function analysisOf(file: string, read: Analysis | undefined, progress: ProgressReporter): Promise<Analysis> {
  if (read && read.index.path === file) return read;
  progress('Reading transcript…');
  return inspectFile(file, { subagents: false });
}

/** The writer of the file's agent, when its format can be compacted (and written fresh, when asked). */
function writableBy(file: string, analysis: Analysis, output: OutputOptions): AgentWriter {
  const format = analysis.index.format;
  const refusal = unsupported(format, 'compact') ?? (output.fresh ? unsupported(format, 'fresh') : null);
  if (refusal) throw new CompactError('unsupported-format', `${basename(file)}: ${refusal} Nothing was written.`);
  return writerFor(format.id);
}

/**
 * Writes `planned` through the agent's writer, verifies the result and commits it, under the session's lock. When
 * the file is no longer what was planned over (a live agent appended), it is planned again with the same values and
 * the result's `replanned` (and a note of its plan) says what changed: a different plan is never applied silently.
 * `runtime` replaces how the run is watched and stopped (progress, cancellation); everything else is as planned.
 */
export async function applyCompaction(planned: PlannedCompaction, runtime: RuntimeHooks = {}): Promise<CompactResult> {
  const hooks: RuntimeHooks = { ...planned.runtime, ...definedOnly(runtime) };
  checkCancelled(hooks.signal);
  const lock = await acquireLock(planned.file);
  try {
    return await applyLocked(planned, hooks);
  } finally {
    await lock.release();
  }
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** What changed between the plan shown and the plan made again over the file as it is now, in words. */
export function planChanges(before: PlannedCompaction, after: PlannedCompaction, size: number): string {
  const grown = size - before.basis.size;
  const what =
    grown > 0 ? `${grown} bytes were appended` : grown < 0 ? `it shrank by ${-grown} bytes` : 'it was rewritten';
  const changes: string[] = [];
  const was = new Map(before.plan.rounds.map((r) => [r.index, r]));
  for (const r of after.plan.rounds) {
    if (!r.inContext) continue;
    const old = was.get(r.index);
    if (!old) changes.push(`new round ${r.index}: ${r.action}`);
    else if (old.action !== r.action) changes.push(`round ${r.index}: ${old.action} → ${r.action}`);
  }
  for (const r of before.plan.rounds) if (r.index >= after.plan.rounds.length) changes.push(`round ${r.index} is gone`);
  if (before.plan.preTokens !== after.plan.preTokens || before.plan.postTokens !== after.plan.postTokens) {
    changes.push(
      `about ${before.plan.preTokens} → ${before.plan.postTokens} tokens planned, now ${after.plan.preTokens} → ${after.plan.postTokens}`,
    );
  }
  return `the transcript changed after the plan was made (${what}; is the agent still writing to it?), so it was planned again over the file as it is now and that plan was written: ${changes.length ? changes.join('; ') : 'the rounds planned are the same'}`;
}

/** Applies `planned` (under the session's lock), or the plan made again when the file is no longer what it planned over. */
async function applyLocked(shown: PlannedCompaction, runtime: RuntimeHooks): Promise<CompactResult> {
  const progress = progressOf(runtime);
  let planned = shown;
  let replanned: string | undefined;
  const now = await stat(shown.file);
  if (now.size !== shown.basis.size || now.mtimeMs !== shown.basis.mtimeMs) {
    progress('The transcript changed since it was planned; planning again…');
    // The decisions the user confirmed; the frozen budget decisions as they are now (another compaction may have
    // written them meanwhile).
    const saved = await loadSavedPlanInputs(shown.file);
    const parts: CompactionParts = { ...shown, runtime };
    planned = await planOver(shown, parts, { state: saved.state, decisions: shown.inputs.decisions });
    replanned = planChanges(shown, planned, now.size);
  }
  const result = await writePlan(planned, runtime, replanned, shown.plan);
  return replanned === undefined ? result : { ...result, replanned };
}

/**
 * Summarizes and writes `planned`. The plan applied is a value derived from it (a re-plan's reason, the summary's
 * real size, the written file's measure): the plan shown stays as it was shown.
 */
async function writePlan(
  planned: PlannedCompaction,
  runtime: RuntimeHooks,
  replanned: string | undefined,
  /** The plan the user was shown (confirmed): what the result is measured against. */
  shown: CompactionPlan,
): Promise<CompactResult> {
  const { file, given, analysis } = planned;
  const details: PlanDetails =
    replanned === undefined
      ? planned.details
      : { ...planned.details, plan: withNotes(planned.details.plan, { before: [replanned] }) };
  const agent = analysis.index.format.id;
  const writer = writerFor(agent);
  const target = await resolveOutput(file, given, planned.output, writer.naming(given, planned.facts));
  const prepared = await summarize({ ...planned, details, runtime });
  const built = await writer.build({ file, prepared, target, output: planned.output, facts: planned.facts });
  return writeOut(
    { file, prepared, target, runtime, built: { ...built, writer: writer.writerName, agent } },
    promisedContext(shown),
  );
}

/** The writer of an agent we write back (its capabilities were checked first). */
function writerFor(agent: AgentId): AgentWriter {
  const writer = writerOf(agent);
  if (!writer) throw new CompactError('unsupported-format', `${agentName(agent)} sessions are not written back.`);
  return writer;
}

/** In place, a file that ends in the middle of a line is being written: refuse rather than cut its last line. */
function refuseHalfWrittenTail(file: string, analysis: Analysis, inPlace: boolean, writer: string): void {
  const index = analysis.index;
  const halfWrittenTail = index.unterminatedTail && index.malformed.some((m) => m.line === index.lineCount);
  if (inPlace && halfWrittenTail) {
    throw new CompactError(
      'changed-on-disk',
      `${basename(file)} ends in the middle of a line (is ${writer} still writing to it?). Nothing was written; compact in place when the session is idle, or write a fork.`,
    );
  }
}

/**
 * The summary `compactFile` would write with these options, and the plan it goes with, without writing anything
 * (the first step of a compaction the user reviews: the text can be edited and given back as `summaryText`).
 * `planned` is that plan as settled by the summary and shown (`plan`), to apply as reviewed: `applyCompaction` of
 * `withSummaryText(planned, reviewed)` writes it, or plans again and says so when the file changed meanwhile.
 */
export async function draftSummary(
  file: string,
  options: CompactOptions,
): Promise<{
  summary: string;
  summarizer: CompactResult['summarizer'];
  attempts: AttemptRecord[];
  /** The plan settled by the summary drafted: `planned.plan`. */
  plan: CompactionPlan;
  /** What settling the plan by the summary drafted changed (its size against its reserve, rounds it left out). */
  settled: PlanSettlement;
  /** The context after as the plan promised it before the summary was written (with its reserve). */
  promised: ContextAfter;
  fidelity?: FidelityReport;
  facts?: Fact[];
  planned: PlannedCompaction;
}> {
  const parts = splitOptions(options);
  // Writes nothing, so it takes no lock (a draft may be made while a compaction of the session runs).
  const planned = await planWithSaved(await compactedFile(file, parts.runtime), parts);
  const promised = promisedContext(planned.plan);
  const { made, summary, details, settled, fidelity, facts } = await summarize(planned);
  return {
    summary,
    summarizer: made.summarizer,
    attempts: made.attempts,
    plan: details.plan,
    settled,
    promised,
    fidelity,
    facts,
    planned: { ...planned, details, plan: details.plan },
  };
}

/** The plan with the lines it needs loaded: planned, refused when there is nothing to do, sized for a given summary. */
async function planLoaded(
  file: string,
  analysis: Analysis,
  inputs: ResolvedPlanInputs,
  parts: CompactionParts,
): Promise<{ details: PlanDetails; loaded: Loaded }> {
  const firstPlan = await planOrRefuse(analysis, inputs);
  const wrongAgent =
    inputs.summaryText === undefined ? agentCliRefusal(parts.summarizer.summarizer, analysis.index.format.id) : null;
  if (wrongAgent) throw new CompactError('wrong-summarizer', wrongAgent);
  checkCancelled(parts.runtime.signal);
  const offline = isOffline(inputs, parts.summarizer);
  const loaded = await loadForSummary(file, analysis, firstPlan, offline);
  checkCancelled(parts.runtime.signal);
  const details =
    inputs.summaryText === undefined
      ? firstPlan
      : await reserveForGivenSummary(analysis, firstPlan, inputs, inputs.summaryText);
  return { details, loaded: await withNewlyKept(file, analysis, details, loaded) };
}

async function planOrRefuse(analysis: Analysis, inputs: ResolvedPlanInputs): Promise<PlanDetails> {
  const first = await planOf(analysis, inputs);
  const plan = first.plan;
  if (plan.nothingToDo && inputs.summaryText === undefined) {
    if (plan.rounds.some((r) => r.by === 'user')) {
      throw new CompactError(
        'nothing-to-compact',
        `Nothing to compact: your choices keep every round of the active context (about ${plan.preTokens} tokens) and no tool result changes; drop or summarize a round, or clear your decisions.`,
      );
    }
    throw new CompactError(
      'nothing-to-compact',
      `Nothing to compact: the transcript's active context is about ${plan.preTokens} tokens (plus about ${plan.overheadTokens} of system prompt and tools), already within the ${plan.settings.targetTokens}-token target.`,
    );
  }
  return first;
}

/**
 * The plan reserves `summaryTokens` for a summary it has not seen yet. A text the user gave can be measured first: plan
 * again with its size, so a text larger than the reserve gets the room it needs and room a shorter one does not need
 * goes to recent rounds kept verbatim (newly kept lines are read again: `withNewlyKept`).
 */
async function reserveForGivenSummary(
  analysis: Analysis,
  first: PlanDetails,
  inputs: ResolvedPlanInputs,
  given: string,
): Promise<PlanDetails> {
  // Headroom of 5% of the transcript budget: what Claude Code actually sends differs a little
  // from the estimate (reminders it adds, whitespace it trims).
  const need =
    Math.ceil(summaryRoundTokens(given, first.calibration) * 1.1) + 50 + Math.round(first.plan.messageTarget * 0.05);
  if (need === first.plan.settings.summaryTokens) return first;
  return planOf(analysis, { ...inputs, settings: { ...(inputs.settings ?? {}), summaryTokens: need } });
}
