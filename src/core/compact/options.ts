// What a caller asks of a compaction (compact.ts runs it; summary.ts reads the summarizer's part). A module of its own
// so that the steps of a compaction depend on it and not on the pipeline that calls them.
import type { UserDecisions } from './decisions';
import type { AgentNow } from '../agentNow';
import type { AgentPrograms } from '../formats/agent';
import type { ProgressReporter } from './types';
import type { CompactSettings } from '../compactSettings';

/** Who writes the summary: offline, the Anthropic API, or the user's own Claude Code / Codex CLI. */
export type SummarizerChoice = 'extractive' | 'anthropic' | 'claude-cli' | 'codex-cli';

/** The `claude` and `codex` programs (default: each on PATH), and how they are run as summarizers. */
export interface AgentCliOptions extends AgentPrograms {
  /** Longest run of the program before it is killed and the offline summary used (default 10 minutes). */
  timeoutMs?: number;
  /** Environment of the program (default: this process's, passed through so that its login and settings work). */
  env?: NodeJS.ProcessEnv;
}

/**
 * What the plan is made from beside the file itself. Unset values are read where the session's saved values are read
 * (one edge: compact.ts `planInputsOf`), once per plan; the plan carries them resolved (`ResolvedPlanInputs`).
 */
export interface PlanInputs {
  settings?: Partial<CompactSettings>;
  /** The user's decisions (decisions.ts); by default the ones saved with the session. */
  decisions?: UserDecisions;
  /** The summary to write, used exactly as given instead of one the summarizer writes (the plan makes room for it). */
  summaryText?: string;
  /**
   * What the user's agent sends now with every request (agentNow.ts), for the resume the plan promises. By default
   * read at planning from the agent's sessions folder (the one the file is in, else the user's); null: none (the
   * file's own figure).
   */
  agentNow?: AgentNow | null;
}

/** Who writes the summary and how (unused when `PlanInputs.summaryText` gives it). */
export interface SummarizerOptions {
  summarizer: SummarizerChoice;
  anthropic?: {
    apiKey?: string;
    model?: string;
    baseURL?: string;
    maxTokens?: number;
    timeoutMs?: number;
    maxRetries?: number;
  };
  /** The user's own agent CLIs (summarizers `claude-cli` / `codex-cli`): which program, and how long it may take. */
  agentCli?: AgentCliOptions;
  instructions?: string;
}

/** Where the result is written. */
export interface OutputOptions {
  /** Output path; by default a fork: a new session `<new-uuid>.jsonl` beside the original. */
  out?: string;
  /** Replace the original after a backup. */
  inPlace?: boolean;
  /** Allow `out` to replace an existing file (never the original, never a file of another session). */
  force?: boolean;
  /** Write only the compacted conversation, without the original lines before it. */
  fresh?: boolean;
}

/** How a run is watched and stopped: not part of what it decides, and replaced when a plan is applied later. */
export interface RuntimeHooks {
  signal?: AbortSignal;
  onProgress?: ProgressReporter;
  /** The Anthropic summarizer's reply so far, as it streams (see `AnthropicOptions.onText`). */
  onSummaryText?: (replySoFar: string) => void;
}

/** What a caller asks of a compaction, in one object: the four parts below, which the engine takes apart once. */
export type CompactOptions = PlanInputs & SummarizerOptions & OutputOptions & RuntimeHooks;

/** `CompactOptions` taken apart: each step of a compaction is given the part it reads. */
export interface CompactionParts {
  readonly inputs: PlanInputs;
  readonly summarizer: SummarizerOptions;
  readonly output: OutputOptions;
  readonly runtime: RuntimeHooks;
}

/** Takes a caller's options apart into their named parts. */
export function splitOptions(o: CompactOptions): CompactionParts {
  const { settings, decisions, summaryText, agentNow } = o;
  const { summarizer, anthropic, agentCli, instructions } = o;
  const { out, inPlace, force, fresh } = o;
  const { signal, onProgress, onSummaryText } = o;
  return {
    inputs: { settings, decisions, summaryText, agentNow },
    summarizer: { summarizer, anthropic, agentCli, instructions },
    output: { out, inPlace, force, fresh },
    runtime: { signal, onProgress, onSummaryText },
  };
}
