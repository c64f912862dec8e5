// Open Budget Preview: the webview with every tool-result decision, wire-message totals
// and the chart of context size per round. Computes the plan first when there is none.
import type { BudgetState } from '../../webview/protocol';
import type { Services } from '../services';
import { options, str } from '../../webview/validate';
import { resolveTranscript, tellIfUnreadable } from './args';
import { optionsOf, type Call } from './call';

/** `{ file }`: the transcript to preview (default: the shown one). */
export const OPEN_BUDGET_OPTIONS = options({ file: str(4_096, { min: 1 }) });

/** Shows the Budget Preview of `file` (planned first if it has no plan); its state as shown. */
export async function openBudget(s: Services, file: string): Promise<BudgetState | undefined> {
  if (s.store.file !== file || s.store.state.status !== 'ready') await s.store.load(file);
  if (s.store.state.status === 'ready' && !s.store.plan) await s.store.preview();
  s.budget.show();
  return s.budget.state;
}

export async function openBudgetCommand(s: Services, arg: unknown, call: Call): Promise<BudgetState | undefined> {
  optionsOf(OPEN_BUDGET_OPTIONS, 'Open Budget Preview', arg);
  const file = await resolveTranscript(s, arg, call.ui, { title: 'Open Budget Preview', openLabel: 'Preview' });
  if (!file) return undefined;
  const state = await openBudget(s, file);
  await tellIfUnreadable(s, call.ui, file);
  return state;
}
