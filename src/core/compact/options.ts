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

export interface CompactOptions {
  settings?: Partial<CompactSettings>;
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
  /**
   * What the user's agent sends now with every request (agentNow.ts), for the resume the plan promises. By default
   * read at planning from the agent's sessions folder (the one the file is in, else the user's); null: none (the
   * file's own figure).
   */
  agentNow?: AgentNow | null;
}
