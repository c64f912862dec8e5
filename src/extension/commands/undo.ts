// Undo Last Compaction: after a confirmation naming what changes, puts the session and its
// sidecars back as they were before the last compaction run in this window (core/compact/undo.ts).
import * as vscode from 'vscode';
import { basename } from 'node:path';
import { describeUndo, undoCompaction } from '../../core/compact/undo';
import type { Services } from '../services';
import { CommandInputError, isProgrammatic, options } from './args';

export async function undoLastCompactionCommand(s: Services, arg?: unknown): Promise<boolean> {
  const programmatic = isProgrammatic(arg);
  const result = s.store.lastResult;
  if (!result) {
    if (programmatic) throw new CommandInputError('undoLastCompaction: no compaction was run in this window');
    void vscode.window.showInformationMessage('No compaction was run in this window, so there is nothing to undo.');
    return false;
  }
  const original = result.plan.file;
  if (options<{ confirm: boolean }>(arg).confirm !== false) {
    const { changes } = describeUndo(original, result);
    const choice = await vscode.window.showWarningMessage(`Undo the last compaction of ${basename(original)}?`, { modal: true, detail: changes.map((c) => `• ${c}`).join('\n') }, 'Undo Compaction');
    if (choice !== 'Undo Compaction') return false;
  }
  await undoCompaction(original, result);
  s.store.lastResult = undefined;
  s.log.info(`Undid the compaction of ${original} (${result.mode}; ${result.output})`);
  s.store.invalidate(original);
  if (s.store.file === original) await s.store.refresh(true);
  if (!programmatic) void vscode.window.showInformationMessage(`The last compaction of ${basename(original)} was undone.`);
  return true;
}
