// `agent-compactor inspect <file> [--json]`: rounds, token figures and totals.
import { readFile } from 'node:fs/promises';
import { inspectFile, type Analysis, type InspectReport } from '../core/inspect';
import { contextMap, type ContextMap } from '../core/contextMap';
import { contextNow, contextParts } from '../core/context';
import { statedWindow, type StatedWindow } from '../core/limits';
import { asIsLine, cacheState, nextTurnAsIs } from '../core/cache';
import { compactionEconomics, economicsLine } from '../core/compact/economics';
import { planCompaction } from '../core/compact/plan';
import { DEFAULT_SETTINGS } from '../core/compactSettings';
import { unsupported } from '../core/formats/registry';
import { compactionLine } from '../core/agentCompactions';
import {
  agentCostGap,
  costNotes,
  DEFAULT_PRICES,
  withPriceOverrides,
  type ModelPrice,
  type PriceTable,
} from '../core/cost';
import { onePositional, readableTranscript, shown, UsageError } from './args';
import {
  clearProgress,
  formatTokens,
  printJsonValue,
  printOut,
  printProgress,
  sanitizeForTerminal,
  table,
  truncate,
} from './format';
import { JsonList } from './jsonStream';
import { bool, HELP_OPTION, JSON_OPTION, SIZE_NOTE, str, type Values, type VerbSpec } from './options';

export const PRICES_OPTION = {
  flag: 'prices',
  type: 'string',
  value: 'FILE',
  help: 'JSON file of prices that replace the built-in ones: {"<model>": {"input": 3, "output": 15, ...}} in USD per million tokens',
  default: 'built-in table',
} as const;

export const inspectVerb: VerbSpec = {
  name: 'inspect',
  args: '<file>',
  summary: 'Rounds, token figures and totals of a transcript; reads only, sends nothing.',
  options: [JSON_OPTION, PRICES_OPTION, HELP_OPTION],
  notes: [SIZE_NOTE],
  run: runInspect,
};

export async function runInspect(values: Values, positionals: string[]): Promise<number> {
  const file = await readableTranscript(onePositional(positionals, 'inspect'));
  const showProgress = process.stderr.isTTY === true;
  const analysis = await inspectFile(file, {
    appendable: false,
    onProgress: showProgress
      ? (read, total) => printProgress(`reading ${Math.round((100 * read) / total)}%`)
      : undefined,
  });
  if (showProgress) clearProgress();
  const report = analysis.report;
  const prices = await pricesFrom(str(values, 'prices'));
  const map = contextMap(analysis, prices);
  const now = Date.now();
  const cache = cacheState(analysis.index.entries, analysis.rounds, analysis.index.format.id, now);
  const next = await nextTurnAtDefaults(analysis, now, prices);
  if (bool(values, 'json'))
    await printJsonValue({
      ...jsonReport(report, map, statedWindow(analysis.index.format.id, analysis.index.entries)),
      cache,
      ...next.json,
    });
  else
    printOut(
      renderReport(report) +
        renderMap(map) +
        `prompt cache: ${cache.status === 'unknown' ? `unknown (${cache.reason})` : cache.reason}\n` +
        `${sanitizeForTerminal(next.line)}\n`,
    );
  return 0;
}

/**
 * The next turn's cost as `plan` gives it, for a compaction with the default settings (no saved decisions, the offline
 * summary): `nextTurn` in --json and one line of text. Where there is nothing to compact at the default target, or
 * the format is read-only, the next turn as it is, and why there is no compacted figure.
 */
async function nextTurnAtDefaults(
  analysis: Analysis,
  now: number,
  prices: PriceTable,
): Promise<{ json: Record<string, unknown>; line: string }> {
  const target = DEFAULT_SETTINGS.targetTokens;
  const options = { now, prices, pricesHint: PRICES_HINT };
  const readOnly = unsupported(analysis.index.format);
  const plan = readOnly ? null : await planCompaction(analysis, DEFAULT_SETTINGS);
  const economics = plan ? compactionEconomics(analysis, plan, options) : null;
  const compaction = { targetTokens: target, nothingToDo: plan?.nothingToDo ?? null, readOnly };
  if (economics)
    return {
      json: { nextTurn: economics, nextTurnCompaction: compaction },
      line: `${economicsLine(economics)}; compacted with the default settings (target ${formatTokens(target)})`,
    };
  const asIs = nextTurnAsIs(analysis, options);
  const why = readOnly
    ? 'no compaction: this format is read-only'
    : `nothing to compact at the default target of ${formatTokens(target)}`;
  return {
    json: { nextTurn: null, nextTurnAsIs: asIs, nextTurnCompaction: compaction },
    line: `${asIsLine(asIs)}; ${why}`,
  };
}

export async function pricesFrom(file: string | undefined): Promise<PriceTable> {
  if (file === undefined) return DEFAULT_PRICES;
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    throw new UsageError(`--prices ${shown(file)}: ${(err as Error).message}`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new UsageError(`--prices ${shown(file)}: expected a JSON object of model -> rates`);
  for (const [model, rates] of Object.entries(parsed)) {
    if (!rates || typeof rates !== 'object' || Array.isArray(rates))
      throw new UsageError(`--prices ${shown(file)}: ${sanitizeForTerminal(model)}: expected an object of rates`);
  }
  try {
    return withPriceOverrides(parsed as Record<string, Partial<ModelPrice>>);
  } catch (err) {
    throw new UsageError(`--prices ${shown(file)}: ${(err as Error).message}`);
  }
}

/**
 * The report with, per round, its `breakdown` and `cost`, and the session's tools, largest items and cost. The
 * rounds are a `JsonList`: each round's object is made as it is written (`writeJson`), not all of them at once.
 */
export function jsonReport(report: InspectReport, map: ContextMap, window: StatedWindow): Record<string, unknown> {
  const priceSource = `${map.cost.priceSource} (${map.cost.priceDate})`;
  const round = (i: number) => {
    const r = report.rounds[i];
    const m = map.rounds[i];
    return { ...r, breakdown: m.breakdown, cost: m.cost && { ...m.cost, priceSource } };
  };
  return {
    ...report,
    // The one context figure every surface shows, its parts named (`contextNow`), and the window it is measured against
    // (the map's and the Sessions row's), with where that window comes from.
    context: { ...contextNow(report), window },
    rounds: new JsonList(report.rounds.length, round),
    tools: map.tools,
    largest: map.largest,
    // Each compaction the file records: who, trigger, before/after against the next request, its own cost.
    compactions: map.compactions,
    // `notes`: what the figure needs said beside it (assumed rates, unpriced models, the agent's own figure apart).
    cost: { ...map.cost, agentGap: agentCostGap(map.cost), notes: costNotes(map.cost, PRICES_HINT) },
  };
}

/** Where a price is given, for the notes beside a cost. */
const PRICES_HINT = '--prices FILE';

const usd = (n: number) => (n >= 100 ? `$${n.toFixed(0)}` : n >= 1 ? `$${n.toFixed(2)}` : `$${n.toFixed(4)}`);
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

/** Per-tool summary and the session's cost, after the round table. */
export function renderMap(map: ContextMap): string {
  const out: string[] = [''];
  if (map.tools.length) {
    const rows = map.tools.map((t) => [
      truncate(sanitizeForTerminal(t.name), 40),
      String(t.calls),
      formatTokens(t.activeTokens),
      pct(t.activeShare),
      formatTokens(t.allTokens),
      pct(t.allShare),
    ]);
    out.push(table(['tool', 'calls', 'in context', 'share', 'all rounds', 'share'], rows, new Set([1, 2, 3, 4, 5])));
    out.push('');
  }
  if (map.compactions.length) {
    out.push('compactions:');
    for (const x of map.compactions) out.push(`  ${sanitizeForTerminal(compactionLine(x))}`);
    out.push('');
  }
  const c = map.cost;
  const parts = `input ${usd(c.total.input)}, output ${usd(c.total.output)}, cache writes ${usd(c.total.cacheWrite)}, cache reads ${usd(c.total.cacheRead)}`;
  out.push(
    `cost: ${usd(c.total.usd)}${c.assumed.length ? ' (assumed prices)' : ''} over ${c.responses} responses (${parts})`,
  );
  if (c.byModel.length > 1)
    out.push(`  by model: ${c.byModel.map((m) => `${sanitizeForTerminal(m.model)} ${usd(m.usd)}`).join(', ')}`);
  if (c.agent)
    out.push(
      `  the agent's own figure: ${usd(c.agent.usd)} (${c.agent.source ? sanitizeForTerminal(c.agent.source) : `cost-state, line ${c.agent.line}`})`,
    );
  if (c.copiedResponses)
    out.push(`  ${c.copiedResponses} responses copied from the original session are not counted here`);
  for (const note of costNotes(c, PRICES_HINT)) out.push(`  ${sanitizeForTerminal(note)}`);
  out.push(`  prices: ${c.priceSource} (${c.priceDate})`);
  return out.join('\n') + '\n';
}

export function renderReport(report: InspectReport): string {
  const rows = report.rounds.map((r) => [
    String(r.index) + (r.inContext ? '' : ' (hist)'),
    r.firstLine === r.lastLine ? String(r.firstLine) : `${r.firstLine}-${r.lastLine}`,
    truncate(sanitizeForTerminal(r.model ?? '-'), 18),
    truncate(sanitizeForTerminal(r.startsAtBoundary ? '── compact boundary ──' : r.label), 44),
    `${formatTokens(r.tokens.added)} ${r.tokens.source === 'usage' ? 'usage' : 'est'}`,
    `${formatTokens(r.cumulative.tokens)} ${r.cumulative.source === 'usage' ? 'usage' : 'est'}`,
  ]);
  const t = report.totals;
  const context = contextNow(report);
  const out: string[] = [];
  const agent = `${report.format.agent}${report.format.version ? ` ${report.format.version}` : ''}${report.format.container === 'json' ? ', one JSON document' : ''}`;
  out.push(
    `${sanitizeForTerminal(report.file)} (${sanitizeForTerminal(agent)}): ${report.lines} lines, ${(report.bytes / 1e6).toFixed(2)} MB${report.subagentFile ? ' (subagent transcript)' : ''}`,
  );
  out.push('');
  out.push(table(['round', 'lines', 'model', 'what', 'adds', 'context'], rows, new Set([4, 5])));
  out.push('');
  out.push(
    `${t.rounds} rounds (${t.activeRounds} in the active context), ${t.toolUses} tool calls, ` +
      `${formatTokens(t.toolResultChars)} chars of tool results`,
  );
  out.push(
    `context now: ${formatTokens(context.tokens)} tokens (${context.source}: ${contextParts(context, formatTokens)})` +
      (t.contextTokens !== null
        ? `; newest request by usage: ${formatTokens(t.contextTokens)}`
        : '; no usage in the active context') +
      `; estimate calibration ×${+t.calibrationFactor.toFixed(3)} from ${t.calibrationSamples} rounds`,
  );
  if (report.compactBoundaries.length)
    out.push(`compact boundaries at lines ${report.compactBoundaries.map((b) => b.line).join(', ')}`);
  for (const s of report.sidechains) {
    out.push(
      `sidechain ${sanitizeForTerminal(s.id)} (${s.source}${s.file ? `: ${sanitizeForTerminal(s.file)}` : ''}): ${s.lines} lines, ${s.rounds} rounds, context ${formatTokens(s.contextTokens)}`,
    );
  }
  for (const m of report.malformed) out.push(`malformed line ${m.line}: ${sanitizeForTerminal(m.error)}`);
  for (const n of report.chainNotes) out.push(`note: ${sanitizeForTerminal(n)}`);
  return out.join('\n') + '\n';
}
