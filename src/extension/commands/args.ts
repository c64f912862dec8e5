// Argument handling shared by the commands. A command is invoked from the palette (no
// argument), a menu (a Uri, or a tree node), or programmatically (a plain options object,
// e.g. by the host tests); the last kind gets errors thrown back instead of only shown.
import * as vscode from 'vscode';
import { existsSync } from 'node:fs';
import { isTranscriptEditor } from '../store';
import type { Services } from '../services';
import { sessionsFolder } from '../model/sessions';

/** A plain options object passed by code (not a Uri, not a tree node). */
export function isProgrammatic(arg: unknown): arg is Record<string, unknown> {
  if (!arg || typeof arg !== 'object' || arg instanceof vscode.Uri || Array.isArray(arg)) return false;
  return !('contextValue' in arg && 'kind' in arg);
}

/** The options object of a programmatic call, else {}. */
export function options<T extends object>(arg: unknown): Partial<T> {
  return isProgrammatic(arg) ? (arg as Partial<T>) : {};
}

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
 * The transcript a command acts on: the argument's, else the one shown in the tree, else
 * the active editor's, else (when `pick`) one chosen in a file dialog.
 */
export async function resolveTranscript(
  s: Services,
  arg: unknown,
  pick: { title: string; openLabel: string } | false,
): Promise<string | undefined> {
  const fromArg = fileFromArg(arg);
  if (fromArg) return fromArg;
  if (s.store.file) return s.store.file;
  const editor = vscode.window.activeTextEditor;
  if (isTranscriptEditor(editor)) return editor.document.uri.fsPath;
  if (pick && !isProgrammatic(arg)) return pickTranscript(pick.title, pick.openLabel);
  return undefined;
}

/** Error for programmatic calls that lack what the UI would have asked for. */
export class CommandInputError extends Error {
  override name = 'CommandInputError';
}
