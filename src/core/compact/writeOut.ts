// Writing a compaction's output: the agent's writer's output to a temp file, checked as the agent reads it, then the
// sidecars (saved tool results, the budget state) and the commit (commit.ts), each undone when a later step fails.
// The plan written is the prepared one settled by the written file (settle.ts), a new value.
import { chmod, stat, unlink } from 'node:fs/promises';
import type { Analysis } from '../analysis';
import type { AgentId } from '../formats/registry';
import type { BuiltOutput, OutputTarget, PreparedOutput } from '../formats/writer';
import { summaryRoundTokens, type PlanDetails } from './planBase';
import type { RuntimeHooks } from './options';
import { deliveredContext } from './promise';
import { settleWritten } from './settle';
import {
  CompactError,
  type CompactionPlan,
  type CompactResult,
  type ContextAfter,
  type ProgressReporter,
  type WrittenSidecars,
} from './types';
import { exists, newTally, tallied, writeTemp } from '../io/atomic';
import { statePath } from './state';
import { recordSidecars, snapshotSidecars } from './sidecars';
import { resumeFields } from '../resume';
import { commitOutput } from '../io/commit';
import { missingSavedOriginals, restorer, saveOriginals, saveState } from './outputFiles';
import { reannouncedOnResume } from '../context';

/** The progress message of the last step (see `RuntimeHooks.onProgress`). */
export const COMMITTING = 'Committing the result…';

export function checkCancelled(signal?: AbortSignal): void {
  if (signal?.aborted) throw new CompactError('cancelled', 'Compaction cancelled; nothing was written.');
}

/** Where a run's progress goes (nowhere when it is not watched). */
export function progressOf(runtime: RuntimeHooks): ProgressReporter {
  return runtime.onProgress ?? (() => undefined);
}

/** What `writeOut` writes: the prepared output built by the agent's writer, to the target, watched by `runtime`. */
export interface WriteJob {
  file: string;
  prepared: PreparedOutput;
  target: OutputTarget;
  runtime: RuntimeHooks;
  built: BuiltOutput & { writer: string; agent: AgentId };
}

/** The sidecars and transcript as written by `commitWritten`, and the plan settled by the written file. */
interface Committed {
  plan: CompactionPlan;
  backup: string | null;
  toolDir: string | null;
  carriedOverBytes: number;
  delivered: ContextAfter;
  sidecarsWritten: WrittenSidecars;
}

/** Writes the prepared output to a temp file, checks it, writes the sidecars and commits; or writes nothing at all. */
export async function writeOut(job: WriteJob, promised: ContextAfter): Promise<CompactResult> {
  const { prepared, target, built } = job;
  progressOf(job.runtime)('Writing the compacted transcript…');
  // Hashed as it is written: Undo deletes a fork only while it is still these bytes, and puts an in-place
  // compaction's backup back only while the session still is (nothing added since).
  const output = newTally();
  const tmp = await writeTemp(target.out, tallied(built.chunks, output));
  const undo: (() => Promise<unknown>)[] = [];
  let committed: Committed;
  try {
    committed = await commitWritten(job, tmp, undo);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    // A run that fails or is cancelled after the sidecars were written puts them back as they were, newest first:
    // a new state file left behind would steer the next compaction while this one says "nothing was written".
    for (const step of undo.reverse()) await step().catch(() => undefined);
    throw err;
  }
  const { plan, made } = { plan: committed.plan, made: prepared.made };
  return {
    output: target.out,
    mode: target.mode,
    sessionId: target.sessionId,
    cwd: built.cwd,
    ...resumeFields(built.agent, built.cwd, target.sessionId),
    agent: built.agent,
    summarizer: made.summarizer,
    carriedOverBytes: committed.carriedOverBytes,
    backup: committed.backup,
    preTokens: plan.preTokens,
    postTokens: plan.postTokens,
    attempts: made.attempts,
    plan,
    summaryChars: prepared.summary.length,
    summaryDetail: plan.settings.summaryDetail,
    toolResultsDir: committed.toolDir,
    sidecarsWritten: committed.sidecarsWritten,
    outputSha256: output.hash.digest('hex'),
    outputSize: output.bytes,
    ...(prepared.fidelity ? { fidelity: prepared.fidelity } : {}),
    promised,
    delivered: committed.delivered,
  };
}

/**
 * Checks the written temp file, then writes the sidecars (each with its `undo` step) and commits the transcript. The
 * plan it returns is the prepared one settled by the written file: its measured size and the notes of the run.
 */
async function commitWritten(job: WriteJob, tmp: string, undo: (() => Promise<unknown>)[]): Promise<Committed> {
  const { file, prepared, target, runtime, built } = job;
  const { details } = prepared;
  const progress = progressOf(runtime);
  const sidecarsWritten: WrittenSidecars = {
    toolResults: [],
    toolResultSha256: {},
    toolResultsDirCreated: false,
    stateCreated: false,
  };
  // The result keeps the original's permissions.
  await chmod(tmp, (await stat(file)).mode & 0o777);
  const notes = [...built.notes];
  const check = await built.check(tmp);
  const plan = details.plan;
  notes.push(...acceptEstimate(plan, check, resentUncompacted(prepared.analysis, details)));
  // The summary line as written, sized as the plan sizes its reserve.
  const summaryTokens = Math.round(summaryRoundTokens(built.summary, details.calibration || 1));
  const delivered = deliveredContext(plan, summaryTokens, check.estimatedTokens);
  checkCancelled(runtime.signal);

  // Sidecars before this run, recorded with an in-place backup so Restore puts them back (sidecars.ts).
  const sidecarsBefore = target.mode === 'in-place' ? await snapshotSidecars(file) : null;
  // Full originals of newly replaced results, then the decisions, then the transcript itself.
  const toolDir = await saveOriginals(file, details, undo, sidecarsWritten);
  notes.push(...missingSavedOriginals(file, details));
  sidecarsWritten.stateCreated = !(await exists(statePath(target.out)));
  undo.push(await restorer(statePath(target.out)));
  await saveState(target.out, details);
  progress(COMMITTING);
  checkCancelled(runtime.signal);
  const { backup, carriedOverBytes } = await commitOutput(
    {
      file,
      tmp,
      mode: target.mode,
      out: target.out,
      readSize: prepared.readSize,
      readMtime: prepared.readMtime,
      writer: built.writer,
      afterBackup: (made) => recordSidecars(file, made, sidecarsBefore!),
      progress,
    },
    notes,
  );
  const settled = settleWritten(plan, check.estimatedTokens, notes);
  return { plan: settled, backup, toolDir, carriedOverBytes, delivered, sidecarsWritten };
}

/**
 * What a resume of the file as it is would send again beyond its transcript: the session-start context its active
 * rounds do not hold (today's agent announces it to an old session as much as to our result).
 */
function resentUncompacted(analysis: Analysis, details: PlanDetails): number {
  const active = new Set(analysis.rounds.filter((r) => r.inContext).map((r) => r.index));
  return reannouncedOnResume(
    analysis.index.entries,
    analysis.rounds,
    active,
    details.calibration || 1,
    details.announced,
  );
}

/**
 * Refuses a result that is no smaller than a resume of the original would be (its transcript, and what the agent
 * sends again with it: `resentNow`); the note of one over the target.
 */
function acceptEstimate(
  plan: CompactionPlan,
  check: { estimatedTokens: number; overTarget: boolean },
  resentNow: number,
): string[] {
  if (check.estimatedTokens >= plan.preTokens + resentNow) {
    throw new CompactError(
      'nothing-to-compact',
      `Nothing to gain: the compacted context would be about ${check.estimatedTokens} tokens, not smaller than the ${plan.preTokens + resentNow} it holds now${resentNow ? ` (with the ${resentNow} the agent sends again on resume)` : ''} (the summary and its framing cost more than they save). Nothing was written.`,
    );
  }
  if (!check.overTarget) return [];
  return [
    `after summarizing, the result is about ${check.estimatedTokens} tokens: over the target (${plan.conflicts.length || plan.rounds.some((r) => r.by === 'user') ? 'the rounds kept by your choices and the newest ones' : 'the newest rounds alone'} are too large)`,
  ];
}
