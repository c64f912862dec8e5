// Open Sessions Folder: Claude Code's sessions (~/.claude/projects), newest first, to pick
// one; or the folder itself in a new window / the OS file manager.
import * as vscode from 'vscode';
import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import { formatBytes } from '../model/format';
import { listSessions, sessionsFolder, timeAgo, type SessionFile } from '../model/sessions';
import type { Services } from '../services';
import { isProgrammatic } from './args';

export interface SessionsResult {
  folder: string;
  exists: boolean;
  sessions: SessionFile[];
  picked?: string;
}

type Item = vscode.QuickPickItem & { file?: string; action?: 'window' | 'os' };

export async function openSessionsFolderCommand(_s: Services, arg?: unknown): Promise<SessionsResult> {
  const folder = sessionsFolder();
  const exists = existsSync(folder);
  const sessions = exists ? await listSessions(folder) : [];
  if (isProgrammatic(arg)) return { folder, exists, sessions };
  if (!exists) {
    const choice = await vscode.window.showInformationMessage(`No Claude Code sessions folder at ${folder}.`, 'Open Transcript…');
    if (choice) await vscode.commands.executeCommand('agentCompactor.openTranscript');
    return { folder, exists, sessions };
  }
  const items: Item[] = [
    { label: '$(folder-opened) Open Sessions Folder in New Window', action: 'window' },
    { label: '$(file-directory) Reveal Sessions Folder in File Manager', action: 'os' },
    { label: 'Sessions, newest first', kind: vscode.QuickPickItemKind.Separator },
    ...sessions.map((x) => ({
      label: basename(x.file, '.jsonl'),
      description: x.project,
      detail: `${timeAgo(x.mtimeMs)} · ${formatBytes(x.size)}`,
      file: x.file,
    })),
  ];
  const picked = await vscode.window.showQuickPick(items, {
    title: `Claude Code Sessions (${folder})`,
    placeHolder: sessions.length ? 'Pick a session to show its rounds' : 'No sessions yet',
    matchOnDescription: true,
    matchOnDetail: true,
  });
  if (!picked) return { folder, exists, sessions };
  if (picked.action === 'window') await vscode.commands.executeCommand('vscode.openFolder', vscode.Uri.file(folder), { forceNewWindow: true });
  else if (picked.action === 'os') await vscode.commands.executeCommand('revealFileInOS', vscode.Uri.file(folder));
  else if (picked.file) await vscode.commands.executeCommand('agentCompactor.openTranscript', vscode.Uri.file(picked.file));
  return { folder, exists, sessions, picked: picked.file };
}
