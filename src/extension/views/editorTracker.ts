// Follows the active editor: a session file on disk (`.jsonl`, an agent's JSON document, a `.json` whose content is a
// session) becomes the shown transcript; keeps the "active editor is a transcript" context key current; re-plans when
// settings change.
// Tabs are watched too: VS Code gives extensions no TextEditor for files over 50 MB, but the
// active tab still names the file, so large transcripts are followed as well.
import * as vscode from 'vscode';
import { ContextKey } from '../contextKeys';
import { setContext } from '../setContext';
import { isTranscriptEditor, isTranscriptUri, type TranscriptStore } from '../store';
import { onSettingsChanged } from '../settings';

function activeTabUri(): vscode.Uri | undefined {
  const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  return input instanceof vscode.TabInputText ? input.uri : undefined;
}

export function trackActiveEditor(store: TranscriptStore): vscode.Disposable[] {
  let last: string | undefined;
  const update = () => {
    const editor = vscode.window.activeTextEditor;
    const uri = editor?.document.uri ?? activeTabUri();
    const is = editor ? isTranscriptEditor(editor) : isTranscriptUri(uri);
    void setContext(ContextKey.activeEditorIsTranscript, is);
    const file = is ? uri?.fsPath : undefined;
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
