// The compactions recorded in a session file: each compact boundary on the main chain with what the file says of it
// — who compacted (the agent itself, or Agent Compactor), its trigger as written (manual, auto, or whatever a newer
// agent writes; "unknown" when the record names none), what it cost where the file records it, and what it left
// against the first request after it. Shared by `inspect`, the Rounds tree and the Context Map.
import type { Analysis } from './analysis';
import type { AgentTokenTotals, Entry } from './entries';
import { contextOf } from './tokens/usage';

/** A request's context as its usage records it (input + cache writes + cache reads), and its line. */
export interface RequestFigure {
  line: number;
  tokens: number;
}

/**
 * The summary request's cost as the agent's running total records it: the difference between its `cost-state` totals
 * just before and just after the boundary, read only when no response of the conversation lies between the two (the
 * difference is then the compaction's own requests, and nothing else).
 */
export interface CompactionCost {
  usd: number;
  /** The difference of its token totals, when both records hold them. */
  tokens: AgentTokenTotals | null;
  /** The two `cost-state` lines the difference is between. */
  fromLine: number;
  toLine: number;
}

export interface AgentCompaction {
  /** 1-based line of the compact boundary (Codex: of its `compacted` record). */
  line: number;
  /** 1-based number among the file's compactions on the main chain, in file order. */
  number: number;
  /** Index of the round that begins at the boundary. */
  round: number;
  by: 'agent' | 'agent-compactor';
  /** The agent that wrote the file (its format's name, e.g. Claude Code, Codex CLI). */
  agent: string;
  /** The trigger as the record writes it (manual, auto, …), or "unknown" when it names none. */
  trigger: string;
  /** The context before, as the record states it (`compactMetadata.preTokens`); null when it does not. */
  preTokens: number | null;
  /**
   * What the compaction left, as the record states it: `compactMetadata.postTokens` (Claude Code 2.1.330: the
   * messages, without system prompt and tools), or Codex's count of the context right after its `compacted` record.
   */
  postTokens: number | null;
  durationMs: number | null;
  /** The last request before the boundary (its usage), or null when the file records none. */
  lastRequestBefore: RequestFigure | null;
  /** The first request after the boundary (before any later boundary), or null when none was made yet. */
  nextRequest: RequestFigure | null;
  /** null: the file does not record it (no `cost-state` on both sides, or a response between them). */
  cost: CompactionCost | null;
}

/** Compactions by analysis: an analysis is not changed once made (a grown file gives a new one); read once for every surface. */
const read = new WeakMap<Analysis, AgentCompaction[]>();

/** Every compaction on the main chain, in file order (the same array for the same analysis: do not change it). */
export function agentCompactions(analysis: Analysis): AgentCompaction[] {
  let found = read.get(analysis);
  if (!found) read.set(analysis, (found = readCompactions(analysis)));
  return found;
}

function readCompactions(analysis: Analysis): AgentCompaction[] {
  const { entries } = analysis.index;
  const boundaries = analysis.chain.boundaries;
  const main = new Set(analysis.chain.main);
  const out: AgentCompaction[] = [];
  boundaries.forEach((b, k) => {
    const e = entries[b];
    const record = e.compactRecord;
    const round = analysis.rounds.find((r) => r.startsAtBoundary && r.entries[0] === b);
    const end = k + 1 < boundaries.length ? boundaries[k + 1] : entries.length;
    out.push({
      line: e.line,
      number: k + 1,
      round: round ? round.index : -1,
      by: record?.by ?? 'agent',
      agent: analysis.index.format.agent,
      trigger: record?.trigger ?? 'unknown',
      preTokens: e.preTokens ?? null,
      postTokens: record?.postTokens ?? codexContextAfter(entries, b, end),
      durationMs: record?.durationMs ?? null,
      lastRequestBefore: requestBefore(entries, main, b),
      nextRequest: requestAfter(entries, main, b, end),
      cost: costBetween(entries, b),
    });
  });
  return out;
}

/** A response's usage that is a real request of the conversation (not a synthetic error, not an empty count). */
function requestOf(e: Entry): number | null {
  if (e.kind !== 'assistant' || !e.usage || e.isApiErrorMessage || e.model === '<synthetic>') return null;
  const tokens = contextOf(e.usage);
  return tokens > 0 ? tokens : null;
}

function requestBefore(entries: Entry[], main: Set<number>, boundary: number): RequestFigure | null {
  for (let i = boundary - 1; i >= 0; i--) {
    const tokens = main.has(i) ? requestOf(entries[i]) : null;
    if (tokens !== null) return { line: entries[i].line, tokens };
  }
  return null;
}

/**
 * The first request sent after the boundary: the first main-chain response after it in the file. A response of the
 * preserved segment (Claude Code's own /compact keeps some from before the boundary) sits on an earlier line, so
 * it is never taken.
 */
function requestAfter(entries: Entry[], main: Set<number>, boundary: number, end: number): RequestFigure | null {
  for (let i = boundary + 1; i < end; i++) {
    const tokens = main.has(i) ? requestOf(entries[i]) : null;
    if (tokens !== null) return { line: entries[i].line, tokens };
  }
  return null;
}

/** Codex's count of the context right after its compacted record (before the next request), or null. */
function codexContextAfter(entries: Entry[], boundary: number, end: number): number | null {
  for (let i = boundary + 1; i < end; i++) {
    const e = entries[i];
    if (e.compactedContextTokens !== undefined) return e.compactedContextTokens;
    if (requestOf(e) !== null) return null;
  }
  return null;
}

/** True for an entry that is a response the running total would count (any chain: a subagent's counts too). */
function isResponse(e: Entry): boolean {
  return e.kind === 'assistant' && e.usage !== undefined && !e.isApiErrorMessage && e.model !== '<synthetic>';
}

/** A compaction's own request as the agent's running total records it: its tokens and the model they were billed to. */
export interface RecordedCompactionRequest {
  /** 1-based line of the compact boundary. */
  line: number;
  tokens: AgentTokenTotals;
  /** The model whose running total grew across the boundary (null when the records do not tell). */
  model: string | null;
}

/**
 * The compaction requests the agent's running total records (see CompactionCost) at the compact boundaries from entry
 * `from` on (the lines before it are copied from another session, and so are its compactions): its summary requests
 * leave no response in the file, so a session's cost must add them to match the agent's own.
 */
export function recordedCompactionRequests(entries: readonly Entry[], from = 0): RecordedCompactionRequest[] {
  const out: RecordedCompactionRequest[] = [];
  for (let i = from; i < entries.length; i++) {
    const e = entries[i];
    if (e.kind !== 'system' || e.subtype !== 'compact_boundary') continue;
    const cost = costBetween(entries, i);
    if (!cost?.tokens) continue;
    out.push({ line: e.line, tokens: cost.tokens, model: modelBilled(entries, cost) });
  }
  return out;
}

/** The model whose recorded cost grew most between the two `cost-state` lines of a compaction's cost. */
function modelBilled(entries: readonly Entry[], cost: CompactionCost): string | null {
  const at = (line: number) => entries.find((e) => e.line === line && e.agentCost)?.agentCost;
  const from = at(cost.fromLine);
  const to = at(cost.toLine);
  if (!from || !to) return null;
  let best: { model: string; grew: number } | null = null;
  for (const m of to.byModel) {
    const grew = m.usd - (from.byModel.find((x) => x.model === m.model)?.usd ?? 0);
    if (grew > 0 && (!best || grew > best.grew)) best = { model: m.model, grew };
  }
  return best?.model ?? null;
}

function costBetween(entries: readonly Entry[], boundary: number): CompactionCost | null {
  let before = -1;
  for (let i = boundary - 1; i >= 0; i--) {
    if (entries[i].agentCost) {
      before = i;
      break;
    }
    if (isResponse(entries[i])) return null;
  }
  if (before < 0) return null;
  for (let i = boundary + 1; i < entries.length; i++) {
    const e = entries[i];
    if (isResponse(e)) return null;
    if (!e.agentCost) continue;
    const from = entries[before].agentCost!;
    const usd = e.agentCost.usd - from.usd;
    // A total that went down was started anew (another process, another file's figure): no difference to read.
    if (usd < 0) return null;
    return {
      usd,
      tokens: tokenDifference(from.tokens, e.agentCost.tokens),
      fromLine: entries[before].line,
      toLine: e.line,
    };
  }
  return null;
}

function tokenDifference(
  from: AgentTokenTotals | null | undefined,
  to: AgentTokenTotals | null | undefined,
): AgentTokenTotals | null {
  if (!from || !to) return null;
  const d = {
    input: to.input - from.input,
    output: to.output - from.output,
    cacheRead: to.cacheRead - from.cacheRead,
    cacheCreation: to.cacheCreation - from.cacheCreation,
  };
  return d.input < 0 || d.output < 0 || d.cacheRead < 0 || d.cacheCreation < 0 ? null : d;
}

function count(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

function usd(n: number): string {
  return n >= 0.00995 ? `$${n.toFixed(2)}` : `$${n.toFixed(4)}`;
}

/** The trigger as shown: the record's own word, cut to letters, digits and a few marks (it is untrusted text). */
export function triggerText(c: AgentCompaction): string {
  const t = c.trigger.replace(/[^A-Za-z0-9 _.:/-]/g, '?').slice(0, 40);
  return t || 'unknown';
}

/** Who compacted and how: "auto compaction by Claude Code", "compaction by Codex CLI (trigger not recorded)". */
export function compactionTitle(c: AgentCompaction): string {
  const who = c.by === 'agent' ? c.agent : 'Agent Compactor';
  return c.trigger === 'unknown'
    ? `compaction by ${who} (trigger not recorded)`
    : `${triggerText(c)} compaction by ${who}`;
}

/**
 * What it left against the next request: "11,440 → 2,793; next request 11,447 (+8,654 more than it left)"; without
 * `gap`, the part in brackets is left out (a short description beside the full text elsewhere).
 */
export function compactionFigures(c: AgentCompaction, gap = true): string {
  const before = c.preTokens ?? c.lastRequestBefore?.tokens ?? null;
  const beforeText =
    before === null
      ? 'context before not recorded'
      : `${count(before)}${c.preTokens === null ? ' (last request before)' : ''}`;
  const after = c.postTokens === null ? 'not recorded' : count(c.postTokens);
  if (c.nextRequest === null) return `${beforeText} → ${after}; no request after it yet`;
  const more =
    gap && c.postTokens !== null
      ? ` (${c.nextRequest.tokens >= c.postTokens ? '+' : '−'}${count(Math.abs(c.nextRequest.tokens - c.postTokens))} more than it left)`
      : '';
  return `${beforeText} → ${after}; next request ${count(c.nextRequest.tokens)}${more}`;
}

/** What the compaction's own request cost: "$0.0537 (12,851 input, 114 output tokens)", or "not recorded". */
export function compactionCostText(c: AgentCompaction): string {
  if (!c.cost) return 'not recorded';
  const t = c.cost.tokens;
  const tokens = t
    ? ` (${count(t.input + t.cacheCreation + t.cacheRead)} input, ${count(t.output)} output tokens)`
    : '';
  return `${usd(c.cost.usd)}${tokens}, from the agent's running total at lines ${c.cost.fromLine} and ${c.cost.toLine}`;
}

/** Why the next request is larger than what the compaction left: the parts no compaction removes. */
export const NEXT_REQUEST_NOTE =
  'The next request carries more than the compaction left: the system prompt and tools, the context the agent re-attaches (files, reminders) and the new prompt.';

/** One line for every surface: "line 576: auto compaction by Claude Code: 167,174 → not recorded; next request 51,732; cost not recorded". */
export function compactionLine(c: AgentCompaction): string {
  return `line ${c.line}: ${compactionTitle(c)}: ${compactionFigures(c)}; cost ${compactionCostText(c)}`;
}
