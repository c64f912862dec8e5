// Pure data describing a compaction: what happens to each round and each tool result, and
// the token figures before and after. The CLI prints it, the extension draws it, apply runs it.
import type { ContextFigure } from '../context';
import type { AgentId } from '../formats/registry';
import type { FidelityReport } from './fidelity';
import type { CompactSettings } from '../compactSettings';
import type { SummaryDetail } from '../summaryDetail';

export type RoundAction = 'keep' | 'summarize' | 'drop';

/** Who decided an action: the user (a decision in decisions.ts) or the plan (the automatic rules). */
export type DecidedBy = 'user' | 'plan';

/** A user decision the plan could not follow as given, and what it did instead. */
export interface DecisionConflict {
  /** The decision, in the user's words: "drop round 7". */
  readonly decision: string;
  readonly round: number | null;
  /** What the plan did and why. */
  readonly resolution: string;
}

export interface PlannedRound {
  readonly index: number;
  readonly action: RoundAction;
  readonly by: DecidedBy;
  /** Why: e.g. "recent work kept verbatim", "older than the kept tail", "cut by prompt-too-long retry". */
  readonly reason: string;
  readonly firstLine: number;
  readonly lastLine: number;
  readonly label: string;
  /** Estimated tokens the round occupies in the resumed context before budgeting. */
  readonly tokens: number;
  /** Estimated tokens after tool-result budgeting and thinking stripping (keep only). */
  readonly tokensAfter: number;
  readonly inContext: boolean;
}

export type ToolResultAction = 'kept' | 'replaced' | 'frozen';

export interface ToolResultDecision {
  readonly toolUseId: string;
  readonly toolName: string | null;
  readonly round: number;
  readonly line: number;
  /** Index of the wire message (merged consecutive user lines) it travels in. */
  readonly wireMessage: number;
  readonly originalChars: number;
  /** kept: sent as is; replaced: newly replaced by a preview; frozen: an earlier decision re-applied exactly. */
  readonly action: ToolResultAction;
  /** The exact text that replaces the result (null when kept). */
  readonly preview: string | null;
  /** Where the full original is (or will be) stored, relative to the transcript's folder. */
  readonly fullTextPath: string | null;
  readonly reason: string;
  readonly by: DecidedBy;
}

export interface WireMessageBudget {
  readonly index: number;
  readonly round: number;
  readonly lines: readonly number[];
  readonly beforeChars: number;
  readonly afterChars: number;
  readonly limit: number;
}

export interface CompactionPlan {
  readonly file: string;
  readonly settings: Readonly<CompactSettings>;
  readonly rounds: readonly PlannedRound[];
  readonly toolResults: readonly ToolResultDecision[];
  readonly wireMessages: readonly WireMessageBudget[];
  /** Estimated tokens of the active context's transcript now (the rounds the plan sizes). */
  readonly preTokens: number;
  /** The context now as every surface shows it (`contextNow`): the plan's starting figure, its parts named. */
  readonly context: Readonly<ContextFigure>;
  /** Estimated tokens of the resumed context after compaction (summary included). */
  readonly postTokens: number;
  /** Tokens of the rounds kept verbatim (after budgeting). */
  readonly keptTokens: number;
  /**
   * Part of `postTokens`: what the agent sends again when it resumes the result and no kept line holds (Claude Code
   * 2.1.330's session-start context, `reannouncedAfter`); absent or 0 when none.
   */
  readonly resentTokens?: number;
  /**
   * Tokens a resumed request of the result carries beyond the transcript (system prompt, tool definitions, and for
   * Codex the context it gives a resumed thread again); 0 when unknown. The target covers it too.
   */
  readonly overheadTokens: number;
  /**
   * Where the system prompt and tools of `overheadTokens` come from: `agent-now` as the user's agent sends them today
   * with the model the resume uses (recorded in their own newest sessions, agentNow.ts), `agent-now-assumed` as it
   * sends them with another model, `recorded` / `estimated` from this file (its own record, or its usage), null
   * unknown. Absent in plans from before it was recorded.
   */
  readonly overheadSource?: 'agent-now' | 'agent-now-assumed' | 'recorded' | 'estimated' | null;
  /** `overheadSource` in words for every surface, e.g. "as your Claude Code 2.1.330 sends it with claude-opus-5-5, from session …". */
  readonly overheadFrom?: string;
  /**
   * Part of `overheadTokens`: the context Codex gives a resumed thread again (permissions, instructions, environment),
   * which the session's own figure does not count as system prompt and tools; absent or 0 for other agents.
   */
  readonly resumeContextTokens?: number;
  /** Room for transcript content: targetTokens − overheadTokens (not below 0). */
  readonly messageTarget: number;
  readonly summarizedRounds: number;
  readonly droppedRounds: number;
  /** True when the file is already under target and nothing needs to be done. */
  readonly nothingToDo: boolean;
  readonly notes: readonly string[];
  /** User decisions the plan could not follow as given (empty without decisions). */
  readonly conflicts: readonly DecisionConflict[];
}

/** The context after a compaction by parts, promised by a plan or delivered by a run (promise.ts). */
export interface ContextAfter {
  /** The whole context after the compaction: the sum of the parts below (and, delivered, `measured`). */
  tokens: number;
  /** System prompt and tools (and what Codex gives a resumed thread again). */
  overhead: number;
  /** The rounds kept verbatim, as budgeted. */
  kept: number;
  keptRounds: number;
  /** The summary: its reserve in a plan, the summary as written once it is. 0 when nothing is summarized. */
  summary: number;
  /** What a resume sends again that no kept line holds. */
  resent: number;
  /** Delivered only: what the written file measures beyond the parts (e.g. previews sized from their own text). */
  measured: number;
}

export interface AttemptRecord {
  attempt: number;
  strategy: 'anthropic' | 'anthropic-truncated' | 'claude-cli' | 'codex-cli' | 'extractive' | 'given';
  /** `clipped`: the summary was longer than its reserve and its end was cut (the attempt after the summarizer's `ok`). */
  outcome: 'ok' | 'prompt-too-long' | 'error' | 'cancelled' | 'clipped';
  detail: string;
  droppedRounds?: number;
  tokenGap?: number | null;
}

export interface CompactResult {
  /** The written session file: a new `<session-id>.jsonl` (fork, the default), `--out`, or the original (in place). */
  output: string;
  /** How the result was written: a fork beside the original, an explicit output file, or in place. */
  mode: 'fork' | 'out' | 'in-place';
  /** Session id the agent resumes the result by (the fork's new id; the original's in place), null when unknown. */
  sessionId: string | null;
  /** The session's working directory (from its lines), where the agent must be started to resume it. */
  cwd: string | null;
  /** `cd <cwd> && claude --resume <id>` (Codex: `codex resume <id>`) for a POSIX shell; null when it cannot be offered. */
  resumeCommand: string | null;
  /** The agent that resumes the result (absent in results from before it was recorded: Claude Code). */
  resumeAgent?: AgentId;
  /** Why `resumeCommand` is null: no id or folder known, or one that is not safe to put in a command (core/resume.ts). */
  resumeProblem?: string;
  /** The agent the written session is for (absent in results from before it was recorded: Claude Code). */
  agent?: AgentId;
  /**
   * The summarizer that actually produced the summary (the Anthropic one and the agent CLIs may fall back to the
   * offline one); 'given': the text passed in, verbatim.
   */
  summarizer: 'extractive' | 'anthropic' | 'claude-cli' | 'codex-cli' | 'none' | 'given';
  /** Bytes a live agent appended while the result was being committed, carried over after it (0 normally). */
  carriedOverBytes: number;
  backup: string | null;
  preTokens: number;
  postTokens: number;
  attempts: AttemptRecord[];
  plan: CompactionPlan;
  summaryChars: number;
  /** The summary detail level the compaction used (its plan's settings). */
  summaryDetail: SummaryDetail;
  toolResultsDir: string | null;
  /** The sidecar files this compaction created (for Undo Last Compaction: undo.ts). */
  sidecarsWritten?: WrittenSidecars;
  /**
   * sha256 (hex) of the output as written: a fork or `--out` is deleted by Undo only while it still is these bytes;
   * in place, Undo puts the backup back only while the session still is (nothing added since).
   */
  outputSha256?: string | null;
  /** Bytes of the output as written (in place, not counting bytes carried over after it). */
  outputSize?: number | null;
  /** Which facts of the summarized rounds the written summary keeps (fidelity.ts); absent when nothing was summarized. */
  fidelity?: FidelityReport;
  /**
   * The context after the compaction as the plan shown promised it and as the written file delivers it, by parts
   * (promise.ts; `delivered.tokens` is the written file's own context figure); `promiseGap` says why they differ.
   */
  promised?: ContextAfter;
  delivered?: ContextAfter;
  /**
   * Present when the transcript changed between the plan shown and its application (a live agent appended): it was
   * planned again over the file as it then was, and this says what changed (the plan's first note says it too).
   */
  replanned?: string;
}

export interface WrittenSidecars {
  /** Saved tool results this run created (absolute paths). */
  toolResults: string[];
  /** sha256 (hex) of each of them as written, by file name: Undo deletes one only while it still is that. */
  toolResultSha256: Record<string, string>;
  toolResultsDirCreated: boolean;
  /** The output's state file did not exist before. */
  stateCreated: boolean;
}

export type ProgressReporter = (message: string) => void;

// The error every verb reports: in a module of its own so that the modules below the engine (sidecar reads, agent
// readers) can raise it without importing the engine's types.
export { CompactError, type CompactErrorCode } from '../errors';
