// A session's own actions in the Sessions view (besides Show Rounds, Context Map, Compact and the resume commands,
// which take a session row as they take any transcript): Reveal Session File, and Open Original Session for a fork.
import * as vscode from 'vscode';
import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { AGENTS } from '../../core/formats/registry';
import type { Services } from '../services';
import { CommandId } from '../commandIds';
import { isInside } from '../model/resume';
import { options, str } from '../../webview/validate';
import { fileFromArg } from './args';
import { CommandInputError, optionsOf } from './call';

/** `{ file }`: the session (default: the shown one). */
export const SESSION_FILE_OPTIONS = options({ file: str(4_096, { min: 1 }) });

/** The session a call names: its `{ file }`, a Uri or a tree node, else the shown one; refused when there is none. */
function sessionOf(s: Services, arg: unknown, title: string): string {
  optionsOf(SESSION_FILE_OPTIONS, title, arg);
  const file = fileFromArg(arg) ?? s.store.file;
  if (!file) throw new CommandInputError(`${title}: { file } is required`);
  return file;
}

/** Where Reveal Session File showed the file. */
export type RevealedIn = 'explorer' | 'os' | 'clipboard';

/**
 * Shows the session's file: in the Explorer when it is in the workspace, else in the system's file manager; where
 * there is none to open (VS Code in a browser, a remote window: the file is on another machine), its path is copied.
 */
export async function revealSessionFile(file: string): Promise<RevealedIn> {
  const uri = vscode.Uri.file(file);
  if ((vscode.workspace.workspaceFolders ?? []).some((f) => f.uri.scheme === 'file' && isInside(file, f.uri.fsPath))) {
    await vscode.commands.executeCommand('revealInExplorer', uri);
    return 'explorer';
  }
  if (vscode.env.uiKind === vscode.UIKind.Desktop && !vscode.env.remoteName) {
    await vscode.commands.executeCommand('revealFileInOS', uri);
    return 'os';
  }
  await vscode.env.clipboard.writeText(file);
  void vscode.window.showInformationMessage(
    `${basename(file)} is on the machine VS Code runs its extensions on; its path is copied to the clipboard: ${file}`,
  );
  return 'clipboard';
}

export function revealSessionFileCommand(s: Services, arg: unknown): Promise<RevealedIn> {
  return revealSessionFile(sessionOf(s, arg, 'Reveal Session File'));
}

/** The transcript a fork was forked from: the session of that id beside it (Claude Code finds a session there), or null. */
export async function forkOriginalFile(file: string): Promise<string | null> {
  // Forks are known in project folders (a fork of another agent's session is listed with none), by the module of
  // the agent that keeps its sessions so.
  const projects = AGENTS.find((a) => a.sessions?.projects)?.sessions?.projects;
  if (!projects) return null;
  const { forkOf } = await projects.summarize(file, basename(dirname(file)));
  if (!forkOf) return null;
  const original = join(dirname(file), `${forkOf.sessionId}.jsonl`);
  return existsSync(original) ? original : null;
}

/** Open Original Session: shows the rounds of the session a fork was forked from; refused for a session that is none. */
export async function openOriginalSession(file: string): Promise<string> {
  const original = await forkOriginalFile(file);
  if (!original)
    throw new CommandInputError(
      `${basename(file)} is not a fork of a session in its folder (or its original is gone).`,
      { severity: 'info' },
    );
  await vscode.commands.executeCommand(CommandId.showRounds, { file: original });
  return original;
}

export function openOriginalSessionCommand(s: Services, arg: unknown): Promise<string> {
  return openOriginalSession(sessionOf(s, arg, 'Open Original Session'));
}
