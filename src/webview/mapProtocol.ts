// Messages between the Context Map webview and the extension host, shared by both sides.
// Pure TypeScript: no `vscode`, no DOM. The receiver validates every message with the parse
// functions below (never trusted as typed); transcript strings are bounded in length.

export const MAP_PROTOCOL_VERSION = 1;

export type MapMark = 'keep' | 'summarize' | 'drop';

/** One stacked series of the chart, bottom to top. */
export interface MapSeries {
  key: string;
  label: string;
  /** Its colour: a slot of the map's palette (media/map.css `.s0`–`.s15`), the same for a category in every session. */
  colour: number;
}

export interface MapRound {
  round: number;
  label: string;
  firstLine: number;
  /** Context after this round by series (same order as `series`): the segment's overhead plus what its rounds added so far. */
  stack: number[];
  /** Context after the round as the API reported it (null when unknown). */
  usage: number | null;
  /**
   * Context after the round as the Rounds tree and the CLI say it (the report's running figure: the next request's
   * usage where the file records it, else the estimate), and where it comes from.
   */
  context: number;
  contextSource: 'usage' | 'estimate';
  mark: MapMark;
  /** Starts at a compact boundary (the context starts again). */
  boundary: boolean;
  inContext: boolean;
  /** Cost of the round's response in USD (null without one). */
  costUsd: number | null;
}

/** A compaction the file records, in words (core/agentCompactions.ts): the boundary's round and line, and its facts. */
export interface MapCompaction {
  round: number;
  line: number;
  /** Who compacted and how ("auto compaction by Claude Code"). */
  title: string;
  /** Before → after, against the next request. */
  figures: string;
  /** What the compaction's own request cost, or "not recorded". */
  cost: string;
}

export interface MapToolRow {
  name: string;
  calls: number;
  activeTokens: number;
  activeShare: number;
  allTokens: number;
  allShare: number;
}

export interface MapItemRow {
  kind: 'toolResult' | 'toolCall' | 'thinking' | 'images';
  round: number;
  line: number;
  tool: string | null;
  /** The tool call's id (tool results and calls), which "replace by preview" names. */
  toolUseId: string | null;
  tokens: number;
}

export interface MapCost {
  totalUsd: number;
  inputUsd: number;
  outputUsd: number;
  cacheWriteUsd: number;
  cacheReadUsd: number;
  responses: number;
  byModel: { model: string; usd: number }[];
  unpriced: string[];
  /** The total rests on assumed rates (models not in the price table). */
  assumed: boolean;
  /** The agent's own figure for the session (Claude Code's cost-state), or null when it records none. */
  agentUsd: number | null;
  /** Where the agent keeps that figure, in words. */
  agentSource: string | null;
  /** What the figure needs said beside it (core/cost.ts `costNotes`): assumed rates, unpriced models, the agent's figure apart. */
  notes: string[];
  priceSource: string;
  priceDate: string;
  /** The prompt cache's state and the next turn's cost (with a plan: as it is and compacted), as of the push. */
  nextTurn: string;
}

export interface MapState {
  version: number;
  file: string;
  fileName: string;
  series: MapSeries[];
  rounds: MapRound[];
  /** The model's context window and the size at which its agent compacts by itself (core/limits.ts); null: unknown. */
  contextWindow: number | null;
  autoCompactAt: number | null;
  /** Where both come from, in words (the agent's record, the model, an observed auto-compaction). */
  limitsText: string;
  /** What the exact count of a round's items is for this session's model ("exact (o200k)" only where it is the model's tokenizer). */
  exactLabel: string;
  /** The same, said in full (the count's tooltip). */
  exactNote: string;
  /** Why this session cannot be compacted (a read-only format): no target is offered; null when it can be. */
  readOnly: string | null;
  /** The targets the target line can be dragged to: the context's floor up to the context now; null when read-only. */
  reachable: { floor: number; max: number } | null;
  /** Target of the compaction plan (or of the settings when nothing is planned). */
  targetTokens: number;
  planned: boolean;
  planSummary: string;
  contextNow: number;
  tools: MapToolRow[];
  largest: MapItemRow[];
  compactions: MapCompaction[];
  cost: MapCost;
}

export type DetailKind =
  'prompt' | 'text' | 'thinking' | 'toolCall' | 'toolResult' | 'attachment' | 'summary' | 'image';

export interface DetailItem {
  kind: DetailKind;
  line: number;
  tool: string | null;
  /** The item's text for reading (cut at a limit: see `truncated`). */
  text: string;
  chars: number;
  truncated: boolean;
  /** Calibrated estimate of its tokens. */
  estimate: number;
  isError: boolean;
}

export interface RoundDetail {
  round: number;
  label: string;
  model: string | null;
  costUsd: number | null;
  items: DetailItem[];
}

export type HostToMap =
  | { type: 'state'; state: MapState }
  | { type: 'empty'; message: string }
  | { type: 'busy'; message: string }
  | { type: 'round'; detail: RoundDetail }
  /** Exact o200k counts of the items of a round's detail, in item order (null: not counted). */
  | { type: 'exact'; round: number; counts: (number | null)[] };

export type MapToHost =
  | { type: 'ready' }
  | { type: 'refresh' }
  | { type: 'selectRound'; round: number }
  | { type: 'setTarget'; tokens: number }
  | { type: 'revealRound'; round: number }
  | { type: 'revealLine'; line: number }
  /** Steering: the user's decision to drop a round, or to replace one tool result by its preview. */
  | { type: 'dropRound'; round: number }
  | { type: 'previewResult'; toolUseId: string };

// ---------------------------------------------------------------------------------------------
// Validation

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;
const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const isStr = (v: unknown, max = 100_000): v is string => typeof v === 'string' && v.length <= max;
const isCountOrNull = (v: unknown): v is number | null => v === null || isCount(v);
const isStrOrNull = (v: unknown, max?: number): v is string | null => v === null || isStr(v, max);
const arrayOf = <T>(v: unknown, ok: (x: unknown) => x is T, max = 1_000_000): v is T[] =>
  Array.isArray(v) && v.length <= max && v.every(ok);

const MARKS: readonly string[] = ['keep', 'summarize', 'drop'];
const ITEM_KINDS: readonly string[] = ['toolResult', 'toolCall', 'thinking', 'images'];
const DETAIL_KINDS: readonly string[] = [
  'prompt',
  'text',
  'thinking',
  'toolCall',
  'toolResult',
  'attachment',
  'summary',
  'image',
];

/** Most tokens a target may be set to from the map (well above any context window). */
export const MAX_TARGET = 10_000_000;

/** Validates a message posted by the webview. Returns null for anything malformed. */
export function parseMapToHost(v: unknown): MapToHost | null {
  if (!isObj(v) || typeof v.type !== 'string') return null;
  switch (v.type) {
    case 'ready':
    case 'refresh':
      return { type: v.type };
    case 'selectRound':
    case 'revealRound':
    case 'dropRound':
      return isInt(v.round) ? { type: v.type, round: v.round } : null;
    case 'revealLine':
      return isInt(v.line) && v.line >= 1 ? { type: 'revealLine', line: v.line } : null;
    case 'setTarget':
      return isInt(v.tokens) && v.tokens >= 1 && v.tokens <= MAX_TARGET
        ? { type: 'setTarget', tokens: v.tokens }
        : null;
    case 'previewResult':
      return isStr(v.toolUseId, 300) && v.toolUseId.length > 0
        ? { type: 'previewResult', toolUseId: v.toolUseId }
        : null;
    default:
      return null;
  }
}

function validSeries(s: unknown): s is MapSeries {
  return (
    isObj(s) &&
    isStr(s.key, 200) &&
    isStr(s.label, 300) &&
    Number.isInteger(s.colour) &&
    (s.colour as number) >= 0 &&
    (s.colour as number) < 16
  );
}

function validRound(width: number): (r: unknown) => r is MapRound {
  return (r: unknown): r is MapRound =>
    isObj(r) &&
    isInt(r.round) &&
    isStr(r.label, 1000) &&
    isInt(r.firstLine) &&
    Array.isArray(r.stack) &&
    r.stack.length === width &&
    r.stack.every(isCount) &&
    isCountOrNull(r.usage) &&
    isCount(r.context) &&
    (r.contextSource === 'usage' || r.contextSource === 'estimate') &&
    typeof r.mark === 'string' &&
    MARKS.includes(r.mark) &&
    typeof r.boundary === 'boolean' &&
    typeof r.inContext === 'boolean' &&
    isCountOrNull(r.costUsd);
}

function validTool(t: unknown): t is MapToolRow {
  return (
    isObj(t) &&
    isStr(t.name, 300) &&
    isInt(t.calls) &&
    isCount(t.activeTokens) &&
    isCount(t.activeShare) &&
    isCount(t.allTokens) &&
    isCount(t.allShare)
  );
}

function validItem(t: unknown): t is MapItemRow {
  return (
    isObj(t) &&
    typeof t.kind === 'string' &&
    ITEM_KINDS.includes(t.kind) &&
    isInt(t.round) &&
    isInt(t.line) &&
    isStrOrNull(t.tool, 300) &&
    isStrOrNull(t.toolUseId, 300) &&
    isCount(t.tokens)
  );
}

function validCompaction(c: unknown): c is MapCompaction {
  return (
    isObj(c) && isInt(c.round) && isInt(c.line) && isStr(c.title, 300) && isStr(c.figures, 1000) && isStr(c.cost, 1000)
  );
}

function validCost(c: unknown): c is MapCost {
  return (
    isObj(c) &&
    ['totalUsd', 'inputUsd', 'outputUsd', 'cacheWriteUsd', 'cacheReadUsd'].every((k) => isCount(c[k])) &&
    isInt(c.responses) &&
    arrayOf(
      c.byModel,
      (m): m is { model: string; usd: number } => isObj(m) && isStr(m.model, 300) && isCount(m.usd),
      1000,
    ) &&
    arrayOf(c.unpriced, (m): m is string => isStr(m, 300), 1000) &&
    typeof c.assumed === 'boolean' &&
    isCountOrNull(c.agentUsd) &&
    isStrOrNull(c.agentSource, 500) &&
    arrayOf(c.notes, (m): m is string => isStr(m, 2000), 1000) &&
    isStr(c.priceSource, 2000) &&
    isStr(c.priceDate, 100) &&
    isStr(c.nextTurn, 2000)
  );
}

export function isMapState(s: unknown): s is MapState {
  if (!isObj(s) || s.version !== MAP_PROTOCOL_VERSION || !arrayOf(s.series, validSeries, 100)) return false;
  return (
    isStr(s.file, 10_000) &&
    isStr(s.fileName, 1000) &&
    arrayOf(s.rounds, validRound(s.series.length)) &&
    isCountOrNull(s.contextWindow) &&
    isCountOrNull(s.autoCompactAt) &&
    isStr(s.limitsText, 2000) &&
    isStr(s.exactLabel, 200) &&
    isStr(s.exactNote, 1000) &&
    isStrOrNull(s.readOnly, 2000) &&
    (s.reachable === null || (isObj(s.reachable) && isCount(s.reachable.floor) && isCount(s.reachable.max))) &&
    isCount(s.targetTokens) &&
    typeof s.planned === 'boolean' &&
    isStr(s.planSummary, 10_000) &&
    isCount(s.contextNow) &&
    arrayOf(s.tools, validTool, 10_000) &&
    arrayOf(s.largest, validItem, 1000) &&
    arrayOf(s.compactions, validCompaction, 100_000) &&
    validCost(s.cost)
  );
}

function validDetailItem(i: unknown): i is DetailItem {
  return (
    isObj(i) &&
    typeof i.kind === 'string' &&
    DETAIL_KINDS.includes(i.kind) &&
    isInt(i.line) &&
    isStrOrNull(i.tool, 300) &&
    isStr(i.text, 200_000) &&
    isInt(i.chars) &&
    typeof i.truncated === 'boolean' &&
    isCount(i.estimate) &&
    typeof i.isError === 'boolean'
  );
}

export function isRoundDetail(d: unknown): d is RoundDetail {
  return (
    isObj(d) &&
    isInt(d.round) &&
    isStr(d.label, 1000) &&
    isStrOrNull(d.model, 300) &&
    isCountOrNull(d.costUsd) &&
    arrayOf(d.items, validDetailItem, 5000)
  );
}

/** Validates a message posted by the host. Returns null for anything malformed. */
export function parseHostToMap(v: unknown): HostToMap | null {
  if (!isObj(v) || typeof v.type !== 'string') return null;
  switch (v.type) {
    case 'state':
      return isMapState(v.state) ? { type: 'state', state: v.state } : null;
    case 'empty':
    case 'busy':
      return isStr(v.message, 10_000) ? { type: v.type, message: v.message } : null;
    case 'round':
      return isRoundDetail(v.detail) ? { type: 'round', detail: v.detail } : null;
    case 'exact':
      return isInt(v.round) && arrayOf(v.counts, (c): c is number | null => c === null || isInt(c), 5000)
        ? { type: 'exact', round: v.round, counts: v.counts }
        : null;
    default:
      return null;
  }
}
