// Undo Last Compaction: after a confirmation naming what changes, puts the session and its
// sidecars back as they were before the last compaction run in this window (core/compact/undo.ts).
// Afterwards the user is where they came from: the original is shown, and the tabs of a fork or
// output file the undo deleted are closed (they would show a file that is gone).
import * as vscode from 'vscode';
import { basename } from 'node:path';
import { describeUndo, undoCompaction } from '../../core/compact/undo';
import { CompactError, type CompactResult } from '../../core/compact/types';
import type { Services } from '../services';
import { ROUND_SCHEME } from '../views/roundDocuments';
import { CONVERSATION_SCHEME } from '../views/conversation';
import { bool, options } from '../../webview/validate';
import { CommandFailure, CommandInputError, optionsOf } from './call';

/** `{ confirm: false }`: no confirmation dialog. */
export const UNDO_OPTIONS = options({ confirm: bool });

export async function undoLastCompactionCommand(s: Services, arg: unknown): Promise<boolean> {
  const o = optionsOf(UNDO_OPTIONS, 'Undo Last Compaction', arg);
  const result = s.store.lastResult;
  if (!result)
    throw new CommandInputError('No compaction was run in this window, so there is nothing to undo.', {
      severity: 'info',
    });
  const original = result.plan.file;
  if (o.confirm !== false) {
    const { changes } = describeUndo(original, result);
    const choice = await vscode.window.showWarningMessage(
      `Undo the last compaction of ${basename(original)}?`,
      { modal: true, detail: changes.map((c) => `• ${c}`).join('\n') },
      'Undo Compaction',
    );
    if (choice !== 'Undo Compaction') return false;
  }
  await undoLast(s, result);
  return true;
}

/** Puts the session and its sidecars back as they were before `result` (the last run in this window). */
export async function undoLast(s: Services, result: CompactResult): Promise<void> {
  const original = result.plan.file;
  try {
    await undoCompaction(original, result);
  } catch (err) {
    // Refused before anything was written: the session went on since (turns an undo would take out), or the backup
    // is not whole. The result stays, so the undo can be tried again once the reason is dealt with.
    if (!(err instanceof CompactError)) throw err;
    throw new CommandFailure(`Cannot undo the last compaction of ${basename(original)}: ${err.message}`, err, {
      severity: 'warning',
    });
  }
  s.store.lastResult = undefined;
  s.log.info(`Undid the compaction of ${original} (${result.mode}; ${result.output})`);
  s.store.invalidate(original);
  if (result.output !== original) {
    s.store.invalidate(result.output);
    await closeTabsOf(result.output);
  }
  if (s.store.file === original || s.store.file === result.output) await s.store.load(original, { force: true });
  void vscode.window.showInformationMessage(`The last compaction of ${basename(original)} was undone.`);
}

/** Closes every tab that shows `file` (its text, its diff, a view of its rounds or conversation). */
async function closeTabsOf(file: string): Promise<void> {
  const tabs = vscode.window.tabGroups.all
    .flatMap((g) => g.tabs)
    .filter((t) => tabUris(t).some((u) => showsFile(u, file)));
  if (tabs.length) await vscode.window.tabGroups.close(tabs, true);
}

/** Whether `uri` shows `file`: the file itself, or a read-only document made of it (a round's lines, its conversation). */
function showsFile(uri: vscode.Uri, file: string): boolean {
  if (uri.scheme === 'file') return uri.fsPath === file;
  if (uri.scheme === ROUND_SCHEME) return new URLSearchParams(uri.query).get('file') === file;
  if (uri.scheme === CONVERSATION_SCHEME) return decodeURIComponent(uri.query) === file;
  return false;
}

function tabUris(t: vscode.Tab): vscode.Uri[] {
  const i = t.input;
  if (i instanceof vscode.TabInputText) return [i.uri];
  if (i instanceof vscode.TabInputTextDiff) return [i.original, i.modified];
  return [];
}
