// `agent-compactor plan <file>`: what a compaction would do, without writing anything.
import { inspectFile } from '../core/inspect';
import { planCompaction } from '../core/compact/plan';
import { compactionEconomics, economicsLine } from '../core/cache';
import { draftSummary } from '../core/compact/compact';
import { fidelityText } from '../core/compact/fidelity';
import { CompactError, type CompactionPlan } from '../core/compact/types';
import type { UserDecisions } from '../core/compact/decisions';
import { planBound } from '../core/compact/bound';
import { onePositional, readableTranscript, UsageError } from './args';
import { planInputsFor, STEER_NOTE, STEER_OPTIONS, summaryTextFrom } from './steer';
import { contextParts } from '../core/context';
import { unsupported } from '../core/formats/registry';
import { formatTokens, printErr, printJson, printOut, sanitizeForTerminal, table, truncate } from './format';
import { bool, HELP_OPTION, JSON_OPTION, NUMBERS_NOTE, type Values, type VerbSpec } from './options';
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
    JSON_OPTION,
    HELP_OPTION,
  ],
  notes: [NUMBERS_NOTE, STEER_NOTE],
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
  const plan = await planCompaction(analysis, settings, state, decisions);
  // What the next turn costs both ways (offline summary: the one plan describes), from the session's cache state now.
  const nextTurn = compactionEconomics(analysis, plan, { now: Date.now() });
  if (bool(values, 'json')) printJson(JSON.stringify({ ...plan, bound: planBound(plan), nextTurn }, null, 2) + '\n');
  else printOut(renderPlan(plan) + (nextTurn ? `${economicsLine(nextTurn)}\n` : ''));
  return 0;
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
  if (plan.nothingToDo) out.push(`nothing to do: about ${formatTokens(plan.preTokens)} tokens, within the target`);
  else
    out.push(
      `${plan.summarizedRounds} rounds summarized, ${plan.droppedRounds} dropped / ${formatTokens(active.filter((r) => r.action !== 'keep').reduce((s, r) => s + r.tokens, 0))} tokens would be summarized or dropped; ` +
        `${formatTokens(plan.preTokens)} → ${formatTokens(plan.postTokens)} tokens of transcript (estimated${plan.summarizedRounds ? `, a ${plan.settings.summaryDetail} summary of about ${formatTokens(plan.postTokens - plan.keptTokens - (plan.resentTokens ?? 0))} included` : ''}${plan.resentTokens ? `, and ${formatTokens(plan.resentTokens)} the agent sends again on resume` : ''})` +
        (plan.overheadTokens
          ? `; with about ${formatTokens(plan.overheadTokens)} of system prompt and tools, the resumed context is about ${formatTokens(plan.postTokens + plan.overheadTokens)}`
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
