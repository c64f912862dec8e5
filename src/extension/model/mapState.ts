// Builds the Context Map's state (what its webview draws) from an analysis, the core's
// context map figures and the compaction plan. Pure: no `vscode` import.
import type { Analysis } from '../../core/analysis';
import type { CompactionPlan } from '../../core/compact/types';
import { DEFAULT_SETTINGS } from '../../core/compactSettings';
import type { Breakdown } from '../../core/breakdown';
import { contextMap, type ContextMap } from '../../core/contextMap';
import { costNotes, DEFAULT_PRICES, withPriceOverrides, type ModelPrice, type PriceTable } from '../../core/cost';
import { MAP_PROTOCOL_VERSION, type MapRound, type MapSeries, type MapState } from '../../webview/mapProtocol';
import { chartPoints } from './budget';
import { baseName } from './format';
import { planSummary } from './planText';
import { nextTurnText } from './cacheText';
import { OFFLINE_SUMMARIZER, type SummarizerPricing } from '../../core/compact/summarizerCost';
import { contextNow } from '../../core/context';
import { compactionCostText, compactionFigures, compactionTitle } from '../../core/agentCompactions';
import { autoCompactText, contextLimits, limitFacts, type ContextLimits } from '../../core/limits';
import { agentModule, unsupported, type AgentId } from '../../core/formats/registry';

/** Tools with a series of their own in the chart; the rest share "other tools". */
const NAMED_TOOLS = 6;

// Palette slots (media/map.css): one per category, the same in every session; none is the yellow or red of the
// summarize and drop marks, so a pattern never reads as a category.
const BASE_SERIES: MapSeries[] = [
  { key: 'overhead', label: 'system prompt and tools', colour: 0 },
  { key: 'summaries', label: 'earlier summaries', colour: 1 },
  { key: 'userText', label: 'user text', colour: 2 },
  { key: 'attachments', label: 'attachments and reminders', colour: 3 },
  { key: 'assistantText', label: 'assistant text', colour: 4 },
  { key: 'thinking', label: 'thinking', colour: 5 },
  { key: 'toolCalls', label: 'tool calls', colour: 6 },
];
const TAIL_SERIES: MapSeries[] = [
  { key: 'images', label: 'images', colour: 15 },
  { key: 'framing', label: 'message framing', colour: 14 },
];
/** The slots of tools' results (one per named tool) and of the rest. */
const TOOL_SLOTS = [7, 8, 9, 10, 11, 12];
const OTHER_TOOLS_SLOT = 13;
/** Every agent's name for the same kind of tool gets that kind's slot: reading files is one colour everywhere. */
const TOOL_KIND_SLOT: Record<string, number> = {
  read: 7,
  read_file: 7,
  view: 7,
  read_many_files: 7,
  bash: 8,
  run_shell_command: 8,
  shell: 8,
  exec_command: 8,
  execute_command: 8,
  local_shell: 8,
  edit: 9,
  multiedit: 9,
  replace: 9,
  apply_patch: 9,
  str_replace_based_edit_tool: 9,
  replace_in_file: 9,
  write: 10,
  write_file: 10,
  write_to_file: 10,
  create: 10,
  grep: 11,
  glob: 11,
  grep_search: 11,
  search_files: 11,
  list_files: 11,
  ls: 11,
  task: 12,
  agent: 12,
};

/**
 * The colour slot of each tool's results: its kind's (taken first, so a known kind keeps its colour), else one from its
 * name; a slot already taken in this chart moves on to the next free one.
 */
function toolSlots(names: string[]): number[] {
  const taken = new Set<number>();
  const out = new Array<number>(names.length);
  const place = (k: number, preferred: number) => {
    const start = TOOL_SLOTS.indexOf(preferred);
    for (let j = 0; j < TOOL_SLOTS.length; j++) {
      const slot = TOOL_SLOTS[(start + j) % TOOL_SLOTS.length];
      if (!taken.has(slot)) {
        taken.add(slot);
        out[k] = slot;
        return;
      }
    }
    out[k] = OTHER_TOOLS_SLOT;
  };
  names.forEach((name, k) => {
    const kind = TOOL_KIND_SLOT[name.toLowerCase()];
    if (kind !== undefined) place(k, kind);
  });
  names.forEach((name, k) => {
    if (TOOL_KIND_SLOT[name.toLowerCase()] !== undefined) return;
    let hash = 0;
    for (const ch of name) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
    place(k, TOOL_SLOTS[hash % TOOL_SLOTS.length]);
  });
  return out;
}

/** Where a price is given in the extension, for the notes beside a cost. */
export const PRICES_SETTING_HINT = 'the setting agentCompactor.prices';

/** The price table from the `agentCompactor.prices` setting (model -> rates); a bad one is reported and ignored. */
export function priceTableFromSetting(raw: unknown): { table: PriceTable; error?: string } {
  if (
    raw === undefined ||
    raw === null ||
    (typeof raw === 'object' && !Array.isArray(raw) && Object.keys(raw).length === 0)
  )
    return { table: DEFAULT_PRICES };
  if (typeof raw !== 'object' || Array.isArray(raw))
    return { table: DEFAULT_PRICES, error: 'agentCompactor.prices must be an object of model -> rates' };
  for (const [model, v] of Object.entries(raw)) {
    if (!v || typeof v !== 'object' || Array.isArray(v))
      return { table: DEFAULT_PRICES, error: `agentCompactor.prices.${model} must be an object of rates` };
  }
  try {
    return { table: withPriceOverrides(raw as Record<string, Partial<ModelPrice>>) };
  } catch (err) {
    return {
      table: DEFAULT_PRICES,
      error: `agentCompactor.prices: ${err instanceof Error ? err.message : String(err)}`,
    };
  }
}

/** The series of the chart: the fixed categories with the largest tools' results between them. */
function seriesFor(toolNames: string[]): MapSeries[] {
  const named = toolNames.slice(0, NAMED_TOOLS);
  const slots = toolSlots(named);
  const tools = named.map((n, k) => ({ key: `tool:${n}`, label: `${n} results`, colour: slots[k] }));
  const other =
    toolNames.length > NAMED_TOOLS ? [{ key: 'tool:', label: 'other tool results', colour: OTHER_TOOLS_SLOT }] : [];
  return [...BASE_SERIES, ...tools, ...other, ...TAIL_SERIES];
}

/** What a round adds, by series key. */
function addedBySeries(b: Breakdown, position: Map<string, number>, width: number): number[] {
  const out = new Array<number>(width).fill(0);
  const put = (key: string, v: number) => {
    const i = position.get(key) ?? position.get('tool:');
    if (i !== undefined) out[i] += v;
  };
  put('summaries', b.summaries);
  put('userText', b.userText);
  put('attachments', b.attachments);
  put('assistantText', b.assistantText);
  put('thinking', b.thinking);
  put('toolCalls', b.toolCalls);
  put('images', b.images);
  put('framing', b.framing);
  for (const [name, t] of Object.entries(b.byTool)) put(`tool:${name}`, t.resultTokens);
  return out;
}

/** What the map shows that does not depend on the plan: computed once per analysis and price table. */
interface MapBase {
  series: MapSeries[];
  /** Rounds without their plan mark. */
  rounds: Omit<MapRound, 'mark'>[];
  map: ContextMap;
  limits: ContextLimits;
}

/**
 * Bases by analysis. An analysis is not changed once made (a grown file gives a new one), so
 * replanning (dragging the target) and repeated pushes to the panel reuse the breakdowns, cost and
 * stacks instead of computing them again for every round.
 */
const bases = new WeakMap<Analysis, { prices: PriceTable; base: MapBase }>();

function mapBase(analysis: Analysis, prices: PriceTable): MapBase {
  const cached = bases.get(analysis);
  if (cached && cached.prices === prices) return cached.base;
  const map = contextMap(analysis, prices);
  const report = analysis.report;
  const toolNames = [...map.tools]
    .sort((a, b) => b.allTokens - a.allTokens || (a.name < b.name ? -1 : 1))
    .map((t) => t.name);
  const series = seriesFor(toolNames);
  const position = new Map(series.map((s, i) => [s.key, i]));
  const width = series.length;
  // chartPoints anchors each segment's running estimate to its first usage: the difference is the overhead.
  const points = chartPoints(analysis, null);
  const rounds: Omit<MapRound, 'mark'>[] = [];
  let running = new Array<number>(width).fill(0);
  for (let i = 0; i < report.rounds.length; i++) {
    const r = report.rounds[i];
    if (i === 0 || r.startsAtBoundary) {
      running = new Array<number>(width).fill(0);
      running[0] = Math.max(0, points[i].estimate - r.tokens.estimate);
    }
    const added = addedBySeries(map.rounds[i].breakdown, position, width);
    for (let k = 0; k < width; k++) running[k] += added[k];
    rounds.push({
      round: r.index,
      label: r.startsAtBoundary ? 'compact boundary and summary' : r.label,
      firstLine: r.firstLine,
      stack: [...running],
      usage: points[i].usage,
      context: r.cumulative.tokens,
      contextSource: r.cumulative.source,
      boundary: r.startsAtBoundary,
      inContext: r.inContext,
      costUsd: map.rounds[i].cost?.usd ?? null,
    });
  }
  const base: MapBase = {
    series,
    rounds,
    map,
    limits: contextLimits(limitFacts(analysis.index.format.id, analysis.index.entries)),
  };
  bases.set(analysis, { prices, base });
  return base;
}

export function buildMapState(
  file: string,
  analysis: Analysis,
  plan: CompactionPlan | null,
  settingsTarget: number | undefined,
  prices: PriceTable = DEFAULT_PRICES,
  now = Date.now(),
  summarizer: SummarizerPricing = OFFLINE_SUMMARIZER,
  floor: number | null = null,
): MapState {
  const { series, rounds, map, limits } = mapBase(analysis, prices);
  const readOnly = unsupported(analysis.index.format);
  const marks = new Map(plan ? plan.rounds.map((r) => [r.index, r.action]) : []);
  const c = map.cost;
  return {
    version: MAP_PROTOCOL_VERSION,
    file,
    fileName: baseName(file),
    series,
    rounds: rounds.map((r) => ({ ...r, mark: marks.get(r.round) ?? 'keep' })),
    contextWindow: limits.window,
    autoCompactAt: limits.autoCompactAt,
    limitsText: `${limits.window !== null ? `window ${limits.window.toLocaleString('en-US')} (${limits.windowFrom})` : `window unknown: ${limits.windowFrom}`}; ${autoCompactText(limits)}`,
    ...exactCountLabel(analysis.index.format.id),
    readOnly,
    reachable: readOnly || floor === null ? null : reachableTargets(analysis, floor),
    targetTokens: plan ? plan.settings.targetTokens : (settingsTarget ?? DEFAULT_SETTINGS.targetTokens),
    planned: plan !== null,
    planSummary: readOnly
      ? `Read-only: ${readOnly}`
      : plan
        ? planSummary(plan, contextNow(analysis.report))
        : 'No compaction planned: drag the target line (or run Preview Compaction) to see what a compaction would keep, summarize and drop.',
    contextNow: analysis.report.totals.currentContextTokens,
    tools: map.tools.map((t) => ({ ...t })),
    largest: map.largest.map((x) => ({ ...x })),
    compactions: map.compactions.map((x) => ({
      round: x.round,
      line: x.line,
      title: compactionTitle(x),
      figures: compactionFigures(x),
      cost: compactionCostText(x),
    })),
    cost: {
      totalUsd: c.total.usd,
      inputUsd: c.total.input,
      outputUsd: c.total.output,
      cacheWriteUsd: c.total.cacheWrite,
      cacheReadUsd: c.total.cacheRead,
      responses: c.responses,
      byModel: c.byModel,
      unpriced: c.unpriced,
      assumed: c.assumed.length > 0,
      agentUsd: c.agent ? c.agent.usd : null,
      agentSource: c.agent ? (c.agent.source ?? 'its cost-state records') : null,
      notes: costNotes(c, PRICES_SETTING_HINT),
      priceSource: c.priceSource,
      priceDate: c.priceDate,
      nextTurn: nextTurnText(analysis, plan, now, prices, summarizer),
    },
  };
}

/**
 * The targets that mean something for this context: from its floor (the smallest reachable target,
 * core/compact/reach.ts: the same figure the Preview input says, computed once by the store) up to the context now
 * (any target above it plans nothing).
 */
function reachableTargets(analysis: Analysis, floor: number): { floor: number; max: number } {
  const context = contextNow(analysis.report);
  return { floor: Math.max(0, Math.round(floor)), max: Math.max(Math.round(floor), context.tokens) };
}

/**
 * What the round reader's exact counts are (the agent's module says): o200k_base is OpenAI's tokenizer, the one
 * Codex's models use; for another vendor's model it is a close count of the same text, not that model's own.
 */
export function exactCountLabel(format: AgentId): { exactLabel: string; exactNote: string } {
  const { label, note } = agentModule(format).tokenizer;
  return { exactLabel: label, exactNote: note };
}
