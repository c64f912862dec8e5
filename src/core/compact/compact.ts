// Compact Transcript: plan, summarize (Anthropic or offline; summary.ts), write back atomically with a
// backup, and verify the result resumes, or write nothing at all. In phases: prepare (read, plan, load the lines,
// write the summary), then writeOut (build the lines, validate a temp file, save sidecars, commit).
import { chmod, lstat, realpath, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { createReadStream } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { inspectFile, type Analysis } from '../inspect';
import { loadEntryObjects, RawBytes } from './lines';
import { unsupportedReason } from '../formats/types';
import { compactCodexLocked } from './codex';
import { planDetails, summaryRoundTokens, type PlanDetails } from './plan';
import { CompactError, type AttemptRecord, type CompactResult, type CompactSettings, type ProgressReporter, type WrittenSidecars } from './types';
import { shapeForExtractive } from './summarize/extractive';
import { contentText, earlierSummaryOf, givenSummary, makeSummary, offlineSummary, summaryCharBudget, type EarlierSummary, type SummaryOutcome } from './summary';
import { buildAppendedLines } from './writeback';
import { acquireLock, sameFile, writeTemp } from './fsutil';
import { statePath } from './state';
import { checkResumable } from './validate';
import { recordSidecars, snapshotSidecars } from './sidecars';
import type { UserDecisions } from './decisions';
import { resumeCommand } from './resume';
import { commitOutput, exists, missingSavedOriginals, restorer, saveOriginals, saveState, streamOutput } from './commit';
import { messageContent, type JsonObject } from '../json';
import { summaryFidelity, type FidelityReport } from './fidelity';
import { readSessionInfo, sessionIdFromFile } from '../session';

export interface CompactOptions {
  settings?: Partial<CompactSettings>;
  summarizer: 'extractive' | 'anthropic';
  anthropic?: { apiKey?: string; model?: string; baseURL?: string; maxTokens?: number; timeoutMs?: number; maxRetries?: number };
  /** Output path; by default a fork: a new session `<new-uuid>.jsonl` beside the original. */
  out?: string;
  /** Replace the original after a backup. */
  inPlace?: boolean;
  /** Allow `out` to replace an existing file (never the original, never a file of another session). */
  force?: boolean;
  /** Write only the compacted conversation, without the original lines before it. */
  fresh?: boolean;
  signal?: AbortSignal;
  onProgress?: ProgressReporter;
  /** The Anthropic summarizer's reply so far, as it streams (see `AnthropicOptions.onText`). */
  onSummaryText?: (replySoFar: string) => void;
  instructions?: string;
  /** The user's decisions (decisions.ts); by default the ones saved with the session. */
  decisions?: UserDecisions;
  /** The summary to write, used exactly as given instead of one the summarizer writes (the plan makes room for it). */
  summaryText?: string;
}

export { DEFAULT_MODEL } from './summary';

/** The progress message of the last step (see `CompactOptions.onProgress`). */
export const COMMITTING = 'Committing the result…';

interface OutputTarget {
  out: string;
  mode: CompactResult['mode'];
  /** Session id the result is resumed by: the fork's new id, else the file name when it is a UUID. */
  sessionId: string | null;
  /** A new id to write on the appended lines (forks only). */
  newSessionId?: string;
}

async function resolveOutput(file: string, options: CompactOptions): Promise<OutputTarget> {
  if (options.inPlace) return { out: file, mode: 'in-place', sessionId: sessionIdFromFile(file) };
  if (options.out === undefined) {
    const id = randomUUID();
    return { out: join(dirname(file), `${id}.jsonl`), mode: 'fork', sessionId: id, newSessionId: id };
  }
  const out = await checkOutputPath(options.out, file, options.force === true);
  return { out, mode: 'out', sessionId: sessionIdFromFile(out) };
}

/**
 * An explicit output path, resolved, when it may be written: never the original, and an existing file only with
 * `force` and only when it is an earlier Agent Compactor output.
 */
export async function checkOutputPath(path: string, file: string, force: boolean): Promise<string> {
  const out = resolve(path);
  if (await sameFile(out, file)) throw new CompactError('unsafe-path', 'The output would overwrite the original; use in-place mode (it keeps a backup) or another output path.');
  const existing = await lstat(out).catch(() => null);
  if (existing) {
    if (!force) throw new CompactError('exists', `${out} already exists; nothing was written. Choose another output path, or use --force to replace an earlier Agent Compactor output.`);
    if (!existing.isFile() || !(await isOurOutput(out))) {
      throw new CompactError('exists', `${out} exists and is not an Agent Compactor output, so it is not replaced even with --force; nothing was written.`);
    }
  }
  return out;
}

/** True when `path` holds a compact_boundary that Agent Compactor wrote (streamed; never the whole file in memory). */
export async function isOurOutput(path: string): Promise<boolean> {
  const needle = Buffer.from('"compactor":"agent-compactor"');
  let tail = Buffer.alloc(0);
  for await (const chunk of createReadStream(path)) {
    const buf = Buffer.concat([tail, chunk as Buffer]);
    if (buf.includes(needle)) return true;
    tail = buf.subarray(Math.max(0, buf.length - needle.length));
  }
  return false;
}

export function checkCancelled(signal?: AbortSignal): void {
  if (signal?.aborted) throw new CompactError('cancelled', 'Compaction cancelled; nothing was written.');
}

export async function compactFile(file: string, options: CompactOptions): Promise<CompactResult> {
  file = resolve(file);
  const progress = options.onProgress ?? (() => undefined);
  const st = await lstat(file);
  if (st.isSymbolicLink()) {
    // Resolve deliberately: compact the real file, and say so.
    const real = await realpath(file);
    progress(`${file} is a symbolic link; compacting its target ${real}`);
    file = real;
  }
  const lock = await acquireLock(file);
  try {
    return await compactLocked(file, options, progress);
  } finally {
    await lock.release();
  }
}

/** Everything read and decided before anything is written: the plan, the loaded lines and the summary. */
interface Prepared {
  analysis: Analysis;
  readSize: number;
  readMtime: number;
  details: PlanDetails;
  objects: Map<number, JsonObject>;
  /** Carries bytes that are not UTF-8 in written lines through to the output. */
  rawBytes: RawBytes;
  made: SummaryOutcome;
  /** The summary text to write (clipped to its reserve unless given verbatim or quoting an earlier one whole). */
  summary: string;
  /** What the summary keeps of the summarized rounds' facts; undefined when none were summarized. */
  fidelity?: FidelityReport;
}

async function compactLocked(file: string, options: CompactOptions, progress: ProgressReporter): Promise<CompactResult> {
  checkCancelled(options.signal);
  progress('Reading transcript…');
  const analysis = await inspectFile(file, { subagents: false });
  const refusal = unsupportedReason(analysis.index.format);
  if (refusal) throw new CompactError('unsupported-format', `${basename(file)}: ${refusal} Nothing was written.`);
  if (analysis.index.format.id === 'codex') return compactCodexLocked(file, analysis, options, progress);
  const target = await resolveOutput(file, options);
  const index = analysis.index;
  const halfWrittenTail = index.unterminatedTail && index.malformed.some((m) => m.line === index.lineCount);
  if (target.mode === 'in-place' && halfWrittenTail) {
    throw new CompactError('changed-on-disk', `${basename(file)} ends in the middle of a line (is an agent still writing to it?). Nothing was written; compact in place when the session is idle, or write a fork.`);
  }
  const prepared = await prepare(file, analysis, options, progress);
  return writeOut(file, prepared, target, options, progress);
}

/**
 * The summary `compactFile` would write with these options, and the plan it goes with, without writing anything
 * (the first step of a compaction the user reviews: the text can be edited and given back as `summaryText`).
 */
export async function draftSummary(
  file: string,
  options: CompactOptions,
): Promise<{ summary: string; summarizer: CompactResult['summarizer']; attempts: AttemptRecord[]; plan: PlanDetails['plan']; fidelity?: FidelityReport }> {
  file = resolve(file);
  const progress = options.onProgress ?? (() => undefined);
  checkCancelled(options.signal);
  progress('Reading transcript…');
  const analysis = await inspectFile(file, { subagents: false });
  if (analysis.index.format.id !== 'claude-code') throw new CompactError('unsupported-format', `${basename(file)}: a summary can be drafted for review only for Claude Code sessions so far (this is a ${analysis.index.format.agent} session).`);
  const { made, summary, details, fidelity } = await prepare(file, analysis, options, progress);
  return { summary, summarizer: made.summarizer, attempts: made.attempts, plan: details.plan, fidelity };
}

async function prepare(file: string, analysis: Analysis, options: CompactOptions, progress: ProgressReporter): Promise<Prepared> {
  const readSize = analysis.index.size;
  const readMtime = analysis.index.mtimeMs;
  const firstPlan = await planOrRefuse(analysis, options);
  checkCancelled(options.signal);
  const loaded = await loadForSummary(file, analysis, firstPlan, options);
  checkCancelled(options.signal);
  const details = await settlePlan(file, analysis, firstPlan, loaded, options);
  const summarized = summarizedRounds(analysis, details);
  const made = options.summaryText !== undefined ? givenSummary(options.summaryText) : await makeSummary(analysis, details, summarized, loaded.earlier, loaded.objects, options, progress);
  checkCancelled(options.signal);
  const summaryChars = Math.max(summaryCharBudget(details.plan.settings.summaryTokens, details.calibration), made.protectedChars + 2_000);
  let summary = made.summary;
  if (made.verbatimContent === undefined && summary.length > summaryChars && made.protectedChars < summary.length) summary = summary.slice(0, summaryChars) + '\n[summary clipped to fit the target]';
  const plan = details.plan;
  for (const ri of made.dropped) {
    plan.rounds[ri] = { ...plan.rounds[ri], action: 'drop', by: 'plan', reason: 'cut from the summary request by a prompt-too-long retry (not summarized)' };
  }
  plan.droppedRounds += made.dropped.length;
  plan.summarizedRounds -= made.dropped.length;
  plan.postTokens = plan.keptTokens + Math.round(summaryRoundTokens(summary, details.calibration || 1));
  const measured = summarized.filter((ri) => !made.dropped.includes(ri));
  const span = measured
    .flatMap((ri) => analysis.rounds[ri].entries)
    .map((e) => loaded.objects.get(e))
    .filter((o): o is JsonObject => o !== undefined);
  const fidelity = made.summarizer === 'none' || !span.length ? undefined : summaryFidelity(span, summary);
  return { analysis, readSize, readMtime, details, objects: loaded.objects, rawBytes: loaded.rawBytes, made, summary, fidelity };
}

async function planOrRefuse(analysis: Analysis, options: CompactOptions): Promise<PlanDetails> {
  const first = await planDetails(analysis, options.settings, undefined, options.decisions);
  const plan = first.plan;
  if (plan.nothingToDo && options.summaryText === undefined) {
    if (plan.rounds.some((r) => r.by === 'user')) {
      throw new CompactError('nothing-to-compact', `Nothing to compact: your choices keep every round of the active context (about ${plan.preTokens} tokens) and no tool result changes; drop or summarize a round, or clear your decisions.`);
    }
    throw new CompactError('nothing-to-compact', `Nothing to compact: the transcript's active context is about ${plan.preTokens} tokens (plus about ${plan.overheadTokens} of system prompt and tools), already within the ${plan.settings.targetTokens}-token target.`);
  }
  return first;
}

function summarizedRounds(analysis: Analysis, d: PlanDetails): number[] {
  return analysis.rounds.filter((r) => r.inContext && d.plan.rounds[r.index].action === 'summarize').map((r) => r.index);
}

interface Loaded {
  objects: Map<number, JsonObject>;
  earlier: EarlierSummary | null;
  /** Entries loaded whole (written as they are). */
  written: Set<number>;
  rawBytes: RawBytes;
}

async function loadForSummary(file: string, analysis: Analysis, firstPlan: PlanDetails, options: CompactOptions): Promise<Loaded> {
  const active = analysis.rounds.filter((r) => r.inContext).map((r) => r.index);
  const earlierAt = earlierSummaryOf(analysis, active);
  const needed = new Set<number>();
  for (const ri of [...summarizedRounds(analysis, firstPlan), ...firstPlan.kept]) for (const e of analysis.rounds[ri].entries) needed.add(e);
  if (analysis.chain.leaf >= 0) needed.add(analysis.chain.leaf);
  if (earlierAt) needed.add(earlierAt.entry);
  // Lines that are only summarized are cut down to what the summarizer reads as each is parsed (the offline summary
  // reads little; the Anthropic one reads the text, not Claude Code's `toolUseResult` copies). Written lines and the
  // earlier summary stay whole.
  const offline = isOffline(options);
  const written = new Set<number>(firstPlan.kept.flatMap((ri) => analysis.rounds[ri].entries));
  if (analysis.chain.leaf >= 0) written.add(analysis.chain.leaf);
  if (earlierAt) written.add(earlierAt.entry);
  const forSummary = (o: JsonObject, i: number) => {
    if (written.has(i)) return o;
    if (offline) return shapeForExtractive(o);
    delete o.toolUseResult;
    return o;
  };
  const rawBytes = new RawBytes(written);
  const objects = await loadEntryObjects(file, analysis.index.entries, [...needed], forSummary, rawBytes);
  const earlier: EarlierSummary | null = earlierAt
    ? { ...earlierAt, content: messageContent(objects.get(earlierAt.entry)), text: contentText(messageContent(objects.get(earlierAt.entry))) }
    : null;
  return { objects, earlier, written, rawBytes };
}

function isOffline(options: CompactOptions): boolean {
  return options.summaryText !== undefined || options.summarizer === 'extractive' || !options.anthropic?.apiKey;
}

/** The plan with the summary's real size when it can be known first (offline or given); re-reads newly kept lines whole. */
async function settlePlan(file: string, analysis: Analysis, firstPlan: PlanDetails, loaded: Loaded, options: CompactOptions): Promise<PlanDetails> {
  const draft = options.summaryText ?? (isOffline(options) ? offlineDraft(analysis, firstPlan, loaded) : null);
  const details = draft === null ? firstPlan : await reclaimSummaryReserve(analysis, firstPlan, options, draft);
  const nowKept = details.kept.flatMap((ri) => analysis.rounds[ri].entries).filter((e) => !loaded.written.has(e));
  for (const e of nowKept) loaded.written.add(e);
  if (nowKept.length) for (const [i, o] of await loadEntryObjects(file, analysis.index.entries, nowKept, undefined, loaded.rawBytes)) loaded.objects.set(i, o);
  return details;
}

function offlineDraft(analysis: Analysis, first: PlanDetails, loaded: Loaded): string | null {
  const summarized = summarizedRounds(analysis, first);
  if (summarized.length === 0) return null;
  return offlineSummary(analysis, summarized, loaded.earlier, loaded.objects, summaryCharBudget(first.plan.settings.summaryTokens, first.calibration)).summary;
}

async function writeOut(file: string, prepared: Prepared, target: OutputTarget, options: CompactOptions, progress: ProgressReporter): Promise<CompactResult> {
  const { readSize, details, made, summary } = prepared;
  const plan = details.plan;
  const built = await buildOutput(file, prepared, target);
  progress('Writing the compacted transcript…');
  const out = target.out;
  const appended = prepared.rawBytes.encode(built.lines.join('\n') + '\n');
  if (prepared.rawBytes.lossy) plan.notes.push(`${prepared.rawBytes.escapedLines} kept line(s) hold bytes that are not UTF-8 beside text that looks like an escaped byte, so those bytes were written as U+FFFD`);
  const tmp = await writeTemp(out, streamOutput(file, readSize, appended, options.fresh === true));
  let backup: string | null;
  let toolDir: string | null;
  let carriedOverBytes: number;
  const undo: (() => Promise<unknown>)[] = [];
  const sidecarsWritten: WrittenSidecars = { toolResults: [], toolResultsDirCreated: false, stateCreated: false };
  try {
    // The result keeps the original's permissions.
    await chmod(tmp, (await stat(file)).mode & 0o777);
    await validateOutput(tmp, prepared, built.leafUuid, options);
    checkCancelled(options.signal);

    // Sidecars before this run, recorded with an in-place backup so Restore puts them back (sidecars.ts).
    const sidecarsBefore = options.inPlace ? await snapshotSidecars(file) : null;
    // Full originals of newly replaced results, then the decisions, then the transcript itself.
    toolDir = await saveOriginals(file, details, undo, sidecarsWritten);
    for (const note of missingSavedOriginals(file, details)) plan.notes.push(note);
    sidecarsWritten.stateCreated = !(await exists(statePath(out)));
    undo.push(await restorer(statePath(out)));
    await saveState(out, details);
    progress(COMMITTING);
    checkCancelled(options.signal);
    ({ backup, carriedOverBytes } = await commitOutput(
      {
        file,
        tmp,
        mode: target.mode,
        out,
        readSize,
        readMtime: prepared.readMtime,
        writer: 'an agent',
        afterBackup: (made) => recordSidecars(file, made, sidecarsBefore!),
        progress,
      },
      plan.notes,
    ));
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    // A run that fails or is cancelled after the sidecars were written puts them back as they were, newest first:
    // a new state file left behind would steer the next compaction while this one says "nothing was written".
    for (const step of undo.reverse()) await step().catch(() => undefined);
    throw err;
  }
  const { cwd } = built;
  return {
    output: out,
    mode: target.mode,
    sessionId: target.sessionId,
    cwd,
    resumeCommand: resumeCommand(cwd, target.sessionId),
    summarizer: made.summarizer,
    carriedOverBytes,
    backup,
    preTokens: plan.preTokens,
    postTokens: plan.postTokens,
    attempts: made.attempts,
    plan,
    summaryChars: summary.length,
    toolResultsDir: toolDir,
    sidecarsWritten,
    ...(prepared.fidelity ? { fidelity: prepared.fidelity } : {}),
  };
}

async function buildOutput(file: string, prepared: Prepared, target: OutputTarget): Promise<ReturnType<typeof buildAppendedLines> & { cwd: string | null }> {
  const { analysis, readSize, details, made, summary, objects } = prepared;
  const plan = details.plan;
  const lastPrompt = await lastPromptOf(file, analysis);
  // Where the session was started (the folder that names its project folder), not where its last command ran.
  const { cwd } = await readSessionInfo(file, { projectFolder: basename(dirname(resolve(file))) });
  const seed = `${basename(file)}:${readSize}:${analysis.chain.leaf >= 0 ? analysis.index.entries[analysis.chain.leaf].uuid : ''}:${JSON.stringify(plan.settings)}:${target.newSessionId ?? ''}`;
  const built = buildAppendedLines({
    analysis,
    details,
    summary,
    protectedChars: made.protectedChars,
    verbatimContent: made.verbatimContent,
    sessionId: target.newSessionId,
    objects,
    seed,
    preTokens: plan.preTokens,
    postTokens: plan.postTokens,
    lastPrompt,
    now: new Date(),
  });
  return { ...built, cwd };
}

/** Checks the written temp file resumes; refuses a result that is invalid or no smaller. */
async function validateOutput(tmp: string, prepared: Prepared, leafUuid: string, options: CompactOptions): Promise<void> {
  const { analysis, readSize, details } = prepared;
  const plan = details.plan;
  const check = await checkResumable(tmp, { targetTokens: plan.messageTarget, calibration: details.calibration, expectLeaf: leafUuid, expectSummaryFirst: true, prefix: options.fresh ? undefined : { index: analysis.index, bytes: readSize } });
  const overTarget = check.problems.filter((p) => /over the .*target/.test(p));
  const fatal = check.problems.filter((p) => !/over the .*target/.test(p));
  if (fatal.length) throw new CompactError('invalid-output', `The compacted transcript failed validation, so nothing was written: ${fatal.slice(0, 3).join('; ')}`);
  if (check.estimatedTokens >= plan.preTokens) {
    throw new CompactError('nothing-to-compact', `Nothing to gain: the compacted context would be about ${check.estimatedTokens} tokens, not smaller than the ${plan.preTokens} it holds now (the summary and its framing cost more than they save). Nothing was written.`);
  }
  if (overTarget.length) plan.notes.push(`after summarizing, the result is about ${check.estimatedTokens} tokens: over the target (${plan.conflicts.length || plan.rounds.some((r) => r.by === 'user') ? 'the rounds kept by your choices and the newest ones' : 'the newest rounds alone'} are too large)`);
  plan.postTokens = check.estimatedTokens;
}

async function lastPromptOf(file: string, analysis: Analysis): Promise<{ text: string | null } | null> {
  const entries = analysis.index.entries;
  let at = -1;
  for (let i = entries.length - 1; i >= 0; i--) if (entries[i].kind === 'last-prompt') { at = i; break; }
  if (at < 0) return null;
  const lp = (await loadEntryObjects(file, entries, [at])).get(at);
  return { text: typeof lp?.lastPrompt === 'string' ? lp.lastPrompt : null };
}

/**
 * The plan reserves `summaryTokens` for a summary it has not seen yet. The offline summary (or the text the user
 * gave) can be measured first: plan again with its real size, so room it does not need goes to recent rounds kept
 * verbatim (every round the new plan keeps was loaded for the first one; newly kept lines are read again), and a
 * given text larger than the reserve gets the room it needs.
 */
async function reclaimSummaryReserve(analysis: Analysis, first: PlanDetails, options: CompactOptions, draft: string): Promise<PlanDetails> {
  const settings = first.plan.settings;
  const given = options.summaryText !== undefined;
  // Headroom of 5% of the transcript budget: what Claude Code actually sends differs a little
  // from the estimate (reminders it adds, whitespace it trims).
  const need = Math.ceil(summaryRoundTokens(draft, first.calibration) * 1.1) + 50 + Math.round(first.plan.messageTarget * 0.05);
  if (need === settings.summaryTokens || (!given && need > settings.summaryTokens)) return first;
  const second = await planDetails(analysis, { ...(options.settings ?? {}), summaryTokens: need }, first.state, options.decisions);
  if (!given && (second.kept.length <= first.kept.length || second.plan.nothingToDo)) return first;
  if (given) return second;
  second.plan.notes.push(`the offline summary needs about ${need} tokens, so the ${settings.summaryTokens}-token reserve was lowered and ${second.kept.length - first.kept.length} more recent rounds are kept verbatim`);
  return second;
}
