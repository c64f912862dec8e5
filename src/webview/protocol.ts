// Messages between the Budget Preview webview and the extension host, shared by both sides. Pure TypeScript: no
// `vscode`, no DOM. Each message and each part of one is declared once, as a schema of the validator kit
// (validate.ts): the receiver checks every message with it (never trusted as typed), and its type is derived from it.
import {
  array,
  bool,
  count,
  int,
  literal,
  messages,
  nullable,
  object,
  oneOf,
  parse,
  str,
  type Infer,
  type Schema,
} from './validate';

export const PROTOCOL_VERSION = 1;

/** The bounds of this protocol's strings and arrays. */
const LIMIT = {
  /** A tool name or id, a model name. */
  name: 1000,
  /** A round's label, a file name. */
  label: 1000,
  /** A path. */
  path: 10_000,
  /** A sentence or note of ours (it may quote a file name or a label). */
  sentence: 10_000,
  /** Transcript text shown as it is (a tool result's preview). */
  text: 200_000,
  notes: 1000,
  /** Rounds, tool results, messages of a session. */
  rows: 1_000_000,
} as const;

const DECISIONS = ['kept', 'replaced', 'frozen'] as const;
const ROUND_MARKS = ['keep', 'summarize', 'drop'] as const;
export type Decision = (typeof DECISIONS)[number];
export type RoundMark = (typeof ROUND_MARKS)[number];

/** The marks of the user's own round decisions, the same in the Rounds tree and the Budget Preview. */
export const USER_ROUND_MARK: Record<RoundMark, string> = {
  keep: '[pinned]',
  summarize: '[summarize · you]',
  drop: '[drop · you]',
};

/** The mark of a tool result, with "· you" when the user decided it (keep in full / preview). */
export function toolResultMark(decision: Decision, byUser: boolean): string {
  // "frozen" is our word for a decision an earlier compaction made and this one repeats: say what it means.
  const word = decision === 'frozen' ? 'replaced earlier' : decision;
  return byUser ? `[${decision === 'kept' ? 'kept in full' : word} · you]` : `[${word}]`;
}

/** A round the user decided (pinned, dropped or summarized by you). */
const userRoundRow = object({
  round: int(),
  mark: oneOf(ROUND_MARKS),
  label: str(LIMIT.label),
});
export type UserRoundRow = Infer<typeof userRoundRow>;

/** One point of the context-size chart (one API round). */
const chartPoint = object({
  round: int(),
  /** Context size after the round as the API reported it (null when unknown). */
  usage: nullable(count()),
  /** Calibrated running estimate of the context after the round. */
  estimate: count(),
  mark: oneOf(ROUND_MARKS),
  /** Round starts at a compact boundary (the running figures reset). */
  boundary: bool,
  inContext: bool,
});
export type ChartPoint = Infer<typeof chartPoint>;

const chartData = object({
  points: array(chartPoint, LIMIT.rows),
  targetTokens: count(),
  /**
   * What every request carries whatever is compacted (system prompt and tool definitions, `contextNow`'s overhead):
   * the floor under any target. Null when the file has no usage to estimate it from.
   */
  floorTokens: nullable(count()),
  /** Rounds up to and including this one are summarized or dropped (null: no cut). */
  cutAfterRound: nullable(int()),
  preTokens: count(),
  postTokens: count(),
});
export type ChartData = Infer<typeof chartData>;

const toolResultRow = object({
  toolUseId: str(LIMIT.name),
  toolName: str(LIMIT.name),
  round: int(),
  line: int(),
  wireMessage: int(),
  originalChars: count(),
  decision: oneOf(DECISIONS),
  /** Exact text that replaces the result (null when kept). */
  preview: nullable(str(LIMIT.text)),
  fullTextPath: nullable(str(LIMIT.path)),
  reason: str(LIMIT.sentence),
  /** The user decided it (Keep in Full / Replace by Preview), not the budget. */
  byUser: bool,
});
export type ToolResultRow = Infer<typeof toolResultRow>;

/** One wire message's before/after tool-result totals: the plan's own record (core's `WireMessageBudget`). */
const wireMessageRow = object({
  index: int(),
  round: int(),
  lines: array(int(), LIMIT.rows),
  beforeChars: count(),
  afterChars: count(),
  /** Null: no limit (the agent's sessions take no previews; every result is kept whole). */
  limit: nullable(count()),
});
export type WireMessageRow = Infer<typeof wireMessageRow>;

const budgetState = object({
  version: literal(PROTOCOL_VERSION),
  file: str(LIMIT.path),
  fileName: str(LIMIT.label),
  /** "N rounds / T tokens would be summarized or dropped; X → Y tokens". */
  summary: str(LIMIT.sentence),
  nothingToDo: bool,
  notes: array(str(LIMIT.sentence), LIMIT.notes),
  counts: object({
    kept: int(),
    replaced: int(),
    frozen: int(),
    keepRounds: int(),
    summarizeRounds: int(),
    dropRounds: int(),
  }),
  chart: chartData,
  wireMessages: array(wireMessageRow, LIMIT.rows),
  toolResults: array(toolResultRow, LIMIT.rows),
  /** The rounds the user decided, in order. */
  userRounds: array(userRoundRow, LIMIT.rows),
});
export type BudgetState = Infer<typeof budgetState>;
export const isBudgetState: Schema<BudgetState> = budgetState;

// ---------------------------------------------------------------------------------------------
// The messages, each declared once (its type and fields); the receiver parses every one.

const hostToWebview = messages({
  state: { state: budgetState },
  empty: { message: str(LIMIT.sentence) },
  busy: { message: str(LIMIT.sentence) },
});
export type HostToWebview = Infer<typeof hostToWebview>;

const webviewToHost = messages({
  ready: {},
  revealRound: { round: int() },
  revealLine: { line: int({ min: 1 }) },
  compact: {},
  refresh: {},
});
export type WebviewToHost = Infer<typeof webviewToHost>;

/** The message types of each direction (tests go through every one). */
export const BUDGET_MESSAGE_TYPES = { hostToWebview: hostToWebview.types, webviewToHost: webviewToHost.types };

/** Validates a message posted by the webview. Returns null for anything malformed. */
export const parseWebviewToHost = (v: unknown): WebviewToHost | null => parse(webviewToHost, v);

/** Validates a message posted by the host. Returns null for anything malformed. */
export const parseHostToWebview = (v: unknown): HostToWebview | null => parse(hostToWebview, v);
