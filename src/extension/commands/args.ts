// Argument handling shared by the commands. A command is invoked from the palette (no argument), a menu (a Uri, or a
// tree node), or by code (a plain options object, checked against the command's schema: call.ts `optionsOf`).
import * as vscode from 'vscode';
import { existsSync } from 'node:fs';
import { isTranscriptEditor } from '../store';
import type { Services } from '../services';
import { sessionsFolder } from '../model/sessions';
import { CommandInputError, type Ui } from './call';

export { CommandInputError } from './call';

/** A file named by the argument: Uri, path string, `{ file }` (options or tree node). */
export function fileFromArg(arg: unknown): string | undefined {
  if (arg instanceof vscode.Uri) return arg.scheme === 'file' ? arg.fsPath : undefined;
  if (typeof arg === 'string' && arg) return arg;
  if (arg && typeof arg === 'object') {
    const f = (arg as { file?: unknown; target?: unknown; kind?: unknown }).file;
    if (typeof f === 'string' && f) return f;
  }
  return undefined;
}

export async function pickTranscript(title: string, openLabel: string): Promise<string | undefined> {
  const folder = sessionsFolder();
  const picked = await vscode.window.showOpenDialog({
    title,
    openLabel,
    canSelectMany: false,
    canSelectFiles: true,
    canSelectFolders: false,
    filters: {
      'Agent sessions (Claude Code, Codex, Copilot CLI, Gemini CLI, Cline)': ['jsonl', 'json'],
      'All files': ['*'],
    },
    defaultUri: existsSync(folder) ? vscode.Uri.file(folder) : undefined,
  });
  return picked?.[0]?.fsPath;
}

/**
 * The transcript a command acts on: the argument's, else the one shown in the tree, else the active editor's, else
 * one a person chooses in a file dialog (undefined if they do not); a call from code that names none is refused.
 */
export async function resolveTranscript(
  s: Services,
  arg: unknown,
  ui: Ui,
  pick: { title: string; openLabel: string },
): Promise<string | undefined> {
  return shownTranscript(s, arg) ?? ui.ask(() => pickTranscript(pick.title, pick.openLabel), noTranscript(pick.title));
}

/** The transcript of the argument, else the one shown in the tree, else the active editor's; none asked for. */
export function shownTranscript(s: Services, arg: unknown): string | undefined {
  const fromArg = fileFromArg(arg);
  if (fromArg) return fromArg;
  if (s.store.file) return s.store.file;
  const editor = vscode.window.activeTextEditor;
  return isTranscriptEditor(editor) ? editor.document.uri.fsPath : undefined;
}

/** The unattended answer to "which transcript?": a refusal naming the command. */
export function noTranscript(title: string): () => never {
  return () => {
    throw new CommandInputError(`${title}: no transcript given and none is shown`);
  };
}

/**
 * After a view was opened on `file` (it shows the store's state): a person is also told, once, when the store could
 * not read that file; code reads the state it was returned.
 */
export async function tellIfUnreadable(s: Services, ui: Ui, file: string): Promise<void> {
  const st = s.store.state;
  if (st.status === 'error' && s.store.file === file)
    await ui.present(() => void vscode.window.showWarningMessage(st.message));
}
