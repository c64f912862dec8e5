// The Context Map's figures for one inspected transcript: per round what it adds by category
// and what its response cost; per tool its share; the largest items in the active context;
// the session's cost. Shared by `inspect` (CLI) and the map panel.
import type { Analysis } from './analysis';
import { breakdownTotal, roundBreakdown, toolSummary, type Breakdown, type ToolSummary } from './breakdown';
import { agentCompactions, type AgentCompaction } from './agentCompactions';
import { DEFAULT_PRICES, type AgentCost, type Cost, type PriceTable, type SessionCost } from './cost';
import { fileCost } from './fileCost';

export interface RoundCost extends Cost {
  model: string | null;
  /** Price-table key the rates came from; null when the model has no price. */
  priceKey: string | null;
  /** The rates are another model's (the model is not in the table). */
  assumed: boolean;
}

export interface RoundMap {
  index: number;
  breakdown: Breakdown;
  /** Cost of the round's response (null for rounds without one: preamble, boundary, no usage). */
  cost: RoundCost | null;
}

export interface LargestItem {
  kind: 'toolResult' | 'toolCall' | 'thinking' | 'images';
  round: number;
  line: number;
  tool: string | null;
  /** The tool call's id, for tool results and calls (what steering decisions name). */
  toolUseId: string | null;
  tokens: number;
}

export interface ContextMap {
  rounds: RoundMap[];
  tools: ToolSummary[];
  /** The largest items in the active context, largest first. */
  largest: LargestItem[];
  /** The compactions the file records (the agent's own and Agent Compactor's), in file order. */
  compactions: AgentCompaction[];
  cost: {
    total: Cost;
    byModel: { model: string; usd: number }[];
    unpriced: string[];
    /** Models priced at another model's rates (not in the table), with the key whose rates were used. */
    assumed: { model: string; priceKey: string }[];
    /** The agent's own figure for the session (its `cost-state` records), or null when it records none. */
    agent: AgentCost | null;
    /** Responses priced (each once, sidechains included). */
    responses: number;
    /** Responses left out as copies of another session's file (a fork's original lines). */
    copiedResponses: number;
    /** The agent's figure counts copied responses too (a Claude Code `--fork-session` fork). */
    agentIncludesCopies: boolean;
    /** Models answering in fast mode at a rate we do not know (priced at standard rates). */
    fastUnknown: string[];
    /** What the total counts beside the file's responses: the agent's own compactions, its subagents' responses. */
    unanswered: SessionCost['unanswered'];
    /** Lines of the agent's compactions whose cost the file does not record. */
    unrecordedCompactions: number[];
    priceDate: string;
    priceSource: string;
  };
}

const LARGEST = 20;

/**
 * Breakdowns by round. A grown transcript's analysis keeps the Round objects of its earlier
 * rounds, so only the new ones are split again; a round whose estimate changed is split afresh.
 */
const breakdowns = new WeakMap<Analysis['rounds'][number], { estimate: number; breakdown: Breakdown }>();

function cachedBreakdown(
  r: Analysis['rounds'][number],
  entries: Analysis['index']['entries'],
  estimate: number,
): Breakdown {
  const hit = breakdowns.get(r);
  if (hit && hit.estimate === estimate) return hit.breakdown;
  const breakdown = roundBreakdown(r, entries, estimate);
  breakdowns.set(r, { estimate, breakdown });
  return breakdown;
}

/** Session costs by analysis and price table: the map, the status bar and the tree's tooltips price a session once. */
const costs = new WeakMap<Analysis, Map<PriceTable, SessionCost>>();

/** The session's cost (every response priced once), computed once per analysis and price table. */
export function analysisCost(analysis: Analysis, prices: PriceTable = DEFAULT_PRICES): SessionCost {
  let byTable = costs.get(analysis);
  if (!byTable) costs.set(analysis, (byTable = new Map<PriceTable, SessionCost>()));
  let c = byTable.get(prices);
  if (!c) byTable.set(prices, (c = fileCost(analysis.index, prices, analysis.subagentResponses)));
  return c;
}

/** What the response of a round cost (USD; `assumed` when at another model's rates), or null for a round without a priced response. */
export function roundCost(
  analysis: Analysis,
  messageId: string | null | undefined,
  prices: PriceTable = DEFAULT_PRICES,
): { usd: number; assumed: boolean; priceKey: string } | null {
  const p = messageId ? analysisCost(analysis, prices).responses.get(messageId) : undefined;
  return p && p.priceKey !== null ? { usd: p.cost.usd, assumed: p.assumed, priceKey: p.priceKey } : null;
}

export function contextMap(analysis: Analysis, prices: PriceTable = DEFAULT_PRICES): ContextMap {
  const { rounds, report, index } = analysis;
  const priced = analysisCost(analysis, prices);
  const maps: RoundMap[] = [];
  const items: LargestItem[] = [];
  for (let i = 0; i < rounds.length; i++) {
    const r = rounds[i];
    const breakdown = cachedBreakdown(r, index.entries, report.rounds[i].tokens.estimate);
    const p = r.messageId ? priced.responses.get(r.messageId) : undefined;
    maps.push({
      index: r.index,
      breakdown,
      cost: p ? { ...p.cost, model: p.model, priceKey: p.priceKey, assumed: p.assumed } : null,
    });
    if (r.inContext) collectItems(r.index, r, breakdown, items);
  }
  items.sort((a, b) => b.tokens - a.tokens || a.round - b.round || a.line - b.line);
  return {
    rounds: maps,
    tools: toolSummary(rounds.map((r, i) => ({ inContext: r.inContext, breakdown: maps[i].breakdown }))),
    largest: items.slice(0, LARGEST),
    compactions: agentCompactions(analysis),
    cost: {
      total: priced.total,
      byModel: [...priced.byModel].map(([model, c]) => ({ model, usd: c.usd })).sort((a, b) => b.usd - a.usd),
      unpriced: priced.unpriced,
      assumed: priced.assumed,
      agent: priced.agent,
      responses: priced.responses.size,
      copiedResponses: priced.copiedResponses,
      agentIncludesCopies: priced.agentIncludesCopies,
      fastUnknown: priced.fastUnknown,
      unanswered: priced.unanswered,
      unrecordedCompactions: priced.unrecordedCompactions,
      priceDate: priced.priceDate,
      priceSource: priced.priceSource,
    },
  };
}

/** Items of one round: each tool result and call sized by its share of its tool's tokens in the round. */
function collectItems(round: number, r: Analysis['rounds'][number], b: Breakdown, out: LargestItem[]): void {
  const resultChars = r.toolResults.reduce((a, t) => a + t.chars, 0);
  for (const t of r.toolResults) {
    const tokens = resultChars > 0 ? Math.round((b.toolResults * t.chars) / resultChars) : 0;
    if (tokens > 0)
      out.push({ kind: 'toolResult', round, line: t.line, tool: t.name ?? null, toolUseId: t.id, tokens });
  }
  const callChars = r.toolUses.reduce((a, t) => a + t.chars + t.name.length, 0);
  for (const t of r.toolUses) {
    const tokens = callChars > 0 ? Math.round((b.toolCalls * (t.chars + t.name.length)) / callChars) : 0;
    if (tokens > 0) out.push({ kind: 'toolCall', round, line: t.line, tool: t.name, toolUseId: t.id, tokens });
  }
  if (b.thinking > 0)
    out.push({ kind: 'thinking', round, line: r.firstLine, tool: null, toolUseId: null, tokens: b.thinking });
  if (b.images > 0)
    out.push({ kind: 'images', round, line: r.firstLine, tool: null, toolUseId: null, tokens: b.images });
}

/** The sum of the breakdowns of the rounds (equals the sum of their estimates). */
export function mappedTotal(map: ContextMap): number {
  return map.rounds.reduce((a, r) => a + breakdownTotal(r.breakdown), 0);
}
