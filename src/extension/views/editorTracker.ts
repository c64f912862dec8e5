// Follows the active editor: a `.jsonl` file on disk becomes the shown transcript; keeps the
// "active editor is a transcript" context key current; re-plans when settings change.
// Tabs are watched too: VS Code gives extensions no TextEditor for files over 50 MB, but the
// active tab still names the file, so large transcripts are followed as well.
import * as vscode from 'vscode';
import { ContextKey } from '../contextKeys';
import { setContext } from '../setContext';
import { isTranscriptUri, type TranscriptStore } from '../store';
import { onSettingsChanged } from '../settings';

function activeTabUri(): vscode.Uri | undefined {
  const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  return input instanceof vscode.TabInputText ? input.uri : undefined;
}

export function trackActiveEditor(store: TranscriptStore): vscode.Disposable[] {
  let last: string | undefined;
  const update = () => {
    const uri = vscode.window.activeTextEditor?.document.uri ?? activeTabUri();
    const is = isTranscriptUri(uri);
    void setContext(ContextKey.activeEditorIsTranscript, is);
    const file = is ? uri.fsPath : undefined;
    if (file && file !== last) void store.load(file);
    last = file;
  };
  update();
  return [
    vscode.window.onDidChangeActiveTextEditor(update),
    vscode.window.tabGroups.onDidChangeTabs(update),
    vscode.window.tabGroups.onDidChangeTabGroups(update),
    // Only re-plans: a settings change must not turn into a preview of the shown file.
    onSettingsChanged(() => void store.replan()),
  ];
}
