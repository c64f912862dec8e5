// What a session cost, from the usage its responses record: every API response is priced
// once (by message id and request id, keeping its final figures), at the rates of its model.
// Claude Code writes one line per content block of a response, each carrying the response's
// usage (earlier lines may hold placeholders), so summing lines would count a response many times.
import { isCompactBoundary, type AgentCostRecord, type Entry, type Usage } from './entries';
import { ownValue, setOwn } from './json';
import { recordedCompactionRequests } from './agentCompactions';

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
   * Rates for a request whose input (fresh + cache writes + cache reads) exceeds `longContextAbove`
   * tokens, on models that offer a 1M-token context; they apply to the whole request.
   */
  longContext?: Omit<ModelPrice, 'longContext' | 'longContextAbove'>;
  /** Input tokens above which `longContext` applies (default 200,000). */
  longContextAbove?: number;
  /**
   * What a response served in fast mode (its usage says `speed: "fast"`) costs, as a multiple of every rate above
   * (input, output, cache writes and reads, long context alike). Absent: the model has no fast mode we know a rate of,
   * and its fast responses are priced at the standard rates (`SessionCost.fastUnknown` says so).
   */
  fast?: number;
}

export interface PriceTable {
  /** When the rates were checked, and where. */
  date: string;
  source: string;
  /** Model family key (see `modelKey`) -> rates. */
  models: Record<string, ModelPrice>;
}

const LONG_CONTEXT_INPUT = 200_000;

function rates(
  input: number,
  output: number,
  long?: [number, number],
  cacheReadShare = 0.1,
  longAbove?: number,
): ModelPrice {
  const p: ModelPrice = {
    input,
    output,
    cacheWrite5m: input * 1.25,
    cacheWrite1h: input * 2,
    cacheRead: input * cacheReadShare,
  };
  if (long)
    p.longContext = {
      input: long[0],
      output: long[1],
      cacheWrite5m: long[0] * 1.25,
      cacheWrite1h: long[0] * 2,
      cacheRead: long[0] * cacheReadShare,
    };
  if (longAbove !== undefined) p.longContextAbove = longAbove;
  return p;
}

/** Requests whose input exceeds this many tokens are priced at the long-context rates of the GPT-5.4 and later models. */
const OPENAI_LONG_CONTEXT_INPUT = 272_000;

/**
 * An OpenAI model's rates: input, cached input and output. Codex records, per request, its input with the cached part
 * inside it and its output with the reasoning inside it (`token_count` events: `input_tokens` ⊇ `cached_input_tokens`,
 * `output_tokens` ⊇ `reasoning_output_tokens`); the reader keeps input − cached as input and cached as cache read, so
 * reasoning is priced as output. Rollouts record no cache writes: the write rates are the input rate (what a prefix
 * not yet cached costs; the 1.25× write premium of the GPT-5.6 and later models is not in the record). `long`: the
 * whole request at 2× input and cached input and 1.5× output past 272,000 input tokens.
 */
function openai(input: number, cached: number, output: number, long = false): ModelPrice {
  const p: ModelPrice = { input, output, cacheWrite5m: input, cacheWrite1h: input, cacheRead: cached };
  if (long) {
    p.longContext = {
      input: input * 2,
      output: output * 1.5,
      cacheWrite5m: input * 2,
      cacheWrite1h: input * 2,
      cacheRead: cached * 2,
    };
    p.longContextAbove = OPENAI_LONG_CONTEXT_INPUT;
  }
  return p;
}

/**
 * The OpenAI models Codex uses (its 0.169 model list, and the models of the rollouts in the fixtures), at OpenAI's
 * standard API rates. Every row ccusage 20.0.24 prices offline (`ccusage codex session --offline`) is its rate,
 * measured one kind of token at a time and at 272,000 / 272,001 input tokens, and matches OpenAI's published rates
 * (https://developers.openai.com/api/docs/pricing, as read in the pricing posts of 2026-06 to 2026-11; GPT-5.6 Terra
 * and Luna after the 2026-07-30 cut, GPT-5.6 Sol at its $4 / $20 rate); test/compat/ccusage-codex.test.ts checks our
 * session totals against ccusage on every Codex fixture. The GPT-6 Sol / Luna, GPT-6.1 Sol and GPT-6.2 rows, which
 * ccusage 20.0.24 does not price, are OpenAI's published rates of 2026-09-22 (GPT-6 Sol, Luna), 2026-09-29 (GPT-6.1
 * Sol) and 2026-11-17 (GPT-6.2 Astra, Sol: cached input 60% below GPT-6 Astra's), long-context as their family's.
 */
const OPENAI_PRICES: Record<string, ModelPrice> = {
  'gpt-6.2-astra': openai(8, 0.4, 40, true),
  'gpt-6.2-sol': openai(2, 0.1, 10, true),
  'gpt-6.1-sol': openai(2, 0.1, 10, true),
  'gpt-6-astra': openai(10, 1, 50, true),
  'gpt-6-sol': openai(2, 0.2, 10, true),
  'gpt-6-luna': openai(0.1, 0.01, 0.5, true),
  'gpt-5.6-sol': openai(4, 0.4, 20, true),
  'gpt-5.6-terra': openai(2, 0.2, 12, true),
  'gpt-5.6-luna': openai(0.2, 0.02, 1.2, true),
  'gpt-5.5': openai(5, 0.5, 30, true),
  'gpt-5.5-pro': openai(30, 30, 180, true),
  'gpt-5.4': openai(2.5, 0.25, 15, true),
  'gpt-5.4-pro': openai(30, 30, 180, true),
  'gpt-5.4-mini': openai(0.75, 0.075, 4.5),
  'gpt-5.4-nano': openai(0.2, 0.02, 1.25),
  'gpt-5.3-codex': openai(1.75, 0.175, 14),
  'gpt-5.2-codex': openai(1.75, 0.175, 14),
  'gpt-5.2': openai(1.75, 0.175, 14),
  'gpt-5.1-codex-max': openai(1.25, 0.125, 10),
  'gpt-5.1-codex-mini': openai(0.25, 0.025, 2),
  'gpt-5.1-codex': openai(1.25, 0.125, 10),
  'gpt-5.1': openai(1.25, 0.125, 10),
  'gpt-5-codex': openai(1.25, 0.125, 10),
  'gpt-5': openai(1.25, 0.125, 10),
};

/**
 * The Claude models Claude Code uses, at Anthropic's list prices. Cache writes cost 1.25× input
 * (5-minute) or 2× input (1-hour), cache reads 0.1× input (0.05× on the 5.5 models). The older rows'
 * session totals agree with ccusage 20.0.24 (its built-in models.dev table) on the shared fixtures
 * (test/compat/ccusage.test.ts). The rows from `claude-opus-4-8` on are the rates Claude Code 2.1.330
 * itself applies (its `cost-state` records' per-model `costUSD`, measured offline against the fake API
 * with one kind of token at a time and then all together; none has a long-context premium at 300,000 input
 * tokens but claude-haiku-5-5, five times its rates above 100,000; the 1-hour cache-write rate was not
 * measured and is taken as 2× input like every other model's).
 * `claude-opus-5-5` is the model Claude Code 2.1.330 uses when none is chosen.
 */
/**
 * Fast mode's multiple of the standard rates, by model (responses whose usage says `speed: "fast"`; every rate
 * multiplied alike: input, output, cache writes and reads, long context). The multiples are those ccusage 20.0.24
 * applies (the `fast-multiplier-overrides.json` it embeds), measured with its binary offline on one fixture-derived
 * session priced at `speed: "standard"` and at `speed: "fast"`: 6× for claude-opus-4-6 and claude-opus-4-7, 2× for
 * claude-opus-4-8 and claude-opus-5, 1× (no premium) for every other model it prices. test/compat/ccusage.test.ts
 * checks a fast session against it. A model not here has no fast rate we know: its fast responses are priced at the
 * standard rates and the figure says so (`SessionCost.fastUnknown`).
 */
const FAST_MULTIPLIER: Record<string, number> = {
  'claude-opus-4-6': 6,
  'claude-opus-4-7': 6,
  'claude-opus-4-8': 2,
  'claude-opus-5': 2,
};

/** The table's rows with the fast-mode multiple of the models that have one. */
function withFastMode(models: Record<string, ModelPrice>): Record<string, ModelPrice> {
  const out: Record<string, ModelPrice> = {};
  for (const [key, price] of Object.entries(models)) {
    const fast = ownValue(FAST_MULTIPLIER, key);
    setOwn(out, key, fast === undefined ? price : { ...price, fast });
  }
  return out;
}

export const DEFAULT_PRICES: PriceTable = {
  date: '2026-11-25',
  source:
    'Anthropic list prices (https://docs.claude.com/en/docs/about-claude/pricing), checked against ccusage 20.0.24; ' +
    'claude-opus-4-8 and the 5.x models at the rates Claude Code 2.1.330 records in its cost-state lines; ' +
    'OpenAI standard API rates (https://developers.openai.com/api/docs/pricing), checked against ccusage 20.0.24; ' +
    'fast mode (usage speed: fast) at the multiples ccusage 20.0.24 applies',
  models: withFastMode({
    'claude-opus-5-5': rates(4, 20, undefined, 0.05),
    'claude-opus-5': rates(5, 25),
    'claude-opus-4-8': rates(5, 25),
    'claude-opus-4-7': rates(5, 25, [10, 37.5]),
    'claude-opus-4-6': rates(5, 25, [10, 37.5]),
    'claude-opus-4-5': rates(5, 25),
    'claude-opus-4-1': rates(15, 75),
    'claude-opus-4': rates(15, 75),
    // Claude Code's alias of claude-opus-4 / claude-sonnet-4.
    'claude-opus-4-0': rates(15, 75),
    'claude-sonnet-5-5': rates(2, 10, undefined, 0.05),
    'claude-sonnet-5': rates(2, 10),
    'claude-sonnet-4-6': rates(3, 15, [6, 22.5]),
    'claude-sonnet-4-5': rates(3, 15, [6, 22.5]),
    'claude-sonnet-4': rates(3, 15, [6, 22.5]),
    'claude-sonnet-4-0': rates(3, 15, [6, 22.5]),
    // Five times the rates for a request over 100,000 input tokens (measured: 100,000 at $0.10/M, 100,001 at $0.50/M).
    'claude-haiku-5-5': rates(0.1, 0.5, [0.5, 2.5], 0.1, 100_000),
    'claude-haiku-4-5': rates(1, 5),
    'claude-3-7-sonnet': rates(3, 15),
    'claude-3-5-sonnet': rates(3, 15),
    'claude-3-5-haiku': rates(0.8, 4),
    'claude-3-opus': rates(15, 75),
    'claude-3-haiku': rates(0.25, 1.25),
    ...OPENAI_PRICES,
  }),
};

/**
 * The family key of a model id: lower case, dots as dashes, without a date (`-20250514`), a
 * provider prefix (`anthropic.`, `us.anthropic.`), a version suffix (`-v1:0`, `@...`) or a
 * context-size tag (`[1m]`, `-1m`). `claude-sonnet-4-20250514` -> `claude-sonnet-4`. An OpenAI
 * id keeps its dots as OpenAI writes them and loses a provider prefix (`openai/`) and a date
 * (`-2025-08-07`): `openai/gpt-5.4-2026-03-05` -> `gpt-5.4`.
 */
export function modelKey(model: string): string {
  let m = model.toLowerCase().trim();
  const gpt = /(?:^|[/.])(gpt-\d.*)$/.exec(m);
  if (gpt && !m.includes('claude-')) return gpt[1].replace(/-\d{4}-\d{2}-\d{2}$/, '').replace(/-latest$/, '');
  m = m.replace(/^.*?(?=claude-)/, '');
  m = m
    .replace(/\[1m\]$/, '')
    .replace(/[@:].*$/, '')
    .replace(/-v\d+$/, '');
  m = m.replace(/\./g, '-');
  m = m
    .replace(/-1m$/, '')
    .replace(/-\d{8}$/, '')
    .replace(/-latest$/, '');
  return m;
}

/** How a model was priced. */
export interface PriceMatch {
  /** The price-table key whose rates apply. */
  key: string;
  price: ModelPrice;
  /**
   * True when the model is not in the table and the rates are another model's: a tagged variant of a known model
   * (`claude-opus-4-6-fast` -> `claude-opus-4-6`), or an unknown version of a known family (`claude-opus-4-9` -> the
   * family's newest model). Every figure built on them says so.
   */
  assumed: boolean;
}

const FAMILIES = ['opus', 'sonnet', 'haiku'] as const;

/**
 * The family of a model key, or null: a Claude model's (`claude-opus-4-8` -> `opus`, `claude-3-5-haiku` -> `haiku`);
 * an OpenAI model's tier, the words after its version (`gpt-6.1-terra` -> `gpt terra`, `gpt-5.5` -> `gpt`,
 * `gpt-5-codex` -> `gpt codex`).
 */
export function modelFamily(key: string): string | null {
  const gpt = /^gpt-\d+(?:\.\d+)?(?:-(.+))?$/.exec(key);
  if (gpt) return gpt[1] ? `gpt ${gpt[1]}` : 'gpt';
  if (!key.startsWith('claude-')) return null;
  const words = key.split('-');
  return FAMILIES.find((f) => words.includes(f)) ?? null;
}

/**
 * The version numbers in a model key, in order (`claude-opus-4-8` -> [4, 8], `claude-3-5-haiku` -> [3, 5],
 * `gpt-5.6-sol` -> [5, 6]).
 */
function versionOf(key: string): number[] {
  return key
    .split(/[-.]/)
    .filter((w) => /^\d{1,3}$/.test(w))
    .map(Number);
}

function newerVersion(a: number[], b: number[]): boolean {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i] ?? -1;
    const y = b[i] ?? -1;
    if (x !== y) return x > y;
  }
  return false;
}

/**
 * The rates for a model: its own key's; else, assumed, those of the longest key it extends with a tag (not a version
 * number: `claude-opus-4-8` is not a `claude-opus-4`); else, assumed, those of the newest model of its family in the
 * table (an unknown version is priced like the family's current model, never at a legacy model's rates). Null for a
 * model of no known family.
 */
export function priceFor(model: string, table: PriceTable = DEFAULT_PRICES): PriceMatch | null {
  const key = modelKey(model);
  const own = ownValue(table.models, key);
  if (own) return { key, price: own, assumed: false };
  let tagged: string | null = null;
  for (const k of Object.keys(table.models)) {
    if (
      key.startsWith(k + '-') &&
      !/^\d/.test(key.slice(k.length + 1)) &&
      (tagged === null || k.length > tagged.length)
    )
      tagged = k;
  }
  if (tagged) return { key: tagged, price: table.models[tagged], assumed: true };
  const family = modelFamily(key);
  if (!family) return null;
  let newest: string | null = null;
  for (const k of Object.keys(table.models)) {
    if (modelFamily(k) === family && (newest === null || newerVersion(versionOf(k), versionOf(newest)))) newest = k;
  }
  return newest ? { key: newest, price: table.models[newest], assumed: true } : null;
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
  const p = price.longContext && inputSide > (price.longContextAbove ?? LONG_CONTEXT_INPUT) ? price.longContext : price;
  // Cache writes not broken down by lifetime are 5-minute ones: Claude Code writes a zero breakdown beside the total
  // when the API sent none, and prices the total at the 5-minute rate.
  const h1 = u.cacheWrite ? Math.min(u.cacheWrite.h1, u.cacheCreation) : 0;
  const m5 = u.cacheCreation - h1;
  const k = fastMultiple(u, price) ?? 1;
  const input = (k * u.input * p.input) / 1e6;
  const output = (k * u.output * p.output) / 1e6;
  const cacheWrite = (k * (m5 * p.cacheWrite5m + h1 * p.cacheWrite1h)) / 1e6;
  const cacheRead = (k * u.cacheRead * p.cacheRead) / 1e6;
  return { usd: input + output + cacheWrite + cacheRead, input, output, cacheWrite, cacheRead };
}

/**
 * The multiple of the standard rates a response is billed at for its speed: 1 for a standard one, the model's fast
 * multiple (`ModelPrice.fast`) for one served in fast mode, null for a fast one whose model has no fast rate we know.
 */
export function fastMultiple(u: Usage, price: ModelPrice): number | null {
  if (!u.fast) return 1;
  return price.fast ?? null;
}

export function addCost(a: Cost, b: Cost): Cost {
  return {
    usd: a.usd + b.usd,
    input: a.input + b.input,
    output: a.output + b.output,
    cacheWrite: a.cacheWrite + b.cacheWrite,
    cacheRead: a.cacheRead + b.cacheRead,
  };
}

/** One priced API response. */
export interface PricedResponse {
  messageId: string;
  model: string | null;
  /** The price-table key used, or null when the model has no price (its cost then counts as 0). */
  priceKey: string | null;
  /** Priced at another model's rates (`PriceMatch.assumed`). */
  assumed: boolean;
  usage: Usage;
  cost: Cost;
  sidechain: boolean;
}

export interface SessionCost {
  /** Every response of the file, priced once, by message id. */
  responses: Map<string, PricedResponse>;
  total: Cost;
  /**
   * Per model id (as written in the transcript): its responses, its subagents' and the agent's own compaction requests
   * billed to it. The shares add up to `total`.
   */
  byModel: Map<string, Cost>;
  /** Models without a price in the table (their responses count as 0). */
  unpriced: string[];
  /** Models priced at another model's rates (`PriceMatch.assumed`), with the key whose rates were used. */
  assumed: { model: string; priceKey: string }[];
  /** Models with responses served in fast mode whose fast rate we do not know (priced at the standard rates). */
  fastUnknown: string[];
  /**
   * Requests that left no response in the file, counted in `total`: the agent's own compactions (their summary
   * requests, priced from the tokens its running total records for them; one whose figures are not recorded, like
   * an automatic compaction mid-turn, is not in here) and its subagents' responses (in their own transcripts).
   */
  unanswered: { compactions: number; compactionCost: Cost; subagentResponses: number; subagentCost: Cost };
  /**
   * Lines of the agent's own compactions (from the fork point on) whose summary request the file does not record: the
   * agent paid for it, but neither a response line nor its running total on both sides of it tells what it cost.
   */
  unrecordedCompactions: number[];
  /** The agent's own figure for the responses this file received (`agentCost`), or null when it records none. */
  agent: AgentCost | null;
  /** Responses left out as copies of another session's file (`copiedFrom`, `copiedResponse`). */
  copiedResponses: number;
  /**
   * The agent's own figure counts responses this file copied (a Claude Code `--fork-session` fork carries its
   * original's running total on): it is not this file's cost alone.
   */
  agentIncludesCopies: boolean;
  priceDate: string;
  priceSource: string;
}

/** The session's cost as the agent itself recorded it (Claude Code's `cost-state` lines). */
export interface AgentCost extends AgentCostRecord {
  /** Line of the `cost-state` record the figure comes from. */
  line: number;
}

/**
 * The index of the first entry this file's own session wrote, when the file begins with lines copied from another
 * session; 0 otherwise. Two marks of a copy: a fork or output file written by a compaction holds the original's lines,
 * then a compact boundary under the new session id (every copied line precedes the last compact boundary and carries
 * a session id other than that boundary's); and, where the agent names a session by its file (`ownSession`: Claude
 * Code's `<id>.jsonl`), every line under another session's id is a copy (a fork before a compaction is the original's
 * lines byte for byte, a copy of a file is all of them). The copied responses were paid for in the original's file,
 * so they are not this file's cost.
 */
export function copiedFrom(entries: readonly Entry[], ownSession: string | null = null): number {
  let boundary = -1;
  for (let i = entries.length - 1; i >= 0; i--) {
    if (isCompactBoundary(entries[i])) {
      boundary = i;
      break;
    }
  }
  let end = 0;
  const own = boundary >= 0 ? entries[boundary].sessionId : undefined;
  if (own)
    for (let i = 0; i < boundary; i++)
      if (entries[i].sessionId !== undefined && entries[i].sessionId !== own) end = i + 1;
  if (ownSession)
    for (let i = entries.length - 1; i >= end; i--)
      if (entries[i].sessionId !== undefined && entries[i].sessionId !== ownSession) return i + 1;
  return end;
}

/**
 * The agent's own cost of the responses this file received: the last `cost-state` record's running total, from the
 * fork point on (`copiedFrom`). Claude Code 2.1.330 carries the total on across resumes of a file, but starts afresh
 * in a fork we wrote (its lines after the fork point carry the new session id; observed in
 * test/compat/agent-cost.test.ts), so a copied record's total is the original's, never this file's. Null when the
 * file has no `cost-state` record of its own.
 */
export function agentCost(entries: readonly Entry[], from = copiedFrom(entries)): AgentCost | null {
  for (let i = entries.length - 1; i >= from; i--) {
    const e = entries[i];
    if (e.agentCost) return { ...e.agentCost, line: e.line };
  }
  return null;
}

/** What the notes beside a session's cost are made from (a `SessionCost`, or the figures kept of one). */
export interface CostFacts {
  total: { usd: number };
  unpriced: readonly string[];
  assumed: readonly { model: string; priceKey: string }[];
  /** Models whose fast-mode responses were priced at standard rates (`SessionCost.fastUnknown`). */
  fastUnknown?: readonly string[];
  agent: { usd: number } | null;
  /** The agent's figure counts responses copied from another session (`SessionCost.agentIncludesCopies`). */
  agentIncludesCopies?: boolean;
  copiedResponses?: number;
  /** What the total counts beside the file's responses (`SessionCost.unanswered`). */
  unanswered?: {
    compactions: number;
    compactionCost: { usd: number };
    subagentResponses: number;
    subagentCost: { usd: number };
  };
  /** The agent's compactions whose cost the file does not record (`SessionCost.unrecordedCompactions`). */
  unrecordedCompactions?: readonly number[];
}

/** Our total and the agent's differ by more than this share of the larger. */
export const AGENT_COST_TOLERANCE = 0.02;

/** How far our total is from the agent's own (a share of the larger of the two), or null without the agent's. */
export function agentCostGap(c: Pick<CostFacts, 'total' | 'agent'>): number | null {
  if (!c.agent) return null;
  const larger = Math.max(c.total.usd, c.agent.usd);
  return larger > 0 ? Math.abs(c.total.usd - c.agent.usd) / larger : 0;
}

/**
 * What a cost figure needs said beside it, one sentence each: models priced at assumed rates, models without a price
 * (with where to give one: `override`, e.g. the `--prices` option or the `agentCompactor.prices` setting), and the
 * agent's own figure when it differs from ours by more than AGENT_COST_TOLERANCE. Every surface that shows a session's
 * cost shows these.
 */
export function costNotes(c: CostFacts, override: string): string[] {
  const notes: string[] = [];
  for (const a of c.assumed) notes.push(`${a.model} is not in the price table: assumed at the rates of ${a.priceKey}.`);
  if (c.unpriced.length)
    notes.push(`No price for ${c.unpriced.join(', ')} (counted as $0): give one with ${override}.`);
  if (c.fastUnknown?.length)
    notes.push(
      `${c.fastUnknown.join(', ')} answered in fast mode, whose rate is not in the price table: priced at the standard rates (a lower bound).`,
    );
  const u = c.unanswered;
  const beside = [
    u?.compactions
      ? `${u.compactions === 1 ? "the agent's own compaction" : `the agent's own ${u.compactions} compactions`} (${formatCostUsd(u.compactionCost.usd)}: a summary request leaves no response line; priced from the tokens its running total records)`
      : '',
    u?.subagentResponses
      ? `its subagents' ${u.subagentResponses} responses (${formatCostUsd(u.subagentCost.usd)}, in their own transcripts)`
      : '',
  ].filter(Boolean);
  if (beside.length) notes.push(`Counted beside the file's responses: ${beside.join(' and ')}.`);
  const gap = agentCostGap(c);
  if (c.agent && c.agentIncludesCopies) {
    notes.push(
      `The agent recorded ${formatCostUsd(c.agent.usd)}, which carries on the total of the session this one was forked from; ours, ${formatCostUsd(c.total.usd)}, counts only the responses this file received (${c.copiedResponses ?? 0} copied from the original are left out).`,
    );
  } else if (gap !== null && gap > AGENT_COST_TOLERANCE) {
    // Claude Code's total also counts requests that leave no response line in the file (its own compactions' summaries).
    const lines = c.unrecordedCompactions ?? [];
    const why =
      c.agent!.usd <= c.total.usd
        ? ''
        : lines.length
          ? ` Its figure also counts the summary request of its compaction${lines.length > 1 ? 's' : ''} at line${lines.length > 1 ? 's' : ''} ${lines.join(', ')}, whose cost the file does not record (no response line, and no running total on both sides of it with nothing between).`
          : ' Its figure also counts requests whose figures the file does not record, such as an automatic compaction mid-turn.';
    notes.push(
      `The agent recorded ${formatCostUsd(c.agent!.usd)} for this session, ours is ${formatCostUsd(c.total.usd)} (${(gap * 100).toFixed(0)}% apart).${why}`,
    );
  }
  return notes;
}

/** A session cost figure followed by what qualifies it: `$1.23`, `$1.23 (assumed prices)`, `$0.00 (unpriced)`. */
export function costFigure(c: Omit<CostFacts, 'agent'>, usd: (n: number) => string = formatCostUsd): string {
  const marks = [c.assumed.length ? 'assumed prices' : '', c.unpriced.length ? 'unpriced models' : ''].filter(Boolean);
  return `${usd(c.total.usd)}${marks.length ? ` (${marks.join(', ')})` : ''}`;
}

function formatCostUsd(n: number): string {
  return n >= 1 ? `$${n.toFixed(2)}` : `$${n.toFixed(4)}`;
}

function usageTotal(u: Usage): number {
  return u.input + u.output + u.cacheCreation + u.cacheRead;
}

/**
 * Prices every response of a transcript. Lines are grouped by message id and request id; of
 * a group's lines the one with the largest token total counts (the final figures), a main-chain
 * line before a sidechain replay of it. Synthetic responses (API errors) carry no cost. Responses
 * the file copied from another session (`copiedFrom`, `copiedResponse`; `ownSession`: the session the
 * file's agent names it by, see `copiedFrom`) are left out: each response is the cost of the file that
 * received it. `byModel` adds up to `total`.
 */
export function sessionCost(
  entries: readonly Entry[],
  table: PriceTable = DEFAULT_PRICES,
  subagentResponses: readonly Entry[] = [],
  ownSession: string | null = null,
): SessionCost {
  const from = copiedFrom(entries, ownSession);
  const chosen = new Map<string, Entry>();
  // A response is one message id, however many lines (one per content block) carry it.
  const copied = new Set<string>();
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i];
    if (e.kind !== 'assistant' || !e.usage || !e.messageId) continue;
    if (i < from || copiedResponse(e)) {
      copied.add(e.messageId);
      continue;
    }
    const key = `${e.messageId}\u0000${e.requestId ?? ''}`;
    const had = chosen.get(key);
    if (!had || replaces(e, had)) chosen.set(key, e);
  }
  const responses = new Map<string, PricedResponse>();
  const byModel = new Map<string, Cost>();
  const unpriced = new Set<string>();
  const assumed = new Map<string, string>();
  const fastUnknown = new Set<string>();
  let total: Cost = { ...ZERO_COST };
  const addTo = (model: string | null, cost: Cost) => {
    total = addCost(total, cost);
    if (model) byModel.set(model, addCost(byModel.get(model) ?? { ...ZERO_COST }, cost));
  };
  for (const e of chosen.values()) {
    const usage = e.usage!;
    const model = e.model ?? null;
    const found = model && model !== '<synthetic>' ? priceFor(model, table) : null;
    if (model && model !== '<synthetic>' && !found && usageTotal(usage) > 0) unpriced.add(model);
    if (model && found?.assumed && usageTotal(usage) > 0) assumed.set(model, found.key);
    if (model && found && fastMultiple(usage, found.price) === null) fastUnknown.add(model);
    const cost = found ? costOfUsage(usage, found.price) : { ...ZERO_COST };
    const priced: PricedResponse = {
      messageId: e.messageId!,
      model,
      priceKey: found ? found.key : null,
      assumed: found?.assumed ?? false,
      usage,
      cost,
      sidechain: e.isSidechain,
    };
    const had = responses.get(priced.messageId);
    // One response retried under several request ids: the round shows the sum.
    responses.set(priced.messageId, had ? { ...priced, cost: addCost(had.cost, cost) } : priced);
    addTo(model, cost);
  }
  // What the agent paid for beside the file's responses: its compactions' summary requests, its subagents' responses.
  const unanswered = { ...NO_UNANSWERED };
  const fallbackModel = [...chosen.values()]
    .map((e) => e.model)
    .filter((m) => m && m !== '<synthetic>')
    .pop();
  const recorded = recordedCompactionRequests(entries, from);
  const recordedLines = new Set(recorded.map((c) => c.line));
  const unrecordedCompactions: number[] = [];
  for (let i = from; i < entries.length; i++) {
    const e = entries[i];
    if (isCompactBoundary(e) && e.compactRecord?.by !== 'agent-compactor' && !recordedLines.has(e.line))
      unrecordedCompactions.push(e.line);
  }
  for (const c of recorded) {
    const model = c.model ?? fallbackModel ?? null;
    const found = model ? priceFor(model, table) : null;
    if (!found) continue;
    const usage = {
      input: c.tokens.input,
      output: c.tokens.output,
      cacheCreation: c.tokens.cacheCreation,
      cacheRead: c.tokens.cacheRead,
    };
    const cost = costOfUsage(usage, found.price);
    unanswered.compactions++;
    unanswered.compactionCost = addCost(unanswered.compactionCost, cost);
    addTo(model, cost);
    if (found.assumed) assumed.set(model!, found.key);
  }
  if (subagentResponses.length) {
    const sub = sessionCost(subagentResponses, table);
    unanswered.subagentResponses = sub.responses.size;
    unanswered.subagentCost = sub.total;
    total = addCost(total, sub.total);
    for (const [model, cost] of sub.byModel) byModel.set(model, addCost(byModel.get(model) ?? { ...ZERO_COST }, cost));
    for (const m of sub.unpriced) unpriced.add(m);
    for (const a of sub.assumed) assumed.set(a.model, a.priceKey);
    for (const m of sub.fastUnknown) fastUnknown.add(m);
  }
  return {
    responses,
    total,
    byModel,
    unanswered,
    unrecordedCompactions,
    unpriced: [...unpriced].sort(),
    assumed: [...assumed]
      .map(([model, priceKey]) => ({ model, priceKey }))
      .sort((a, b) => (a.model < b.model ? -1 : a.model > b.model ? 1 : 0)),
    fastUnknown: [...fastUnknown].sort(),
    agent: agentCost(entries, from),
    copiedResponses: copied.size,
    // Our fork's copies precede `from` and the agent's total restarts after them; a --fork-session fork's do not.
    agentIncludesCopies: entries.some((e, i) => i >= from && e.kind === 'assistant' && copiedResponse(e)),
    priceDate: table.date,
    priceSource: table.source,
  };
}

const NO_UNANSWERED: SessionCost['unanswered'] = {
  compactions: 0,
  compactionCost: ZERO_COST,
  subagentResponses: 0,
  subagentCost: ZERO_COST,
};

/**
 * A response another session requested, copied into this file: Claude Code 2.1.330's `--fork-session` copies the
 * original's lines under the fork's session id and marks each response with the session that sent its request
 * (`requestSessionId`, observed in test/compat/agent-cost.test.ts); the Codex reader marks so the token counts a fork
 * copied from its original (formats/codex/reader.ts). It was paid for in the original's file.
 */
export function copiedResponse(e: Entry): boolean {
  return e.requestSessionId !== undefined && e.sessionId !== undefined && e.requestSessionId !== e.sessionId;
}

function replaces(candidate: Entry, existing: Entry): boolean {
  if (candidate.isSidechain !== existing.isSidechain) return existing.isSidechain;
  return usageTotal(candidate.usage!) > usageTotal(existing.usage!);
}

/**
 * A price table with the user's rates laid over the defaults (a setting: model key -> partial
 * rates in USD per million tokens). Invalid numbers are refused with the key that holds them.
 */
export function withPriceOverrides(
  overrides: Record<string, Partial<ModelPrice>>,
  base: PriceTable = DEFAULT_PRICES,
): PriceTable {
  const models: Record<string, ModelPrice> = { ...base.models };
  const keys = Object.keys(overrides);
  for (const key of keys) {
    const given = overrides[key];
    for (const [field, value] of Object.entries(given)) {
      if (field === 'longContext' || field === 'longContextAbove') continue;
      if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
        throw new Error(
          `price of ${key}.${field}: expected a number of USD per million tokens, got ${JSON.stringify(value)}`,
        );
    }
    const k = modelKey(key);
    const start = ownValue(models, k) ?? priceFor(k, base)?.price;
    const input = given.input ?? start?.input;
    const output = given.output ?? start?.output;
    if (input === undefined || output === undefined)
      throw new Error(`price of ${key}: a new model needs at least input and output`);
    const price: ModelPrice = {
      input,
      output,
      cacheWrite5m: given.cacheWrite5m ?? (given.input !== undefined || !start ? input * 1.25 : start.cacheWrite5m),
      cacheWrite1h: given.cacheWrite1h ?? (given.input !== undefined || !start ? input * 2 : start.cacheWrite1h),
      cacheRead: given.cacheRead ?? (given.input !== undefined || !start ? input / 10 : start.cacheRead),
    };
    const fast = given.fast ?? start?.fast;
    if (fast !== undefined) price.fast = fast;
    if (start?.longContext && given.input === undefined && given.output === undefined) {
      price.longContext = start.longContext;
      if (start.longContextAbove !== undefined) price.longContextAbove = start.longContextAbove;
    }
    setOwn(models, k, price);
  }
  return keys.length
    ? { date: base.date, source: `${base.source}; overridden by settings for ${keys.join(', ')}`, models }
    : base;
}
