// The engine's analysis of one transcript: every view derived from its index (chain, rounds, report), and what it takes
// to extend that analysis by appended lines. Types only, in a module of their own so that the verbs that build an
// analysis (inspect.ts) and extend it (incremental.ts) both depend on it and not on each other.
import type { Chain, ChainTables } from './chain';
import type { Entry } from './entries';
import type { InspectReport, ReportState } from './report';
import type { Round } from './rounds';
import type { TranscriptIndex } from './transcript';

export interface IncrementalState {
  entryCount: number;
  /** chain.ts tables (byUuid and sibling-recovery sets), extended in place. */
  tables: ChainTables;
  /**
   * When a last-prompt line names a candidate (`lastPromptLeaf`): how often each uuid occurs from
   * that entry on (any side; chain.ts hasDescendantAfter maps those), and whether the leaf
   * descends from it. Built on first need.
   */
  promptTail: Map<string, number> | null;
  promptTailLast: Map<string, number> | null;
  promptReached: boolean | null;
  /** parentUuid values of candidates that resolve to no candidate. */
  dangling: Set<string>;
  /** Message ids, tool_use ids and tool_result ids of candidates off the main chain. */
  offMessageIds: Set<string>;
  offUseIds: Set<string>;
  offResultIds: Set<string>;
  /** Leaf choice: the index named by the last `last-prompt` line (when a candidate), -1 otherwise. */
  lastPromptLeaf: number;
  /** Message ids of the rounds before the last one. */
  earlierRoundIds: Set<string>;
  /** How many rounds `earlierRoundIds` and `earlierLastEntry` cover (all but the last). */
  earlierRounds: number;
  /** The largest entry index of those rounds (-1: none). */
  earlierLastEntry: number;
  /** Tool names as buildRounds knows them when it reaches the last round (uses before it, in chain order). */
  namesBefore: Map<string, string>;
  /** Position in chain.main where the last round starts. */
  lastRoundStart: number;
  /** False when an entry after the last round's start belongs to an earlier round (then tails cannot be rebuilt alone). */
  tailClean: boolean;
  /** Report loop state at the start of round `resume.at`. */
  resume: { at: number; state: ReportState };
}

/** All derived views of a transcript, recomputed cheaply from the index. */
export interface Analysis {
  index: TranscriptIndex;
  chain: Chain;
  rounds: Round[];
  report: InspectReport;
  /**
   * What `reinspect` needs to extend this analysis by appended lines without re-deriving it;
   * handed on to the next analysis by `reinspect` (null here afterwards, and on analyses that
   * cannot be extended).
   */
  appendState: IncrementalState | null;
  /**
   * The responses of the session's subagent transcripts (`<session>/subagents/*.jsonl`, read when inspected with
   * them): the agent paid for them, and its own running total counts them.
   */
  subagentResponses?: Entry[];
}
