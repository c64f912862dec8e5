// `agent-compactor plan <file>`: what a compaction would do, without writing anything.
import { inspectFile } from '../core/inspect';
import { planCompaction } from '../core/compact/plan';
import { compactionEconomics, economicsLine } from '../core/compact/economics';
import { draftSummary, planCompactionOf } from '../core/compact/compact';
import { fidelityText } from '../core/compact/fidelity';
import { CompactError, type CompactionPlan } from '../core/compact/types';
import type { UserDecisions } from '../core/compact/decisions';
import { planBound } from '../core/compact/bound';
import { promisedContext } from '../core/compact/promise';
import { onePositional, readableTranscript, UsageError } from './args';
import { planInputsFor, STEER_NOTE, STEER_OPTIONS, summaryTextFrom } from './steer';
import { contextParts } from '../core/context';
import { readAgentNow, type AgentNow } from '../core/agentNow';
import { unsupported } from '../core/formats/registry';
import { formatTokens, printErr, printJson, printOut, sanitizeForTerminal, table, truncate } from './format';
import { bool, HELP_OPTION, JSON_OPTION, NUMBERS_NOTE, SIZE_NOTE, str, type Values, type VerbSpec } from './options';
import { PRICES_OPTION, pricesFrom } from './inspect';
import { SUMMARIZERS } from './compact';
import { DEFAULT_MODEL } from '../core/compact/summary';
import type { SummarizerPricing } from '../core/compact/summarizerCost';
import { SETTING_OPTIONS, settingsFrom } from './settings';

export const planVerb: VerbSpec = {
  name: 'plan',
  args: '<file>',
  summary:
    'What compact would do with these settings (rounds kept, summarized, dropped; previews), without writing or sending anything.',
  options: [
    ...SETTING_OPTIONS,
    ...STEER_OPTIONS,
    {
      flag: 'summary',
      type: 'boolean',
      help: 'print the summary compact would write (the offline one, or the --summary-file text) instead of the plan; sends and writes nothing',
      default: 'off',
    },
    {
      flag: 'summarizer',
      type: 'string',
      value: 'extractive|anthropic|claude-cli|codex-cli',
      help: "the summarizer the next turn's cost is priced with (its own cost included, estimated); plan sends nothing to it",
      default: 'extractive',
    },
    {
      flag: 'model',
      type: 'string',
      value: 'M',
      help: 'the Anthropic model that --summarizer anthropic is priced at',
      default: DEFAULT_MODEL,
    },
    PRICES_OPTION,
    JSON_OPTION,
    HELP_OPTION,
  ],
  notes: [NUMBERS_NOTE, STEER_NOTE, SIZE_NOTE],
  run: runPlan,
};

export async function runPlan(values: Values, positionals: string[]): Promise<number> {
  const settings = settingsFrom(values);
  const file = await readableTranscript(onePositional(positionals, 'plan'));
  const summaryText = await summaryTextFrom(values);
  const analysis = await inspectFile(file, { subagents: false, appendable: false });
  const refusal = unsupported(analysis.index.format);
  if (refusal) throw new UsageError(`${file}: ${refusal}`);
  const { state, decisions } = await planInputsFor(file, analysis, values);
  if (bool(values, 'summary')) return printSummary(file, values, settings, decisions, summaryText);
  // What the user's agent sends now, read here at the edge: the resume the plan promises is sent by it.
  const agentNow = await readAgentNow(file, analysis);
  const plan = await promisedPlan(file, analysis, settings, state, decisions, summaryText, agentNow);
  // What the next turn costs both ways, from the session's cache state now, with the summarizer's own cost estimated;
  // an unpriced session says so (`nextTurn.priced` false and the reason) instead of leaving the line out.
  const nextTurn = compactionEconomics(analysis, plan, {
    now: Date.now(),
    prices: await pricesFrom(str(values, 'prices')),
    summarizer: summarizerPricingFrom(values),
    pricesHint: '--prices FILE',
  });
  if (bool(values, 'json')) printJson(JSON.stringify({ ...plan, bound: planBound(plan), nextTurn }, null, 2) + '\n');
  else printOut(renderPlan(plan) + (nextTurn ? `${sanitizeForTerminal(economicsLine(nextTurn))}\n` : ''));
  return 0;
}

/** `--summarizer` and `--model` as the pricing of the summary (checked like compact checks them). */
function summarizerPricingFrom(values: Values): SummarizerPricing {
  const given = str(values, 'summarizer') ?? 'extractive';
  const summarizer = SUMMARIZERS.find((s) => s === given);
  if (!summarizer)
    throw new UsageError(`--summarizer must be ${SUMMARIZERS.join(', ')}; got '${sanitizeForTerminal(given)}'`);
  const model = str(values, 'model');
  if (model !== undefined && summarizer !== 'anthropic')
    throw new UsageError('--model only applies with --summarizer anthropic');
  return { summarizer, model };
}

/**
 * The plan `compact` applies with these settings: the planner's, or with `--summary-file` the plan made for that text's
 * size (planned over the lines, as compact plans it), so the promise printed is the one compact delivers against; the
 * planner's own plan when there is nothing to do.
 */
async function promisedPlan(
  file: string,
  analysis: Awaited<ReturnType<typeof inspectFile>>,
  settings: ReturnType<typeof settingsFrom>,
  state: Awaited<ReturnType<typeof planInputsFor>>['state'],
  decisions: UserDecisions,
  summaryText: string | undefined,
  agentNow: AgentNow | null,
): Promise<CompactionPlan> {
  if (summaryText === undefined) return planCompaction(analysis, settings, state, decisions, agentNow);
  try {
    return (
      await planCompactionOf(file, { summarizer: 'extractive', settings, decisions, summaryText, agentNow }, analysis)
    ).plan;
  } catch (err) {
    if (!(err instanceof CompactError) || err.code !== 'nothing-to-compact') throw err;
    return planCompaction(analysis, settings, state, decisions, agentNow);
  }
}

async function printSummary(
  file: string,
  values: Values,
  settings: ReturnType<typeof settingsFrom>,
  decisions: UserDecisions,
  summaryText: string | undefined,
): Promise<number> {
  const json = bool(values, 'json');
  try {
    const draft = await draftSummary(file, { summarizer: 'extractive', settings, decisions, summaryText });
    if (json)
      printJson(
        JSON.stringify(
          { summary: draft.summary, summarizer: draft.summarizer, plan: draft.plan, fidelity: draft.fidelity ?? null },
          null,
          2,
        ) + '\n',
      );
    else printOut(draft.summary.endsWith('\n') ? draft.summary : draft.summary + '\n');
    // On stderr: stdout stays the summary alone, to be edited and given back with --summary-file.
    if (!json && draft.fidelity) printErr(`${fidelityText(draft.fidelity)}\n`);
    return 0;
  } catch (err) {
    if (!(err instanceof CompactError) || err.code !== 'nothing-to-compact') throw err;
    if (json) printJson(JSON.stringify({ summary: null, nothingToDo: true, message: err.message }) + '\n');
    else printOut(`${sanitizeForTerminal(err.message)}\n`);
    return 0;
  }
}

const MARK = { keep: '  keep', summarize: '» summarize', drop: '✗ drop' } as const;
/** Actions the user decided carry a mark of their own beside the plan's. */
const MARK_USER = { keep: '◆ keep (you)', summarize: '◆ summarize (you)', drop: '◆ drop (you)' } as const;

export function renderPlan(plan: CompactionPlan): string {
  const out: string[] = [];
  const active = plan.rounds.filter((r) => r.inContext);
  out.push(
    `${sanitizeForTerminal(plan.file)}: target ${formatTokens(plan.settings.targetTokens)} tokens, keep recent ${formatTokens(plan.settings.keepRecentTokens)}`,
  );
  out.push('');
  out.push(
    table(
      ['round', 'lines', 'action', 'tokens', 'after', 'what / why'],
      active.map((r) => [
        String(r.index),
        `${r.firstLine}-${r.lastLine}`,
        (r.by === 'user' ? MARK_USER : MARK)[r.action],
        formatTokens(r.tokens),
        r.action === 'keep' ? formatTokens(r.tokensAfter) : '-',
        truncate(sanitizeForTerminal(`${r.label} — ${r.reason}`), 70),
      ]),
      new Set([3, 4]),
    ),
  );
  const replaced = plan.toolResults.filter((t) => t.action !== 'kept' && t.preview !== null);
  if (replaced.length) {
    out.push('');
    out.push('tool results replaced by previews:');
    for (const t of replaced)
      out.push(
        `  line ${t.line} ${sanitizeForTerminal(t.toolName ?? '?')} ${sanitizeForTerminal(t.toolUseId)}: ${t.originalChars.toLocaleString('en-US')} chars → ${t.preview!.length.toLocaleString('en-US')} (${t.action}; ${t.reason})`,
      );
  }
  out.push('');
  out.push(`context now: ${formatTokens(plan.context.tokens)} tokens (${contextParts(plan.context, formatTokens)})`);
  // One figure: the context now (the line above), not the rounds' estimate of the transcript.
  if (plan.nothingToDo)
    out.push(
      `nothing to do: the context now (${formatTokens(plan.context.tokens)}) is within the ${formatTokens(plan.settings.targetTokens)} target`,
    );
  else
    out.push(
      // A plan that summarizes and drops nothing only budgets tool results: said so, not as "0 rounds / 0 tokens".
      (plan.summarizedRounds + plan.droppedRounds === 0
        ? `no round summarized or dropped, ${replacedText(plan)} replaced by previews; `
        : `${plan.summarizedRounds} rounds summarized, ${plan.droppedRounds} dropped / ${formatTokens(active.filter((r) => r.action !== 'keep').reduce((s, r) => s + r.tokens, 0))} tokens would be summarized or dropped; `) +
        `${formatTokens(plan.preTokens)} → ${formatTokens(plan.postTokens)} tokens of transcript (estimated${plan.summarizedRounds ? `, a ${plan.settings.summaryDetail} summary of about ${formatTokens(plan.postTokens - plan.keptTokens - (plan.resentTokens ?? 0))} included` : ''}${plan.resentTokens ? `, and ${formatTokens(plan.resentTokens)} the agent sends again on resume` : ''})` +
        (plan.overheadTokens
          ? `; with about ${formatTokens(plan.overheadTokens)} of system prompt and tools${plan.overheadFrom ? ` (${sanitizeForTerminal(plan.overheadFrom)})` : ''}, the resumed context is about ${formatTokens(promisedContext(plan).tokens)}`
          : ''),
    );
  out.push(`bound: ${sanitizeForTerminal(planBound(plan).text)}`);
  const byYou = (a: string) => active.filter((r) => r.by === 'user' && r.action === a).length;
  if (active.some((r) => r.by === 'user'))
    out.push(`${byYou('keep')} kept by you, ${byYou('drop')} dropped by you, ${byYou('summarize')} summarized by you`);
  for (const c of plan.conflicts)
    out.push(`conflict: ${sanitizeForTerminal(c.decision)}: ${sanitizeForTerminal(c.resolution)}`);
  for (const n of plan.notes) out.push(`note: ${sanitizeForTerminal(n)}`);
  return out.join('\n') + '\n';
}

/** "1 tool result" / "12 tool results": the results a plan newly replaces by previews. */
function replacedText(plan: CompactionPlan): string {
  const n = plan.toolResults.filter((t) => t.action === 'replaced').length;
  return `${n} tool result${n === 1 ? '' : 's'}`;
}
