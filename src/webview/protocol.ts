// Messages between the Budget Preview webview and the extension host, shared by both
// sides. Pure TypeScript: no `vscode`, no DOM. Every message crossing the boundary is
// validated by the receiver with the parse functions below (never trusted as typed).
import type { WireMessageBudget } from '../core/compact/types';

export const PROTOCOL_VERSION = 1;

export type Decision = 'kept' | 'replaced' | 'frozen';
export type RoundMark = 'keep' | 'summarize' | 'drop';

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
export interface UserRoundRow {
  round: number;
  mark: RoundMark;
  label: string;
}

/** One point of the context-size chart (one API round). */
export interface ChartPoint {
  round: number;
  /** Context size after the round as the API reported it (null when unknown). */
  usage: number | null;
  /** Calibrated running estimate of the context after the round. */
  estimate: number;
  mark: RoundMark;
  /** Round starts at a compact boundary (the running figures reset). */
  boundary: boolean;
  inContext: boolean;
}

export interface ChartData {
  points: ChartPoint[];
  targetTokens: number;
  /**
   * What every request carries whatever is compacted (system prompt and tool definitions, `contextNow`'s overhead):
   * the floor under any target. Null when the file has no usage to estimate it from.
   */
  floorTokens: number | null;
  /** Rounds up to and including this one are summarized or dropped (null: no cut). */
  cutAfterRound: number | null;
  preTokens: number;
  postTokens: number;
}

export interface ToolResultRow {
  toolUseId: string;
  toolName: string;
  round: number;
  line: number;
  wireMessage: number;
  originalChars: number;
  decision: Decision;
  /** Exact text that replaces the result (null when kept). */
  preview: string | null;
  fullTextPath: string | null;
  reason: string;
  /** The user decided it (Keep in Full / Replace by Preview), not the budget. */
  byUser: boolean;
}

/** One wire message's before/after tool-result totals: the plan's own record, sent as is. */
export type WireMessageRow = WireMessageBudget;

export interface BudgetState {
  version: number;
  file: string;
  fileName: string;
  /** "N rounds / T tokens would be summarized or dropped; X → Y tokens". */
  summary: string;
  nothingToDo: boolean;
  notes: string[];
  counts: {
    kept: number;
    replaced: number;
    frozen: number;
    keepRounds: number;
    summarizeRounds: number;
    dropRounds: number;
  };
  chart: ChartData;
  wireMessages: WireMessageRow[];
  toolResults: ToolResultRow[];
  /** The rounds the user decided, in order. */
  userRounds: UserRoundRow[];
}

export type HostToWebview =
  { type: 'state'; state: BudgetState } | { type: 'empty'; message: string } | { type: 'busy'; message: string };

export type WebviewToHost =
  | { type: 'ready' }
  | { type: 'revealRound'; round: number }
  | { type: 'revealLine'; line: number }
  | { type: 'compact' }
  | { type: 'refresh' };

// ---------------------------------------------------------------------------------------------
// Validation helpers

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0;
}

function isInt(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

function isStr(v: unknown, max = Number.MAX_SAFE_INTEGER): v is string {
  return typeof v === 'string' && v.length <= max;
}

function isStrOrNull(v: unknown): v is string | null {
  return v === null || typeof v === 'string';
}

function isNumOrNull(v: unknown): v is number | null {
  return v === null || isCount(v);
}

const DECISIONS: readonly string[] = ['kept', 'replaced', 'frozen'];
const MARKS: readonly string[] = ['keep', 'summarize', 'drop'];

/** Validates a message posted by the webview. Returns null for anything malformed. */
export function parseWebviewToHost(v: unknown): WebviewToHost | null {
  if (!isObj(v) || typeof v.type !== 'string') return null;
  switch (v.type) {
    case 'ready':
    case 'compact':
    case 'refresh':
      return { type: v.type };
    case 'revealRound':
      return isInt(v.round) ? { type: 'revealRound', round: v.round } : null;
    case 'revealLine':
      return isInt(v.line) && v.line >= 1 ? { type: 'revealLine', line: v.line } : null;
    default:
      return null;
  }
}

function validPoint(p: unknown): p is ChartPoint {
  return (
    isObj(p) &&
    isInt(p.round) &&
    isNumOrNull(p.usage) &&
    isCount(p.estimate) &&
    typeof p.mark === 'string' &&
    MARKS.includes(p.mark) &&
    typeof p.boundary === 'boolean' &&
    typeof p.inContext === 'boolean'
  );
}

function validChart(c: unknown): c is ChartData {
  return (
    isObj(c) &&
    Array.isArray(c.points) &&
    c.points.every(validPoint) &&
    isCount(c.targetTokens) &&
    isNumOrNull(c.floorTokens) &&
    (c.cutAfterRound === null || isInt(c.cutAfterRound)) &&
    isCount(c.preTokens) &&
    isCount(c.postTokens)
  );
}

function validToolRow(r: unknown): r is ToolResultRow {
  return (
    isObj(r) &&
    isStr(r.toolUseId) &&
    isStr(r.toolName) &&
    isInt(r.round) &&
    isInt(r.line) &&
    isInt(r.wireMessage) &&
    isCount(r.originalChars) &&
    typeof r.decision === 'string' &&
    DECISIONS.includes(r.decision) &&
    isStrOrNull(r.preview) &&
    isStrOrNull(r.fullTextPath) &&
    isStr(r.reason) &&
    typeof r.byUser === 'boolean'
  );
}

function validWireRow(r: unknown): r is WireMessageRow {
  return (
    isObj(r) &&
    isInt(r.index) &&
    isInt(r.round) &&
    Array.isArray(r.lines) &&
    r.lines.every(isInt) &&
    isCount(r.beforeChars) &&
    isCount(r.afterChars) &&
    isCount(r.limit)
  );
}

function validUserRound(r: unknown): r is UserRoundRow {
  return isObj(r) && isInt(r.round) && typeof r.mark === 'string' && MARKS.includes(r.mark) && isStr(r.label);
}

function validCounts(c: unknown): c is BudgetState['counts'] {
  return (
    isObj(c) && ['kept', 'replaced', 'frozen', 'keepRounds', 'summarizeRounds', 'dropRounds'].every((k) => isInt(c[k]))
  );
}

export function isBudgetState(s: unknown): s is BudgetState {
  return (
    isObj(s) &&
    s.version === PROTOCOL_VERSION &&
    isStr(s.file) &&
    isStr(s.fileName) &&
    isStr(s.summary) &&
    typeof s.nothingToDo === 'boolean' &&
    Array.isArray(s.notes) &&
    s.notes.every((n) => isStr(n)) &&
    validCounts(s.counts) &&
    validChart(s.chart) &&
    Array.isArray(s.wireMessages) &&
    s.wireMessages.every(validWireRow) &&
    Array.isArray(s.toolResults) &&
    s.toolResults.every(validToolRow) &&
    Array.isArray(s.userRounds) &&
    s.userRounds.every(validUserRound)
  );
}

/** Validates a message posted by the host. Returns null for anything malformed. */
export function parseHostToWebview(v: unknown): HostToWebview | null {
  if (!isObj(v) || typeof v.type !== 'string') return null;
  switch (v.type) {
    case 'state':
      return isBudgetState(v.state) ? { type: 'state', state: v.state } : null;
    case 'empty':
    case 'busy':
      return isStr(v.message, 10_000) ? { type: v.type, message: v.message } : null;
    default:
      return null;
  }
}
