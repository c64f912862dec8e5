// A session's own actions in the Sessions view (besides Show Rounds, Context Map, Compact and the resume commands,
// which take a session row as they take any transcript): Reveal Session File, and Open Original Session for a fork.
import * as vscode from 'vscode';
import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { AGENTS } from '../../core/formats/registry';
import type { Services } from '../services';
import { CommandId } from '../commandIds';
import { isInside } from '../model/resume';
import { CommandInputError, fileFromArg, isProgrammatic } from './args';

/** Where Reveal Session File showed the file. */
export type RevealedIn = 'explorer' | 'os' | 'clipboard';

/**
 * Shows the session's file: in the Explorer when it is in the workspace, else in the system's file manager; where
 * there is none to open (VS Code in a browser, a remote window: the file is on another machine), its path is copied.
 */
export async function revealSessionFileCommand(s: Services, arg?: unknown): Promise<RevealedIn | undefined> {
  const file = fileFromArg(arg) ?? s.store.file;
  if (!file) {
    if (isProgrammatic(arg)) throw new CommandInputError('revealSessionFile: { file } is required');
    return undefined;
  }
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
  if (!isProgrammatic(arg))
    void vscode.window.showInformationMessage(
      `${basename(file)} is on the machine VS Code runs its extensions on; its path is copied to the clipboard: ${file}`,
    );
  return 'clipboard';
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

/** Open Original Session: shows the rounds of the session a fork was forked from. */
export async function openOriginalSessionCommand(s: Services, arg?: unknown): Promise<string | undefined> {
  const programmatic = isProgrammatic(arg);
  const file = fileFromArg(arg) ?? s.store.file;
  if (!file) {
    if (programmatic) throw new CommandInputError('openOriginalSession: { file } is required');
    return undefined;
  }
  const original = await forkOriginalFile(file);
  if (!original) {
    const msg = `${basename(file)} is not a fork of a session in its folder (or its original is gone).`;
    if (programmatic) throw new CommandInputError(msg);
    void vscode.window.showInformationMessage(msg);
    return undefined;
  }
  await vscode.commands.executeCommand(CommandId.showRounds, { file: original });
  return original;
}
