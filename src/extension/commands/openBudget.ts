// Open Budget Preview: the webview with every tool-result decision, wire-message totals
// and the chart of context size per round. Computes the plan first when there is none.
import * as vscode from 'vscode';
import type { BudgetState } from '../../webview/protocol';
import type { Services } from '../services';
import { CommandInputError, isProgrammatic, resolveTranscript } from './args';

export async function openBudgetCommand(s: Services, arg?: unknown): Promise<BudgetState | undefined> {
  const file = await resolveTranscript(s, arg, { title: 'Open Budget Preview', openLabel: 'Preview' });
  if (!file) {
    if (isProgrammatic(arg)) throw new CommandInputError('openBudget: no transcript given and none is shown');
    return undefined;
  }
  if (s.store.file !== file || s.store.state.status !== 'ready') await s.store.load(file);
  if (s.store.state.status === 'ready' && !s.store.plan) await s.store.preview();
  s.budget.show();
  if (s.store.state.status === 'error' && !isProgrammatic(arg))
    void vscode.window.showWarningMessage(s.store.state.message);
  return s.budget.state;
}
