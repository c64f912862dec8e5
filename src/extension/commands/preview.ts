// Preview Compaction: asks for (or takes) a target, computes the plan and marks the tree
// and the editor; nothing is written.
import * as vscode from 'vscode';
import { type CompactionPlan } from '../../core/compact/types';
import { DEFAULT_SETTINGS } from '../../core/compactSettings';
import { formatNumber } from '../model/format';
import { planSummary } from '../model/planText';
import { targetPrompt } from '../model/contextText';
import { contextNow } from '../../core/context';
import { parseTokenCount } from '../model/settings';
import { smallestReachableTarget } from '../../core/compact/reach';
import type { Services } from '../services';
import { CommandInputError, isProgrammatic, options, resolveTranscript } from './args';

export interface PreviewArgs {
  file?: string;
  /** Target in tokens; programmatic calls without it use the configured target. */
  targetTokens?: number;
}

export async function previewCommand(s: Services, arg?: unknown): Promise<CompactionPlan | null> {
  const programmatic = isProgrammatic(arg);
  const o = options<PreviewArgs>(arg);
  const file = await resolveTranscript(s, arg, { title: 'Preview Compaction', openLabel: 'Preview' });
  if (!file) {
    if (programmatic) throw new CommandInputError('preview: no transcript given and none is shown');
    return null;
  }
  if (s.store.file !== file || s.store.state.status !== 'ready') await s.store.load(file);
  const analysis = s.store.analysis;
  if (!analysis || s.store.file !== file) {
    if (programmatic) throw new CommandInputError(`preview: cannot read ${file}`);
    return null;
  }
  let target = o.targetTokens;
  if (target === undefined && !programmatic) {
    const settings = s.store.compactSettings(file);
    const current = settings.targetTokens ?? DEFAULT_SETTINGS.targetTokens;
    const t = analysis.report.totals;
    const smallest = await smallestReachableTarget(analysis, settings);
    const typed = await vscode.window.showInputBox({
      title: 'Preview Compaction',
      prompt: targetPrompt(contextNow(analysis.report), smallest),
      value: String(current),
      valueSelection: [0, String(current).length],
      validateInput: (v) => targetValidation(v, smallest, t.overheadTokens),
    });
    if (typed === undefined) return null;
    target = parseTokenCount(typed) ?? current;
  }
  const plan = await s.store.preview(target);
  if (!programmatic) {
    if (plan) vscode.window.setStatusBarMessage(`$(graph) ${planSummary(plan, contextNow(analysis.report))}`, 8000);
    else if (s.store.state.status === 'ready' && s.store.state.planError) {
      void vscode.window
        .showErrorMessage(`Could not plan a compaction: ${s.store.state.planError}`, 'Show Log')
        .then((c) => c && s.log.show());
    }
  }
  return plan;
}

/**
 * The input box's verdict on a typed target: an error for what is not a token count, a warning (the target can still
 * be accepted, and the plan then says the same) for one below the smallest reachable target.
 */
export function targetValidation(
  text: string,
  smallest: number,
  overhead: number | null,
): vscode.InputBoxValidationMessage | undefined {
  const n = parseTokenCount(text);
  if (n === null)
    return {
      message: 'A number of tokens between 1,000 and 10,000,000 (e.g. 120000 or 120k)',
      severity: vscode.InputBoxValidationSeverity.Error,
    };
  if (n >= smallest) return undefined;
  const why =
    overhead !== null && overhead >= n
      ? `the system prompt and tools alone take about ${formatNumber(overhead)} tokens`
      : 'the newest response is always kept verbatim';
  return {
    message: `Unreachable: ${why}. The smallest reachable target is about ${formatNumber(smallest)}.`,
    severity: vscode.InputBoxValidationSeverity.Warning,
  };
}
