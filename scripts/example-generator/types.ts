// Options and results of the example transcript generator (scripts/generate-example.ts).

export interface GenerateOptions {
  /** PRNG seed: same options give byte-identical output. */
  seed: number;
  /** Number of API rounds (assistant message ids) in the main session, subagent excluded. */
  rounds: number;
  /** Session UUID; derived from the seed when absent. */
  sessionId?: string;
  /** Working directory of the made-up project. */
  cwd?: string;
  /** ISO time of the first line. */
  startTime?: string;
  /** Claude Code version written on every chain line. */
  version?: string;
  /** Model of the main conversation. */
  model?: string;
  /** Round before which the auto compaction happens; null for none. Default: about half way. */
  compactAtRound?: number | null;
  /**
   * 'placeholder' (default): earlier lines of a response carry a placeholder output_tokens and
   * stop_reason null, the last line the final figures. 'final-everywhere': every line the final figures.
   */
  usageStyle?: 'placeholder' | 'final-everywhere';
  /** Write thinking text (true, default) or empty thinking with only a signature, as some versions do. */
  thinkingText?: boolean;
  /** Also produce the subagent file(s) (`<sessionId>/subagents/agent-<id>.jsonl`). */
  subagentFiles?: boolean;
  /** Context size the session should reach before the compaction and at its end (tokens). */
  peakTokens?: number;
  finalTokens?: number;
}

export interface GeneratedSubagent {
  agentId: string;
  /** Path relative to the directory of the main file: `<sessionId>/subagents/agent-<id>.jsonl`. */
  relativePath: string;
  text: string;
}

export interface GeneratedSession {
  sessionId: string;
  text: string;
  subagents: GeneratedSubagent[];
  stats: {
    rounds: number;
    lines: number;
    bytes: number;
    finalContextTokens: number;
    compaction: { atRound: number; preTokens: number; postTokens: number } | null;
  };
}
