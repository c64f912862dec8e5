// Human text about a compaction plan: the tree's summary node, the confirmation dialog,
// the notification after a run. Pure: no `vscode` import.
import type { CompactionPlan, CompactResult } from '../../core/compact/types';
import { baseName, formatNumber, plural } from './format';

export interface PlanFigures {
  /** Rounds summarized or dropped. */
  rounds: number;
  summarized: number;
  dropped: number;
  /** Tokens those rounds occupy now. */
  tokens: number;
  /** Rounds of the active context kept verbatim. */
  kept: number;
  /** Rounds before the last compact boundary (not in the active context, left alone). */
  history: number;
  replacedResults: number;
  frozenResults: number;
  keptResults: number;
  preTokens: number;
  postTokens: number;
}

export function planFigures(plan: CompactionPlan): PlanFigures {
  let summarized = 0;
  let dropped = 0;
  let tokens = 0;
  let kept = 0;
  let history = 0;
  for (const r of plan.rounds) {
    if (r.action === 'keep') {
      if (r.inContext) kept++;
      else history++;
      continue;
    }
    if (r.action === 'summarize') summarized++;
    else dropped++;
    tokens += r.tokens;
  }
  let replaced = 0;
  let frozen = 0;
  let keptResults = 0;
  for (const t of plan.toolResults) {
    if (t.action === 'replaced') replaced++;
    else if (t.action === 'frozen') frozen++;
    else keptResults++;
  }
  return {
    rounds: summarized + dropped,
    summarized,
    dropped,
    kept,
    history,
    tokens: Math.round(tokens),
    replacedResults: replaced,
    frozenResults: frozen,
    keptResults,
    preTokens: Math.round(plan.preTokens),
    postTokens: Math.round(plan.postTokens),
  };
}

/** "N rounds / T tokens would be summarized or dropped; X → Y tokens" (or why nothing would change). */
export function planSummary(plan: CompactionPlan): string {
  const f = planFigures(plan);
  if (plan.nothingToDo) {
    return `Nothing to compact: ${formatNumber(f.preTokens + plan.overheadTokens)} tokens with system prompt and tools, target ${formatNumber(plan.settings.targetTokens)}`;
  }
  return `${plural(f.rounds, 'round')} / ${formatNumber(f.tokens)} tokens would be summarized or dropped; ${formatNumber(f.preTokens)} → ${formatNumber(f.postTokens)} tokens`;
}

/** Longer explanation for tooltips and the confirmation dialog's detail. */
export function planDetail(plan: CompactionPlan): string {
  const f = planFigures(plan);
  const lines = [
    `Transcript now: ${formatNumber(f.preTokens)} tokens (estimate), plus about ${formatNumber(plan.overheadTokens)} of system prompt and tools; target ${formatNumber(plan.settings.targetTokens)} for the whole context.`,
    `After compaction: ${formatNumber(f.postTokens)} tokens of transcript (${formatNumber(plan.keptTokens)} kept verbatim + summary), about ${formatNumber(f.postTokens + plan.overheadTokens)} in all.`,
    `Rounds: ${formatNumber(f.summarized)} summarized, ${formatNumber(f.dropped)} dropped, ${formatNumber(f.kept)} kept${f.history ? ` (${formatNumber(f.history)} history rounds before the last compact boundary stay as they are)` : ''}.`,
    `Tool results: ${formatNumber(f.replacedResults)} replaced by previews, ${formatNumber(f.frozenResults)} frozen, ${formatNumber(f.keptResults)} kept.`,
  ];
  for (const n of plan.notes) lines.push(n);
  return lines.join('\n');
}

export type WriteMode = 'newFile' | 'inPlace';

/** Where a run would write, for the confirmation dialog. */
export function writeTarget(file: string, mode: WriteMode): string {
  if (mode === 'inPlace') return `${baseName(file)} in place (a backup ${baseName(file)}.bak-<timestamp> is written first)`;
  return `${baseName(file).replace(/\.jsonl$/i, '')}.compacted.jsonl beside the original`;
}

export function confirmationText(
  plan: CompactionPlan,
  options: { mode: WriteMode; summarizer: 'extractive' | 'anthropic'; model?: string },
): { message: string; detail: string } {
  const f = planFigures(plan);
  const message = `Compact ${baseName(plan.file)}? ${formatNumber(f.preTokens)} → ${formatNumber(f.postTokens)} tokens`;
  const how =
    options.summarizer === 'anthropic'
      ? `Summary: written by the Anthropic API${options.model ? ` (${options.model})` : ''}; the summarized rounds are sent to it.`
      : 'Summary: offline extractive summary (nothing leaves this machine).';
  const detail = [planSummary(plan), '', planDetail(plan), '', how, `Writes: ${writeTarget(plan.file, options.mode)}.`].join('\n');
  return { message, detail };
}

/** One line after a successful run. */
export function resultSummary(result: CompactResult): string {
  const attempts = result.attempts.length;
  const via = result.attempts.length ? result.attempts[result.attempts.length - 1].strategy : 'extractive';
  return `Compacted ${baseName(result.plan.file)}: ${formatNumber(result.preTokens)} → ${formatNumber(result.postTokens)} tokens (${via}${attempts > 1 ? `, ${attempts} attempts` : ''}). Wrote ${baseName(result.output)}.`;
}
