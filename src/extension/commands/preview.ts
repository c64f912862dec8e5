// Preview Compaction: asks for (or takes) a target, computes the plan and marks the tree
// and the editor; nothing is written.
import * as vscode from 'vscode';
import { basename } from 'node:path';
import { type CompactionPlan } from '../../core/compact/types';
import { DEFAULT_SETTINGS } from '../../core/compactSettings';
import { formatNumber } from '../model/format';
import { planSummary } from '../model/planText';
import { targetPrompt } from '../model/contextText';
import { contextNow } from '../../core/context';
import { parseTokenCount } from '../model/settings';
import type { Services } from '../services';
import { options, str } from '../../webview/validate';
import { TARGET_TOKENS } from './compactArgs';
import { resolveTranscript } from './args';
import { CommandFailure, optionsOf, type Call } from './call';

/** `{ file, targetTokens }`: the transcript (default: the shown one) and the target (default: a person types one; code: the configured one). */
export const PREVIEW_OPTIONS = options({ file: str(4_096, { min: 1 }), targetTokens: TARGET_TOKENS });

/** Plans a compaction of `file` to `target` (undefined: the configured target) and marks it; nothing is written. */
export async function previewCompaction(
  s: Services,
  file: string,
  target: number | undefined,
): Promise<CompactionPlan | null> {
  if (s.store.file !== file || s.store.state.status !== 'ready') await s.store.load(file);
  if (!s.store.analysis || s.store.file !== file) {
    const st = s.store.state;
    const why = st.status === 'error' ? st.message : 'it could not be read';
    throw new CommandFailure(
      `Cannot preview ${basename(file)}: ${why}`,
      new Error(`Preview Compaction: cannot read ${file}`),
    );
  }
  return s.store.preview(target);
}

export async function previewCommand(s: Services, arg: unknown, call: Call): Promise<CompactionPlan | null> {
  const o = optionsOf(PREVIEW_OPTIONS, 'Preview Compaction', arg);
  const file = await resolveTranscript(s, arg, call.ui, { title: 'Preview Compaction', openLabel: 'Preview' });
  if (!file) return null;
  if (s.store.file !== file || s.store.state.status !== 'ready') await s.store.load(file);
  const analysis = s.store.analysis;
  // Unread: said as the use case says it (a person was never asked for a target of a file that is not there).
  if (!analysis || s.store.file !== file) return previewCompaction(s, file, o.targetTokens);
  // The target given, else typed (undefined: the person stopped), else (code) the configured one.
  const chosen =
    o.targetTokens !== undefined
      ? { target: o.targetTokens }
      : await call.ui.ask<{ target?: number }>(
          async () => {
            const settings = s.store.compactSettings(file);
            const current = settings.targetTokens ?? DEFAULT_SETTINGS.targetTokens;
            const t = analysis.report.totals;
            // The one floor (the Context Map's floor line and drag minimum say the same).
            const smallest = await s.store.reachFloor(file, analysis);
            const typed = await vscode.window.showInputBox({
              title: 'Preview Compaction',
              prompt: targetPrompt(contextNow(analysis.report), smallest),
              value: String(current),
              valueSelection: [0, String(current).length],
              validateInput: (v) => targetValidation(v, smallest, t.overheadTokens),
            });
            return typed === undefined ? undefined : { target: parseTokenCount(typed) ?? current };
          },
          () => ({}),
        );
  if (!chosen) return null;
  const plan = await previewCompaction(s, file, chosen.target);
  await call.ui.present(() => {
    if (plan) vscode.window.setStatusBarMessage(`$(graph) ${planSummary(plan, contextNow(analysis.report))}`, 8000);
    else if (s.store.state.status === 'ready' && s.store.state.planError)
      void vscode.window
        .showErrorMessage(`Could not plan a compaction: ${s.store.state.planError}`, 'Show Log')
        .then((c) => c && s.log.show());
  });
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
