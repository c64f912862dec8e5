// What a session cost, from the usage its responses record: every API response is priced
// once (by message id and request id, keeping its final figures), at the rates of its model.
// Claude Code writes one line per content block of a response, each carrying the response's
// usage (earlier lines may hold placeholders), so summing lines would count a response many times.
import type { Entry, Usage } from './entries';
import { ownValue, setOwn } from './json';

/** USD per million tokens. */
export interface ModelPrice {
  input: number;
  output: number;
  /** Cache writes that live 5 minutes (1.25 × input). */
  cacheWrite5m: number;
  /** Cache writes that live 1 hour (2 × input). */
  cacheWrite1h: number;
  cacheRead: number;
  /**
   * Rates for a request whose input (fresh + cache writes + cache reads) exceeds 200,000 tokens,
   * on models that offer a 1M-token context; they apply to the whole request.
   */
  longContext?: Omit<ModelPrice, 'longContext'>;
}

export interface PriceTable {
  /** When the rates were checked, and where. */
  date: string;
  source: string;
  /** Model family key (see `modelKey`) -> rates. */
  models: Record<string, ModelPrice>;
}

const LONG_CONTEXT_INPUT = 200_000;

function rates(input: number, output: number, long?: [number, number]): ModelPrice {
  const p: ModelPrice = { input, output, cacheWrite5m: input * 1.25, cacheWrite1h: input * 2, cacheRead: input / 10 };
  if (long) p.longContext = { input: long[0], output: long[1], cacheWrite5m: long[0] * 1.25, cacheWrite1h: long[0] * 2, cacheRead: long[0] / 10 };
  return p;
}

/**
 * Anthropic's list prices for the Claude models Claude Code uses. Cache writes cost 1.25× input
 * (5-minute) or 2× input (1-hour), cache reads 0.1× input. The session totals agree with ccusage
 * 20.0.24 (its built-in models.dev table) on the shared fixtures (test/compat/ccusage.test.ts).
 */
export const DEFAULT_PRICES: PriceTable = {
  date: '2026-11-23',
  source: 'Anthropic list prices (https://docs.claude.com/en/docs/about-claude/pricing), checked against ccusage 20.0.24',
  models: {
    'claude-opus-4-7': rates(5, 25, [10, 37.5]),
    'claude-opus-4-6': rates(5, 25, [10, 37.5]),
    'claude-opus-4-5': rates(5, 25),
    'claude-opus-4-1': rates(15, 75),
    'claude-opus-4': rates(15, 75),
    'claude-sonnet-4-6': rates(3, 15, [6, 22.5]),
    'claude-sonnet-4-5': rates(3, 15, [6, 22.5]),
    'claude-sonnet-4': rates(3, 15, [6, 22.5]),
    'claude-haiku-4-5': rates(1, 5),
    'claude-3-7-sonnet': rates(3, 15),
    'claude-3-5-sonnet': rates(3, 15),
    'claude-3-5-haiku': rates(0.8, 4),
    'claude-3-opus': rates(15, 75),
    'claude-3-haiku': rates(0.25, 1.25),
  },
};

/**
 * The family key of a model id: lower case, dots as dashes, without a date (`-20250514`), a
 * provider prefix (`anthropic.`, `us.anthropic.`), a version suffix (`-v1:0`, `@...`) or a
 * context-size tag (`[1m]`, `-1m`). `claude-sonnet-4-20250514` -> `claude-sonnet-4`.
 */
export function modelKey(model: string): string {
  let m = model.toLowerCase().trim();
  m = m.replace(/^.*?(?=claude-)/, '');
  m = m.replace(/\[1m\]$/, '').replace(/[@:].*$/, '').replace(/-v\d+$/, '');
  m = m.replace(/\./g, '-');
  m = m.replace(/-1m$/, '').replace(/-\d{8}$/, '').replace(/-latest$/, '');
  return m;
}

/** The rates for a model: its own key, else the longest key it starts with (`claude-opus-4-1` before `claude-opus-4`). */
export function priceFor(model: string, table: PriceTable = DEFAULT_PRICES): { key: string; price: ModelPrice } | null {
  const key = modelKey(model);
  const own = ownValue(table.models, key);
  if (own) return { key, price: own };
  let best: string | null = null;
  for (const k of Object.keys(table.models)) {
    if (key.startsWith(k + '-') && (best === null || k.length > best.length)) best = k;
  }
  return best ? { key: best, price: table.models[best] } : null;
}

export interface Cost {
  usd: number;
  input: number;
  output: number;
  cacheWrite: number;
  cacheRead: number;
}

export const ZERO_COST: Readonly<Cost> = { usd: 0, input: 0, output: 0, cacheWrite: 0, cacheRead: 0 };

/** The cost of one response's usage at the given rates (USD; parts by kind of token). */
export function costOfUsage(u: Usage, price: ModelPrice): Cost {
  const inputSide = u.input + u.cacheCreation + u.cacheRead;
  const p = price.longContext && inputSide > LONG_CONTEXT_INPUT ? price.longContext : price;
  const m5 = u.cacheWrite ? u.cacheWrite.m5 : u.cacheCreation;
  const h1 = u.cacheWrite ? u.cacheWrite.h1 : 0;
  const input = (u.input * p.input) / 1e6;
  const output = (u.output * p.output) / 1e6;
  const cacheWrite = (m5 * p.cacheWrite5m + h1 * p.cacheWrite1h) / 1e6;
  const cacheRead = (u.cacheRead * p.cacheRead) / 1e6;
  return { usd: input + output + cacheWrite + cacheRead, input, output, cacheWrite, cacheRead };
}

export function addCost(a: Cost, b: Cost): Cost {
  return { usd: a.usd + b.usd, input: a.input + b.input, output: a.output + b.output, cacheWrite: a.cacheWrite + b.cacheWrite, cacheRead: a.cacheRead + b.cacheRead };
}

/** One priced API response. */
export interface PricedResponse {
  messageId: string;
  model: string | null;
  /** The price-table key used, or null when the model has no price (its cost then counts as 0). */
  priceKey: string | null;
  usage: Usage;
  cost: Cost;
  sidechain: boolean;
}

export interface SessionCost {
  /** Every response of the file, priced once, by message id. */
  responses: Map<string, PricedResponse>;
  total: Cost;
  /** Per model id (as written in the transcript). */
  byModel: Map<string, Cost>;
  /** Models without a price in the table (their responses count as 0). */
  unpriced: string[];
  priceDate: string;
  priceSource: string;
}

function usageTotal(u: Usage): number {
  return u.input + u.output + u.cacheCreation + u.cacheRead;
}

/**
 * Prices every response of a transcript. Lines are grouped by message id and request id; of
 * a group's lines the one with the largest token total counts (the final figures), a main-chain
 * line before a sidechain replay of it. Synthetic responses (API errors) carry no cost.
 */
export function sessionCost(entries: readonly Entry[], table: PriceTable = DEFAULT_PRICES): SessionCost {
  const chosen = new Map<string, Entry>();
  for (const e of entries) {
    if (e.kind !== 'assistant' || !e.usage || !e.messageId) continue;
    const key = `${e.messageId}\u0000${e.requestId ?? ''}`;
    const had = chosen.get(key);
    if (!had || replaces(e, had)) chosen.set(key, e);
  }
  const responses = new Map<string, PricedResponse>();
  const byModel = new Map<string, Cost>();
  const unpriced = new Set<string>();
  let total: Cost = { ...ZERO_COST };
  for (const e of chosen.values()) {
    const usage = e.usage!;
    const model = e.model ?? null;
    const found = model && model !== '<synthetic>' ? priceFor(model, table) : null;
    if (model && model !== '<synthetic>' && !found && usageTotal(usage) > 0) unpriced.add(model);
    const cost = found ? costOfUsage(usage, found.price) : { ...ZERO_COST };
    const priced: PricedResponse = { messageId: e.messageId!, model, priceKey: found ? found.key : null, usage, cost, sidechain: e.isSidechain };
    const had = responses.get(priced.messageId);
    // One response retried under several request ids: the round shows the sum.
    responses.set(priced.messageId, had ? { ...priced, cost: addCost(had.cost, cost) } : priced);
    total = addCost(total, cost);
    if (model) byModel.set(model, addCost(byModel.get(model) ?? { ...ZERO_COST }, cost));
  }
  return { responses, total, byModel, unpriced: [...unpriced].sort(), priceDate: table.date, priceSource: table.source };
}

function replaces(candidate: Entry, existing: Entry): boolean {
  if (candidate.isSidechain !== existing.isSidechain) return existing.isSidechain;
  return usageTotal(candidate.usage!) > usageTotal(existing.usage!);
}

/**
 * A price table with the user's rates laid over the defaults (a setting: model key -> partial
 * rates in USD per million tokens). Invalid numbers are refused with the key that holds them.
 */
export function withPriceOverrides(overrides: Record<string, Partial<ModelPrice>>, base: PriceTable = DEFAULT_PRICES): PriceTable {
  const models: Record<string, ModelPrice> = { ...base.models };
  const keys = Object.keys(overrides);
  for (const key of keys) {
    const given = overrides[key];
    for (const [field, value] of Object.entries(given)) {
      if (field === 'longContext') continue;
      if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw new Error(`price of ${key}.${field}: expected a number of USD per million tokens, got ${JSON.stringify(value)}`);
    }
    const k = modelKey(key);
    const start = ownValue(models, k) ?? priceFor(k, base)?.price;
    const input = given.input ?? start?.input;
    const output = given.output ?? start?.output;
    if (input === undefined || output === undefined) throw new Error(`price of ${key}: a new model needs at least input and output`);
    const price: ModelPrice = {
      input,
      output,
      cacheWrite5m: given.cacheWrite5m ?? (given.input !== undefined || !start ? input * 1.25 : start.cacheWrite5m),
      cacheWrite1h: given.cacheWrite1h ?? (given.input !== undefined || !start ? input * 2 : start.cacheWrite1h),
      cacheRead: given.cacheRead ?? (given.input !== undefined || !start ? input / 10 : start.cacheRead),
    };
    if (start?.longContext && given.input === undefined && given.output === undefined) price.longContext = start.longContext;
    setOwn(models, k, price);
  }
  return keys.length ? { date: base.date, source: `${base.source}; overridden by settings for ${keys.join(', ')}`, models } : base;
}
