// Writing a compacted session back, for the agents we write (registered in writers.ts): the pipeline (compact.ts:
// plan, decisions, summary, sidecars, commit) is the same for every agent; each agent's writer names the output,
// reads what its output needs from the file, and builds the output with the check of it as the agent reads it.
// The engine-facing half of an agent module (formats/agent.ts is the reading half, below the engine).
import type { Analysis } from '../analysis';
import type { RawBytes } from '../lines';
import type { OutputOptions } from '../compact/options';
import type { PlanDetails } from '../compact/planBase';
import type { Fact, FidelityReport } from '../compact/fidelity';
import type { SummaryOutcome } from '../compact/summary';
import type { CompactResult } from '../compact/types';
import type { PlanSettlement } from '../compact/settle';
import type { JsonObject } from '../json';

/** Where a compaction's result goes, and the session id it is resumed by. */
export interface OutputTarget {
  out: string;
  mode: CompactResult['mode'];
  /** Session id the result is resumed by: the fork's new id, else the file name when it is a UUID. */
  sessionId: string | null;
  /** A new id to write into the result (forks, and Codex `--out` files). */
  newSessionId?: string;
}

/** How an agent names a compaction's output. */
export interface OutputNaming {
  /** The id the original is resumed by (kept in place). */
  inPlaceId: string | null;
  /** A fork's file name for its new id. */
  forkName: (id: string) => string;
  /** An `--out` file gets a new id too (Codex finds a rollout by the id in it; Claude Code by the file name). */
  outGetsNewId: boolean;
}

/** Everything read and decided before anything is written: the plan, the loaded lines and the summary. */
export interface PreparedOutput {
  analysis: Analysis;
  readSize: number;
  readMtime: number;
  /** The plan settled by the summary (settle.ts): the one written. */
  details: PlanDetails;
  /** What settling the plan by the summary changed. */
  settled: PlanSettlement;
  objects: Map<number, JsonObject>;
  /** Carries bytes that are not UTF-8 in written lines through to the output. */
  rawBytes: RawBytes;
  made: SummaryOutcome;
  /** The summary text to write (clipped to its reserve unless given verbatim or quoting an earlier one whole). */
  summary: string;
  /** What the summary keeps of the summarized rounds' facts; undefined when none were summarized. */
  fidelity?: FidelityReport;
  /** The summarized rounds' facts (spanFacts), to measure an edited summary against; undefined with fidelity. */
  facts?: Fact[];
}

/** One agent's compacted file, to be written to a temp file, checked, then committed (the same way for every agent). */
export interface BuiltOutput {
  chunks: AsyncIterable<Buffer | string>;
  /** Checks the written temp file as the agent will read it (throws 'invalid-output'); its estimated context. */
  check: (tmp: string) => Promise<{ estimatedTokens: number; overTarget: boolean }>;
  /** The folder the written session is resumed in. */
  cwd: string | null;
  /** The summary as written (clipped to fit the target when it had to be). */
  summary: string;
  /** What building the output found for the plan's notes (e.g. bytes written as U+FFFD); in order. */
  notes: readonly string[];
}

/** What the output of an agent's compaction is made from: the file, what was prepared, where it goes. */
export interface WriteInput<Facts> {
  file: string;
  prepared: PreparedOutput;
  target: OutputTarget;
  output: OutputOptions;
  /** What `prepare` read of the file. */
  facts: Facts;
}

/** An agent we write back. `Facts`: what its output needs from the file, read once before planning. */
export interface AgentWriter<Facts = unknown> {
  /** Who may be writing the session, in messages ("is an agent still writing to it?", "is Codex …"). */
  readonly writerName: string;
  /** A fork's file name as the confirmation shows it before the id exists ('<new-id>.jsonl'). */
  readonly forkPattern: string;
  /** What the output needs from the file (ids, ranges); throws a CompactError when the file cannot be written back. */
  prepare(file: string, analysis: Analysis): Promise<Facts>;
  /** How the output is named; `given` is the path the user named (a symbolic link unresolved). */
  naming(given: string, facts: Facts): OutputNaming;
  /**
   * The output and the check of it as the agent reads it. Two things every output holds, whatever the agent:
   * - the mark `"compactor":"agent-compactor"` (those bytes, in the record of the compaction): compact.ts
   *   `isOurOutput` looks for it before undo deletes a fork or an output file, and before `--out --force` overwrites
   *   one; a boundary whose `compactMetadata.compactor` says so is read as ours (entries.ts `compactRecordOf`);
   * - kept records under fresh message ids wherever the original's records stay in the file (in place, or a fork
   *   that copies the original's lines): rounds are grouped by message id across the whole file (rounds.ts
   *   `buildRounds`), so a copy under its original's id would join the original's round, before the compaction.
   */
  build(input: WriteInput<Facts>): Promise<BuiltOutput>;
}
