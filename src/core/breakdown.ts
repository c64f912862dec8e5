// Where a round's tokens go: the round's calibrated estimate split by what the content is
// (user text, assistant text, thinking, tool calls and results per tool, images, attachments,
// earlier summaries, message framing). The split follows the one token model
// (tokens/estimate.ts `rawEstimateParts`); text sharing one part (prose) is split by characters,
// tool calls and results by their characters per tool. Whole tokens, summing to the estimate.
import type { Entry } from './entries';
import type { Round } from './rounds';
import { setOwn } from './json';
import { continuesToolLoop, rawEstimateParts, TOKEN_MODEL, type TokenModel } from './tokens/estimate';

export interface ToolTokens {
  calls: number;
  callTokens: number;
  results: number;
  resultTokens: number;
}

/** Tokens a round adds to the context, by category; the categories sum to the round's estimate. */
export interface Breakdown {
  userText: number;
  assistantText: number;
  thinking: number;
  /** Tool calls (name and input), all tools. */
  toolCalls: number;
  /** Tool results, all tools. */
  toolResults: number;
  images: number;
  /** Attachments Claude Code adds (reminders, file snapshots, hook output). */
  attachments: number;
  /** Summaries written by an earlier compaction. */
  summaries: number;
  /** What each content block and message costs beyond its content. */
  framing: number;
  /** Per tool name: calls, results and their tokens. */
  byTool: Record<string, ToolTokens>;
}

export const BREAKDOWN_CATEGORIES = [
  'userText',
  'assistantText',
  'thinking',
  'toolCalls',
  'toolResults',
  'images',
  'attachments',
  'summaries',
  'framing',
] as const;
export type BreakdownCategory = (typeof BREAKDOWN_CATEGORIES)[number];

/** Characters of user text in a round that an earlier compaction wrote (its summary lines). */
function summaryChars(round: Round, entries: readonly Entry[]): number {
  let n = 0;
  for (const i of round.entries) {
    const e = entries[i];
    if (e.kind !== 'user' || !e.isCompactSummary) continue;
    for (const b of e.blocks) if (b.type !== 'tool_result' && b.type !== 'image') n += b.chars;
  }
  return n;
}

/**
 * Splits `total` whole tokens over slices in proportion to their weights (largest remainder),
 * so the parts are whole and sum to `total` exactly.
 */
export function apportion(weights: readonly number[], total: number): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  if (!(sum > 0) || total <= 0) return weights.map(() => 0);
  const exact = weights.map((w) => (w * total) / sum);
  const out = exact.map(Math.floor);
  let left = total - out.reduce((a, b) => a + b, 0);
  const order = exact.map((x, i) => [x - Math.floor(x), i] as const).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  for (let k = 0; left > 0; k = (k + 1) % order.length, left--) out[order[k][1]]++;
  return out;
}

/** Splits `value` over items in proportion to their characters (all to the first when none has any). */
function byChars(value: number, chars: readonly number[]): number[] {
  const sum = chars.reduce((a, b) => a + b, 0);
  if (sum > 0) return chars.map((c) => (value * c) / sum);
  return chars.map((_, i) => (i === 0 ? value : 0));
}

/**
 * The breakdown of a round whose calibrated estimate is `estimate` (the inspect report's
 * `tokens.estimate`): the parts of its raw estimate, scaled to the estimate and made whole.
 */
export function roundBreakdown(
  round: Round,
  entries: readonly Entry[],
  estimate: number,
  m: TokenModel = TOKEN_MODEL,
): Breakdown {
  const c = round.content;
  const parts = rawEstimateParts(c, continuesToolLoop(round), m);
  const summaries = Math.min(summaryChars(round, entries), c.userText);
  const [userText, summaryTokens, assistantText, attachments] = byChars(parts.prose, [
    c.userText - summaries,
    summaries,
    c.assistantText,
    c.attachment,
  ]);
  const tools = new Map<string, ToolTokens>();
  const tool = (name: string): ToolTokens => {
    let t = tools.get(name);
    if (!t) tools.set(name, (t = { calls: 0, callTokens: 0, results: 0, resultTokens: 0 }));
    return t;
  };
  for (const u of round.toolUses) tool(u.name).calls++;
  for (const r of round.toolResults) tool(r.name ?? 'unknown').results++;
  const callNames = round.toolUses.map((u) => u.name);
  const callTokens = byChars(
    parts.toolUseInput,
    round.toolUses.map((u) => u.chars + u.name.length),
  );
  const resultNames = round.toolResults.map((r) => r.name ?? 'unknown');
  const resultTokens = byChars(
    parts.toolResult,
    round.toolResults.map((r) => r.chars),
  );
  // Tool content without a tool id (rare) has no item to carry it: give it to a named slice.
  if (!callNames.length && parts.toolUseInput > 0) {
    callNames.push('unknown');
    callTokens.push(parts.toolUseInput);
  }
  if (!resultNames.length && parts.toolResult > 0) {
    resultNames.push('unknown');
    resultTokens.push(parts.toolResult);
  }
  // An opaque block is an agent's encrypted summary: it counts with the summaries.
  const fixed = [
    userText,
    assistantText,
    parts.thinking,
    parts.images,
    attachments,
    summaryTokens + parts.opaque,
    parts.framing,
  ];
  const whole = apportion([...fixed, ...callTokens, ...resultTokens], estimate);
  const b: Breakdown = {
    userText: whole[0],
    assistantText: whole[1],
    thinking: whole[2],
    images: whole[3],
    attachments: whole[4],
    summaries: whole[5],
    framing: whole[6],
    toolCalls: 0,
    toolResults: 0,
    byTool: {},
  };
  let k = fixed.length;
  for (const name of callNames) {
    tool(name).callTokens += whole[k];
    b.toolCalls += whole[k++];
  }
  for (const name of resultNames) {
    tool(name).resultTokens += whole[k];
    b.toolResults += whole[k++];
  }
  for (const [name, t] of [...tools].sort(
    (x, y) => y[1].callTokens + y[1].resultTokens - (x[1].callTokens + x[1].resultTokens) || (x[0] < y[0] ? -1 : 1),
  ))
    setOwn(b.byTool, name, t);
  return b;
}

/** The sum of a breakdown's categories (equals the round's estimate). */
export function breakdownTotal(b: Breakdown): number {
  let n = 0;
  for (const c of BREAKDOWN_CATEGORIES) n += b[c];
  return n;
}

export interface ToolSummary {
  name: string;
  calls: number;
  /** Tokens of its calls and results in the active context (after the last compaction). */
  activeTokens: number;
  /** Share of the active context's estimated content. */
  activeShare: number;
  /** Tokens of its calls and results over the whole transcript, compacted history included. */
  allTokens: number;
  /** Share of everything the transcript's rounds added. */
  allShare: number;
}

/** Per-tool totals over rounds (the active ones flagged), largest in the active context first. */
export function toolSummary(rounds: readonly { inContext: boolean; breakdown: Breakdown }[]): ToolSummary[] {
  const acc = new Map<string, ToolSummary>();
  let active = 0;
  let all = 0;
  for (const r of rounds) {
    const total = breakdownTotal(r.breakdown);
    all += total;
    if (r.inContext) active += total;
    for (const [name, t] of Object.entries(r.breakdown.byTool)) {
      let s = acc.get(name);
      if (!s) acc.set(name, (s = { name, calls: 0, activeTokens: 0, activeShare: 0, allTokens: 0, allShare: 0 }));
      s.calls += t.calls;
      s.allTokens += t.callTokens + t.resultTokens;
      if (r.inContext) s.activeTokens += t.callTokens + t.resultTokens;
    }
  }
  const list = [...acc.values()];
  for (const s of list) {
    s.activeShare = active > 0 ? s.activeTokens / active : 0;
    s.allShare = all > 0 ? s.allTokens / all : 0;
  }
  return list.sort(
    (a, b) => b.activeTokens - a.activeTokens || b.allTokens - a.allTokens || (a.name < b.name ? -1 : 1),
  );
}
