// Which transcripts have backups (written by in-place compactions), as context keys, so that Restore From Backup
// is offered only where there is something to restore: `agentCompactor.currentHasBackup` for the shown transcript,
// `agentCompactor.filesWithBackups` (paths) for the Explorer's menu on workspace files.
import { basename, dirname } from 'node:path';
import * as vscode from 'vscode';
import { listBackups, transcriptOfBackup } from '../../core/compact/backup';
import type { TranscriptStore } from '../store';

export const CURRENT_HAS_BACKUP = 'agentCompactor.currentHasBackup';
export const FILES_WITH_BACKUPS = 'agentCompactor.filesWithBackups';

export function trackBackups(store: TranscriptStore): vscode.Disposable[] {
  const withBackups = new Set<string>();
  const publish = () => {
    void vscode.commands.executeCommand('setContext', FILES_WITH_BACKUPS, [...withBackups]);
    void vscode.commands.executeCommand('setContext', CURRENT_HAS_BACKUP, store.file !== undefined && withBackups.has(store.file));
  };
  const check = async (file: string | undefined) => {
    if (!file) return publish();
    const has = (await listBackups(file).catch(() => [])).length > 0;
    if (has) withBackups.add(file);
    else withBackups.delete(file);
    publish();
  };
  const watcher = vscode.workspace.createFileSystemWatcher('**/*.jsonl.bak-*');
  const onBackup = (uri: vscode.Uri) => void check(transcriptOfBackup(uri.fsPath));
  void vscode.workspace.findFiles('**/*.jsonl.bak-*', undefined, 2_000).then((found) => {
    for (const uri of found) {
      const t = transcriptOfBackup(uri.fsPath);
      if (t) withBackups.add(t);
    }
    publish();
  });
  // The workspace-wide watcher can miss or delay events (its recursive watch starts late, or not at all outside a
  // folder); the shown transcript's own folder is also watched for its backups, the way the store watches the file.
  let current: { file: string; watcher: vscode.FileSystemWatcher } | undefined;
  const watchCurrent = () => {
    const file = store.file;
    if (current?.file === file) return;
    current?.watcher.dispose();
    current = undefined;
    if (!file) return;
    const w = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(dirname(file)), `${basename(file)}.bak-*`));
    w.onDidCreate(() => void check(file));
    w.onDidDelete(() => void check(file));
    current = { file, watcher: w };
  };
  watchCurrent();
  void check(store.file);
  return [
    watcher,
    watcher.onDidCreate(onBackup),
    watcher.onDidDelete(onBackup),
    store.onDidChange(() => {
      watchCurrent();
      void check(store.file);
    }),
    // Coming back to the window (after a copy in a terminal or another program) looks again.
    vscode.window.onDidChangeWindowState((s) => {
      if (s.focused) void check(store.file);
    }),
    { dispose: () => void current?.watcher.dispose() },
  ];
}
