// Rounds and cost of one session, for the Sessions list: the one figure there that needs the whole file. Read with the
// streaming indexer (yielding to the event loop as it goes, so a 100 MB file never holds up its caller's thread) and
// priced like the Rounds tree prices it (cost.ts).
import { cacheState, expiredResumeCost, type CacheState, type ExpiredResume } from './cache';
import { DEFAULT_SETTINGS } from './compactSettings';
import { DEFAULT_PRICES, priceFor, type PriceTable, type SessionCost } from './cost';
import { fileCost } from './fileCost';
import { analyze, readSessionIndex, readSubagentResponses } from './inspect';
import { contextNow } from './context';
import { contextFromTail } from './contextTail';
import { contextLimits, limitFacts, type ContextLimits, type LimitFacts } from './limits';
import type { SessionSummary } from './sessionList';
import type { TokenSource } from './report';
import { fallbackRecordAgent, type AgentId } from './formats/registry';

export interface SessionStats {
  /** Rounds of the main conversation (history and active context), as the Rounds tree lists them. */
  rounds: number;
  /**
   * The session's cost, as the map and `inspect` give it (fileCost.ts): every response the file itself received priced
   * once at `priceDate`'s list prices (responses of unpriced models count 0), its subagents' and its agent's own
   * compaction requests.
   */
  costUsd: number;
  unpriced: string[];
  /** Models priced at another model's rates (not in the table). */
  assumed: SessionCost['assumed'];
  /** The agent's own figure (its `cost-state` records), or null when it records none. */
  agent: SessionCost['agent'];
  /** What the notes beside the figure say, as the map's and `inspect`'s (cost.ts `CostFacts`). */
  fastUnknown: string[];
  copiedResponses: number;
  agentIncludesCopies: boolean;
  unanswered: SessionCost['unanswered'];
  unrecordedCompactions: number[];
  priceDate: string;
  /**
   * The context figure (context.ts `contextNow`), as the Rounds tree, the status bar and the map show it: the list's
   * quick read of the file's end leaves it unknown when the newest request lies far back or before a compaction, and
   * this corrects it. Null only for a file without rounds.
   */
  contextTokens: number | null;
  contextSource: TokenSource;
  /** The session's estimate calibration (report `calibrationFactor`): the quick read's tail figure is calibrated by it. */
  calibration: number;
  /** System prompt and tools (report `overheadTokens`): the quick read's figure after a compaction needs them. */
  overhead: number | null;
  /** The newest model of the main conversation. */
  model: string | null;
  /** What the session shows of its limits (limits.ts): its window as recorded, its own auto-compactions. */
  limits: LimitFacts;
  /**
   * The prompt cache as the file left it (read at `now`; whether it has expired since is the caller's to say from
   * `cache.expiresAt`), and what resuming costs while it is warm and after it expires, null when the model has no price.
   */
  cache: CacheState;
  expiredResume: ExpiredResume | null;
  /** The file as it was read: the figures hold while its size and mtime are these. */
  size: number;
  mtimeMs: number;
}

/** Lines read between yields to the event loop. */
const YIELD_EVERY = 2000;

/**
 * `targetTokens`: the user's target (agentCompactor.targetTokens), what "compacted first" is estimated at, since
 * planning every listed session in the background is too costly.
 */
export async function sessionStats(
  file: string,
  prices: PriceTable = DEFAULT_PRICES,
  now = Date.now(),
  targetTokens = DEFAULT_SETTINGS.targetTokens,
): Promise<SessionStats> {
  // Any agent's session: JSON lines, or one JSON document (Gemini CLI, Cline).
  const index = await readSessionIndex(file, { yieldEvery: YIELD_EVERY });
  const { rounds, report } = analyze(index, { appendable: false });
  // The one figure of the map and `inspect`: the file's own responses, its subagents' and the agent's compactions.
  const cost = fileCost(index, prices, await readSubagentResponses(file, { yieldEvery: YIELD_EVERY }));
  const cache = cacheState(index.entries, rounds, index.format.id, now);
  const context = contextNow(report);
  const contextTokens = rounds.length ? context.tokens : null;
  const limits = limitFacts(index.format.id, index.entries);
  const priced = limits.model ? priceFor(limits.model, prices) : null;
  const expiredResume =
    priced && contextTokens !== null ? expiredResumeCost(cache, contextTokens, priced.price, targetTokens) : null;
  return {
    rounds: rounds.length,
    costUsd: cost.total.usd,
    unpriced: cost.unpriced,
    assumed: cost.assumed,
    agent: cost.agent,
    fastUnknown: cost.fastUnknown,
    copiedResponses: cost.copiedResponses,
    agentIncludesCopies: cost.agentIncludesCopies,
    unanswered: cost.unanswered,
    unrecordedCompactions: cost.unrecordedCompactions,
    priceDate: cost.priceDate,
    contextTokens,
    contextSource: context.source,
    calibration: report.totals.calibrationFactor,
    overhead: report.totals.overheadTokens,
    model: limits.model,
    limits,
    cache,
    expiredResume,
    size: index.size,
    mtimeMs: index.mtimeMs,
  };
}

/** A session's context as the Sessions list and the live status item show it: the one figure, its window and limits. */
export interface SessionContext {
  /** The context figure (`contextNow`); null while unknown. */
  tokens: number | null;
  /** True when it is the quick read's figure not yet calibrated by a whole read of the file (then ≈ the figure). */
  approximate: boolean;
  model: string | null;
  limits: ContextLimits;
}

/**
 * The one route from a session's two reads to what its row and the live status item show: the whole file's figures
 * while they hold for the file as it is (`stats`, not `stale`); else the quick read's tail (the agent module's
 * `sessions.projects`) calibrated by the session's factor from an earlier whole read, or uncalibrated (≈) before any;
 * the limits from what the whole read saw (its own auto-compactions, the window its agent recorded), which an append
 * does not undo.
 */
export function sessionContext(
  s: SessionSummary & { agent?: AgentId },
  stats: SessionStats | null,
  stale: boolean,
): SessionContext {
  const facts: LimitFacts = stats?.limits ?? {
    // A row that names no agent is a JSON-lines file as the reader that takes any JSON lines reads it.
    format: s.agent ?? fallbackRecordAgent().id,
    model: s.model,
    recordedWindow: null,
    autoCompactions: [],
  };
  if (stats && !stale)
    return { tokens: stats.contextTokens, approximate: false, model: stats.model, limits: contextLimits(facts) };
  const model = s.model ?? facts.model;
  const limits = contextLimits({ ...facts, model });
  if (s.contextTail)
    return {
      tokens: contextFromTail(s.contextTail, stats?.calibration ?? 1, stats?.overhead ?? null),
      approximate: !stats,
      model,
      limits,
    };
  return { tokens: s.contextTokens, approximate: s.contextTokens !== null, model, limits };
}
