// Messages between the Context Map webview and the extension host, shared by both sides. Pure TypeScript: no
// `vscode`, no DOM. Each message and each part of one is declared once, as a schema of the validator kit
// (validate.ts): the receiver checks every message with it (never trusted as typed), and its type is derived from it.
// Transcript strings are bounded in length.
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
  refine,
  str,
  type Infer,
  type Schema,
} from './validate';

export const MAP_PROTOCOL_VERSION = 1;

/** Most tokens a target may be set to from the map (well above any context window). */
export const MAX_TARGET = 10_000_000;

/** The bounds of this protocol's strings and arrays. */
const LIMIT = {
  /** A tool, model or series name, a tool call's id. */
  name: 300,
  /** A round's label, a file name, a compaction's title. */
  label: 1000,
  /** A sentence of ours (a note, a price source, the next turn's cost). */
  sentence: 2000,
  /** A path; a longer text of ours (the plan's summary). */
  path: 10_000,
  /** A round item's text for reading (cut by the host at 20,000 characters). */
  text: 200_000,
  /** Rounds of a session. */
  rounds: 1_000_000,
  /** Rows of a list (tools, models, notes, largest items). */
  list: 1000,
  /** Items of one round's detail. */
  items: 5000,
} as const;

const MARKS = ['keep', 'summarize', 'drop'] as const;
export type MapMark = (typeof MARKS)[number];

/** One stacked series of the chart, bottom to top. */
const mapSeries = object({
  key: str(200),
  label: str(LIMIT.name),
  /** Its colour: a slot of the map's palette (media/map.css `.s0`–`.s15`), the same for a category in every session. */
  colour: int({ max: 15 }),
});
export type MapSeries = Infer<typeof mapSeries>;

const mapRound = object({
  round: int(),
  label: str(LIMIT.label),
  firstLine: int(),
  /** Context after this round by series (same order as `series`): the segment's overhead plus what its rounds added so far. */
  stack: array(count(), 100),
  /** Context after the round as the API reported it (null when unknown). */
  usage: nullable(count()),
  /**
   * Context after the round as the Rounds tree and the CLI say it (the report's running figure: the next request's
   * usage where the file records it, else the estimate), and where it comes from.
   */
  context: count(),
  contextSource: oneOf(['usage', 'estimate'] as const),
  mark: oneOf(MARKS),
  /** Starts at a compact boundary (the context starts again). */
  boundary: bool,
  inContext: bool,
  /** Cost of the round's response in USD (null without one). */
  costUsd: nullable(count()),
});
export type MapRound = Infer<typeof mapRound>;

/** A compaction the file records, in words (core/agentCompactions.ts): the boundary's round and line, and its facts. */
const mapCompaction = object({
  round: int(),
  line: int(),
  /** Who compacted and how ("auto compaction by Claude Code"). */
  title: str(LIMIT.name),
  /** Before → after, against the next request. */
  figures: str(LIMIT.label),
  /** What the compaction's own request cost, or "not recorded". */
  cost: str(LIMIT.label),
});
export type MapCompaction = Infer<typeof mapCompaction>;

const mapToolRow = object({
  name: str(LIMIT.name),
  calls: int(),
  activeTokens: count(),
  activeShare: count(),
  allTokens: count(),
  allShare: count(),
});
export type MapToolRow = Infer<typeof mapToolRow>;

const ITEM_KINDS = ['toolResult', 'toolCall', 'thinking', 'images'] as const;

const mapItemRow = object({
  kind: oneOf(ITEM_KINDS),
  round: int(),
  line: int(),
  tool: nullable(str(LIMIT.name)),
  /** The tool call's id (tool results and calls), which "replace by preview" names. */
  toolUseId: nullable(str(LIMIT.name)),
  tokens: count(),
});
export type MapItemRow = Infer<typeof mapItemRow>;

const mapCost = object({
  totalUsd: count(),
  inputUsd: count(),
  outputUsd: count(),
  cacheWriteUsd: count(),
  cacheReadUsd: count(),
  responses: int(),
  byModel: array(object({ model: str(LIMIT.name), usd: count() }), LIMIT.list),
  unpriced: array(str(LIMIT.name), LIMIT.list),
  /** The total rests on assumed rates (models not in the price table). */
  assumed: bool,
  /** The agent's own figure for the session (Claude Code's cost-state), or null when it records none. */
  agentUsd: nullable(count()),
  /** Where the agent keeps that figure, in words. */
  agentSource: nullable(str(500)),
  /** What the figure needs said beside it (core/cost.ts `costNotes`): assumed rates, unpriced models, the agent's figure apart. */
  notes: array(str(LIMIT.sentence), LIMIT.list),
  priceSource: str(LIMIT.sentence),
  priceDate: str(100),
  /** The prompt cache's state and the next turn's cost (with a plan: as it is and compacted), as of the push. */
  nextTurn: str(LIMIT.sentence),
});
export type MapCost = Infer<typeof mapCost>;

const mapStateFields = object({
  version: literal(MAP_PROTOCOL_VERSION),
  file: str(LIMIT.path),
  fileName: str(LIMIT.label),
  series: array(mapSeries, 100),
  rounds: array(mapRound, LIMIT.rounds),
  /** The model's context window and the size at which its agent compacts by itself (core/limits.ts); null: unknown. */
  contextWindow: nullable(count()),
  autoCompactAt: nullable(count()),
  /** Where both come from, in words (the agent's record, the model, an observed auto-compaction). */
  limitsText: str(LIMIT.sentence),
  /** What the exact count of a round's items is for this session's model ("exact (o200k)" only where it is the model's tokenizer). */
  exactLabel: str(200),
  /** The same, said in full (the count's tooltip). */
  exactNote: str(LIMIT.label),
  /** Why this session cannot be compacted (a read-only format): no target is offered; null when it can be. */
  readOnly: nullable(str(LIMIT.sentence)),
  /** The targets the target line can be dragged to: the context's floor up to the context now; null when read-only. */
  reachable: nullable(object({ floor: count(), max: count() })),
  /** Target of the compaction plan (or of the settings when nothing is planned). */
  targetTokens: count(),
  planned: bool,
  planSummary: str(LIMIT.path),
  contextNow: count(),
  tools: array(mapToolRow, 10_000),
  largest: array(mapItemRow, LIMIT.list),
  compactions: array(mapCompaction, 100_000),
  cost: mapCost,
});

/** What the map draws; every round's stack has one figure per series. */
const mapState = refine(mapStateFields, (s) => s.rounds.every((r) => r.stack.length === s.series.length));
export type MapState = Infer<typeof mapState>;
export const isMapState: Schema<MapState> = mapState;

const DETAIL_KINDS = [
  'prompt',
  'text',
  'thinking',
  'toolCall',
  'toolResult',
  'attachment',
  'summary',
  'image',
] as const;
export type DetailKind = (typeof DETAIL_KINDS)[number];

const detailItem = object({
  kind: oneOf(DETAIL_KINDS),
  line: int(),
  tool: nullable(str(LIMIT.name)),
  /** The item's text for reading (cut at a limit: see `truncated`). */
  text: str(LIMIT.text),
  chars: int(),
  truncated: bool,
  /** Calibrated estimate of its tokens. */
  estimate: count(),
  isError: bool,
});
export type DetailItem = Infer<typeof detailItem>;

const roundDetail = object({
  round: int(),
  label: str(LIMIT.label),
  model: nullable(str(LIMIT.name)),
  costUsd: nullable(count()),
  items: array(detailItem, LIMIT.items),
});
export type RoundDetail = Infer<typeof roundDetail>;
export const isRoundDetail: Schema<RoundDetail> = roundDetail;

// ---------------------------------------------------------------------------------------------
// The messages, each declared once (its type and fields); the receiver parses every one.

const hostToMap = messages({
  state: { state: mapState },
  empty: { message: str(LIMIT.path) },
  busy: { message: str(LIMIT.path) },
  round: { detail: roundDetail },
  /** Exact o200k counts of the items of a round's detail, in item order (null: not counted). */
  exact: { round: int(), counts: array(nullable(int()), LIMIT.items) },
});
export type HostToMap = Infer<typeof hostToMap>;

const mapToHost = messages({
  ready: {},
  refresh: {},
  selectRound: { round: int() },
  setTarget: { tokens: int({ min: 1, max: MAX_TARGET }) },
  revealRound: { round: int() },
  revealLine: { line: int({ min: 1 }) },
  /** Steering: the user's decision to drop a round, or to replace one tool result by its preview. */
  dropRound: { round: int() },
  previewResult: { toolUseId: str(LIMIT.name, { min: 1 }) },
});
export type MapToHost = Infer<typeof mapToHost>;

/** The message types of each direction (tests go through every one). */
export const MAP_MESSAGE_TYPES = { hostToMap: hostToMap.types, mapToHost: mapToHost.types };

/** Validates a message posted by the webview. Returns null for anything malformed. */
export const parseMapToHost = (v: unknown): MapToHost | null => parse(mapToHost, v);

/** Validates a message posted by the host. Returns null for anything malformed. */
export const parseHostToMap = (v: unknown): HostToMap | null => parse(hostToMap, v);
