// The prompt cache as the session itself records it, and what the next turn costs with and without a compaction.
//
// Anthropic's prompt cache keeps a request's prefix for a lifetime chosen when it is written: 5 minutes (the default)
// or 1 hour. Each request that reads it refreshes that lifetime. A response's usage says how much of its request was
// read from the cache (`cache_read_input_tokens`), how much was written to it (`cache_creation_input_tokens`, split by
// lifetime in `cache_creation.ephemeral_5m_input_tokens` / `ephemeral_1h_input_tokens`) and how much was plain input.
// So the newest response tells what the cache holds now (its read + write: the request's prefix up to the last
// breakpoint) and, with its timestamp and the lifetime of the writes that made that prefix, until when.
//
// Rules are per agent (its module's `cache`): Claude Code records the lifetimes; Codex's rollouts record cached input but not
// how long the provider keeps it, so its state is "unknown" (never guessed as warm or cold).
//
// The next turn's input cost (output is the same either way and left out):
// - resumed as it is: warm, the covered prefix is a cache read and the rest a cache write; expired, the whole
//   context is a cache write;
// - compacted: the summarizer's own cost, then the smaller context written to the cache (the system prompt and tools
//   before the conversation are still a cache read when the cache is warm: the compaction changes what follows them);
// - every later turn reads its context from the cache, so a compaction saves (before − after) × the read rate per turn.
// The break-even is the number of later turns whose savings repay what the compaction's first turn costs more.
import type { Entry } from './entries';
import type { Round } from './rounds';
import { newestUsageInContext } from './tokens/usage';
import { priceFor, type ModelPrice, type PriceTable } from './cost';
import type { Analysis } from './analysis';
import { contextNow } from './context';
import type { CacheRules } from './formats/agent';
import { agentModule, type AgentId } from './formats/registry';

export { FIVE_MINUTES_MS } from './formats/agent';
export const ONE_HOUR_MS = 60 * 60_000;

export type CacheStatus = 'warm' | 'expired' | 'unknown';

export interface CacheState {
  status: CacheStatus;
  /** Why the status is what it is, in words a user reads ("written for 1 hour at 14:02", "the record does not say"). */
  reason: string;
  /** When the newest request was answered (ms since the epoch), null when no response records a time. */
  lastRequestAt: number | null;
  /** The lifetime of the cached prefix, null when unknown. */
  ttlMs: number | null;
  /** When the cached prefix expires or expired, null when unknown. */
  expiresAt: number | null;
  /** Tokens of the newest request that the cache holds now (its cache read + cache write), 0 when none. */
  coveredTokens: number;
  /** The newest request's whole input side (fresh + cache write + cache read), 0 when there is no usage. */
  requestTokens: number;
}

export type { CacheRules } from './formats/agent';

/** The agent's cache rules (its module's): null when its records do not say how long the cache lives. */
function rulesFor(agent: AgentId): CacheRules | null {
  return agentModule(agent).cache.rules;
}

function timeOf(e: Entry | undefined): number | null {
  const t = e?.timestamp ? Date.parse(e.timestamp) : NaN;
  return Number.isFinite(t) ? t : null;
}

function clock(ms: number): string {
  return new Date(ms).toISOString().slice(11, 16) + ' UTC';
}

/** A span in the largest whole unit that fits: "40 min", "3 h", "12 days" (at least "1 min"). */
export function span(ms: number): string {
  const min = Math.max(1, Math.floor(ms / 60_000));
  if (min < 120) return `${min} min`;
  const h = Math.floor(min / 60);
  return h < 48 ? `${h} h` : `${Math.floor(h / 24)} days`;
}

/**
 * The lifetime of the prefix the newest request left in the cache: that of the newest write at or before it in the
 * active context (a read alone refreshes the lifetime its prefix was written with). 1 hour when that write was of
 * 1-hour tokens, else the agent's default. Null when no request of the active context wrote to the cache.
 */
function prefixTtl(entries: Entry[], rounds: Round[], upTo: number, rules: CacheRules): number | null {
  for (let i = upTo; i >= 0 && rounds[i].inContext; i--) {
    const r = rounds[i];
    if (r.usageEntry < 0 || r.synthetic) continue;
    const u = entries[r.usageEntry].usage;
    if (!u || u.cacheCreation <= 0) continue;
    if (u.cacheWrite && u.cacheWrite.h1 > 0) return ONE_HOUR_MS;
    return rules.defaultTtlMs;
  }
  return null;
}

/** The cache's state at `now` from the session's own records, read by the rules of the agent that wrote them. */
export function cacheState(entries: Entry[], rounds: Round[], agent: AgentId, now: number): CacheState {
  const newest = newestUsageInContext(entries, rounds);
  const none = (reason: string, extra: Partial<CacheState> = {}): CacheState => ({
    status: 'unknown',
    reason,
    lastRequestAt: null,
    ttlMs: null,
    expiresAt: null,
    coveredTokens: 0,
    requestTokens: 0,
    ...extra,
  });
  if (!newest) return none('no request of the active context records its usage');
  const u = entries[newest.round.usageEntry].usage;
  const lastRequestAt = timeOf(entries[newest.round.usageEntry]);
  const coveredTokens = u ? u.cacheRead + u.cacheCreation : 0;
  const base = { lastRequestAt, coveredTokens, requestTokens: newest.usage.contextTokens };
  const rules = rulesFor(agent);
  if (!rules || !rules.recordsLifetime) return none(agentModule(agent).cache.unknown, base);
  if (lastRequestAt === null) return none('the newest response records no time', base);
  if (coveredTokens === 0) return none('the newest request neither read nor wrote the cache', base);
  const index = rounds.indexOf(newest.round);
  const ttlMs = prefixTtl(entries, rounds, index, rules) ?? rules.defaultTtlMs;
  const expiresAt = lastRequestAt + ttlMs;
  const lifetime = ttlMs === ONE_HOUR_MS ? '1 hour' : '5 minutes';
  if (now < expiresAt)
    return {
      status: 'warm',
      reason: `cache warm for ${span(expiresAt - now)} more (written for ${lifetime}, last used at ${clock(lastRequestAt)}; until ${clock(expiresAt)})`,
      ttlMs,
      expiresAt,
      ...base,
    };
  return {
    status: 'expired',
    reason: `cache expired ${span(now - expiresAt)} ago (written for ${lifetime}, last used at ${clock(lastRequestAt)})`,
    ttlMs,
    expiresAt,
    ...base,
  };
}

export interface NextTurnInput {
  cache: CacheState;
  /** What the next request carries now (the one context figure, core/context.ts). */
  contextTokens: number;
  /** System prompt and tools: the part of the prefix a compaction leaves in place. */
  overheadTokens: number;
  /** What the next request carries after the compaction (the plan's promise). */
  afterTokens: number;
  /** What the summarizer itself costs (0 offline). */
  summarizerUsd: number;
  price: ModelPrice;
  /** How many later turns `savedOverTurns` counts. Default 20. */
  horizon?: number;
}

export interface NextTurnCost {
  /** Input cost of the next turn resumed as it is. */
  asIsUsd: number;
  /** Input cost of the next turn after the compaction, the summarizer's cost included. */
  compactedUsd: number;
  /** What each later turn saves (its context is smaller by before − after, read from the cache). */
  savedPerTurnUsd: number;
  /**
   * Later turns after which the compaction has paid for itself: 0 when its first turn is already no dearer; null when
   * it never does (it makes the context no smaller).
   */
  breakEvenTurns: number | null;
  horizon: number;
  /** Net saving over `horizon` later turns (negative when the compaction costs more than it saves in that time). */
  savedOverHorizonUsd: number;
  /** Whether the warm-cache case was used (else the whole context is written anew either way). */
  warm: boolean;
}

/** The rate of a cache write of the given lifetime (1 hour, else 5 minutes). */
function writeRate(price: ModelPrice, ttlMs: number | null): number {
  return ttlMs === ONE_HOUR_MS ? price.cacheWrite1h : price.cacheWrite5m;
}

/** The next turn's input cost as it is and after a compaction, the saving per later turn and the break-even. */
export function nextTurnCost(input: NextTurnInput): NextTurnCost {
  const { cache, price } = input;
  const horizon = input.horizon ?? 20;
  const perM = (tokens: number, rate: number) => (Math.max(0, tokens) * rate) / 1e6;
  const write = writeRate(price, cache.ttlMs);
  const warm = cache.status === 'warm';
  const context = Math.max(0, input.contextTokens);
  const covered = warm ? Math.min(cache.coveredTokens, context) : 0;
  const asIsUsd = perM(covered, price.cacheRead) + perM(context - covered, write);
  const after = Math.max(0, input.afterTokens);
  const keptPrefix = warm ? Math.min(input.overheadTokens, after, covered) : 0;
  const compactedUsd = input.summarizerUsd + perM(keptPrefix, price.cacheRead) + perM(after - keptPrefix, write);
  const savedPerTurnUsd = perM(context - after, price.cacheRead);
  const extra = compactedUsd - asIsUsd;
  let breakEvenTurns: number | null;
  if (extra <= 0) breakEvenTurns = 0;
  else if (savedPerTurnUsd <= 0) breakEvenTurns = null;
  else breakEvenTurns = Math.ceil(extra / savedPerTurnUsd - 1e-9);
  return {
    asIsUsd,
    compactedUsd,
    savedPerTurnUsd,
    breakEvenTurns,
    horizon,
    savedOverHorizonUsd: savedPerTurnUsd * horizon - extra,
    warm,
  };
}

/** A plan whose next turn has no price: the newest response's model is unknown or not in the price table. */
export interface UnpricedEconomics {
  priced: false;
  cache: CacheState;
  model: string | null;
  /** Why, in words a user reads, with where to give a price. */
  reason: string;
}

/** What pricing the next turn needs: when "now" is, the price table, and where a user gives a price. */
export interface AsIsOptions {
  now: number;
  prices?: PriceTable;
  /** Where a price is given, for the unpriced reason (default: both the setting and the CLI option). */
  pricesHint?: string;
}

const PRICES_HINT = 'the agentCompactor.prices setting or --prices';

/** The next turn resumed as it is, without a plan: the cache's state and the input cost, or why it has no price. */
export type AsIsNextTurn =
  | {
      priced: true;
      cache: CacheState;
      model: string;
      priceKey: string;
      assumed: boolean;
      contextTokens: number;
      asIsUsd: number;
    }
  | UnpricedEconomics;

export function nextTurnAsIs(analysis: Analysis, options: AsIsOptions): AsIsNextTurn {
  const { entries } = analysis.index;
  const cache = cacheState(entries, analysis.rounds, analysis.index.format.id, options.now);
  const model = newestUsageInContext(entries, analysis.rounds)?.round.model ?? null;
  const priced = model ? priceFor(model, options.prices) : null;
  if (!model) return { priced: false, cache, model, reason: 'no response of the active context names its model' };
  if (!priced)
    return {
      priced: false,
      cache,
      model,
      reason: `no price for ${model}: give one with ${options.pricesHint ?? PRICES_HINT}`,
    };
  const contextTokens = contextNow(analysis.report).tokens;
  const { asIsUsd } = nextTurnCost({
    cache,
    contextTokens,
    overheadTokens: 0,
    afterTokens: contextTokens,
    summarizerUsd: 0,
    price: priced.price,
  });
  return { priced: true, cache, model, priceKey: priced.key, assumed: priced.assumed, contextTokens, asIsUsd };
}

/** "the next turn's input as it is ≈ $0.05 (at claude-sonnet-4-6 rates)", or that it is not priced and why. */
export function asIsLine(n: AsIsNextTurn): string {
  if (!n.priced) return `the next turn is not priced (${n.reason})`;
  const rates = n.assumed ? `${n.model} assumed at ${n.priceKey} rates` : `${n.priceKey} rates`;
  return `the next turn's input as it is ≈ ${dollars(n.asIsUsd)} (at ${rates})`;
}

/** A cost in dollars: cents from a cent up, else four decimals. */
export function dollars(usd: number): string {
  return usd >= 0.00995 ? `$${usd.toFixed(2)}` : `$${usd.toFixed(4)}`;
}

/** What resuming a session costs as it is and compacted first, for a list that does not plan. */
export interface ExpiredResume {
  /** The whole context written to the cache anew (once the cache has expired). */
  asIsUsd: number;
  /** The next turn while the cache is warm: its covered prefix read, the rest written (null when the state is not warm). */
  warmUsd: number | null;
  /** The context compacted to `afterTokens` first, then written anew (offline summarizer: no cost of its own). */
  compactedUsd: number;
  /** The estimated context after the compaction: the target, or the context itself when it is smaller. */
  afterTokens: number;
}

/**
 * The next turn after the cache expired, without a plan: the compacted context is estimated as `targetTokens` (what a
 * plan with the user's target aims at), so callers say "≈". Written at the lifetime the session's writes used. While
 * the cache is warm, also what the next turn costs now (`warmUsd`).
 */
export function expiredResumeCost(
  cache: CacheState,
  contextTokens: number,
  price: ModelPrice,
  targetTokens: number,
): ExpiredResume {
  const afterTokens = Math.min(Math.max(0, contextTokens), targetTokens);
  const cost = nextTurnCost({
    cache: { ...cache, status: 'expired' },
    contextTokens,
    overheadTokens: 0,
    afterTokens,
    summarizerUsd: 0,
    price,
  });
  const warmUsd =
    cache.status === 'warm'
      ? nextTurnCost({ cache, contextTokens, overheadTokens: 0, afterTokens: contextTokens, summarizerUsd: 0, price })
          .asIsUsd
      : null;
  return { asIsUsd: cost.asIsUsd, warmUsd, compactedUsd: cost.compactedUsd, afterTokens };
}
