// Which transcripts have backups (written by in-place compactions), as context keys, so that Restore From Backup
// is offered only where there is something to restore: `agentCompactor.currentHasBackup` for the shown transcript,
// `agentCompactor.filesWithBackups` (paths) for the Explorer's menu on workspace files.
import { watch, type FSWatcher } from 'node:fs';
import { ContextKey } from '../contextKeys';
import { setContext } from '../setContext';
import { dirname } from 'node:path';
import * as vscode from 'vscode';
import { listBackups, transcriptOfBackup } from '../../core/compact/backup';
import { backupPrefix } from '../../core/io/backups';
import type { TranscriptStore } from '../store';

export function trackBackups(store: TranscriptStore): vscode.Disposable[] {
  const withBackups = new Set<string>();
  const looks = new Map<string, number>();
  const publish = () => {
    void setContext(ContextKey.filesWithBackups, [...withBackups]);
    void setContext(ContextKey.currentHasBackup, store.file !== undefined && withBackups.has(store.file));
  };
  const check = async (file: string | undefined) => {
    if (!file) return publish();
    // Only the newest look at a file counts: an older one that read the folder before a backup appeared may finish
    // after a newer one that saw it, and must not clear the key.
    const seq = (looks.get(file) ?? 0) + 1;
    looks.set(file, seq);
    const has = (await listBackups(file).catch(() => [])).length > 0;
    if (looks.get(file) !== seq) return;
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
  // The workspace-wide watcher can miss or delay events (in code-server its recursive watch can start late or not at
  // all), so the shown transcript's own folder is watched with Node's watcher too, as the Sessions view does.
  let current: { file: string; watcher: FSWatcher | undefined } | undefined;
  const watchCurrent = () => {
    const file = store.file;
    if (current?.file === file) return;
    current?.watcher?.close();
    current = undefined;
    if (!file) return;
    const prefix = backupPrefix(file);
    let watcher: FSWatcher | undefined;
    try {
      watcher = watch(dirname(file), (_event, name) => {
        if (name === null || String(name).startsWith(prefix)) void check(file);
      });
      watcher.on('error', () => watcher?.close());
    } catch {
      watcher = undefined; // a folder that cannot be watched: the workspace watcher and window focus still look
    }
    current = { file, watcher };
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
    { dispose: () => current?.watcher?.close() },
  ];
}
