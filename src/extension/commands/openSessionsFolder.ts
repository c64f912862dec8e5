// Open Sessions Folder: the sessions of every agent found on this machine (Claude Code's ~/.claude/projects,
// Codex's ~/.codex/sessions, Gemini CLI's ~/.gemini/tmp, Cline / Roo Code task folders), newest first, to pick one;
// or Claude Code's folder itself in a new window / the OS file manager.
import * as vscode from 'vscode';
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import {
  agentFolders,
  listAgentSessions,
  listSessions,
  sessionPickItem,
  sessionsFolder,
  type SessionFile,
} from '../model/sessions';
import type { Services } from '../services';
import { agentModule, type AgentId } from '../../core/formats/registry';
import { CommandId } from '../commandIds';
import type { Call } from './call';

export interface SessionsResult {
  /** Claude Code's sessions folder, whether it exists, and its sessions. */
  folder: string;
  exists: boolean;
  sessions: SessionFile[];
  /** Every other agent's sessions folder found on this machine, with its sessions. */
  others: { agent: string; id: AgentId; folder: string; sessions: SessionFile[] }[];
  picked?: string;
}

type Item = vscode.QuickPickItem & { file?: string; action?: 'window' | 'os' };

/** Every agent's sessions folder found on this machine, with its sessions (Claude Code's first). */
export async function agentSessions(s: Services): Promise<SessionsResult> {
  return (await listed(s)).result;
}

async function listed(
  s: Services,
): Promise<{ result: SessionsResult; main?: ReturnType<typeof agentFolders>[number] }> {
  const folders = agentFolders(process.env, undefined, dirname(s.context.globalStorageUri.fsPath));
  // The folder of projects (Claude Code's) is the one opened or revealed; every agent's sessions are listed.
  const main = folders.find((f) => f.location.projectFolders);
  const folder = main?.folder ?? sessionsFolder();
  const exists = existsSync(folder);
  const sessions = exists ? await listSessions(folder) : [];
  const others: SessionsResult['others'] = [];
  for (const f of folders) {
    if (f === main) continue;
    if (existsSync(f.folder))
      others.push({ agent: f.agent, id: f.id, folder: f.folder, sessions: await listAgentSessions(f) });
  }
  return { result: { folder, exists, sessions, others }, main };
}

/** Lists the sessions; a person picks one (or opens the folder), code gets the list. */
export async function openSessionsFolderCommand(s: Services, _arg: unknown, call: Call): Promise<SessionsResult> {
  const { result, main } = await listed(s);
  const { folder, exists, sessions, others } = result;
  if (!exists && others.length === 0) {
    const choice = await call.ui.ask(
      () =>
        vscode.window.showInformationMessage(
          `No sessions folder of Claude Code (${folder}), Codex, Gemini CLI, Cline or Roo Code was found.`,
          'Open Transcript…',
        ),
      () => undefined,
    );
    if (choice) await vscode.commands.executeCommand(CommandId.openTranscript);
    return result;
  }
  const all = [
    ...(main ? sessions.map((x) => ({ ...x, agent: main.agent, id: main.id })) : []),
    ...others.flatMap((o) => o.sessions.map((x) => ({ ...x, agent: o.agent, id: o.id, project: '' }))),
  ];
  all.sort((a, b) => b.mtimeMs - a.mtimeMs);
  // Titles, projects and context figures of the sessions in the projects folder, as its agent's module reads them.
  const projects = main && agentModule(main.id).sessions?.projects;
  const titled = new Map((exists && projects ? await projects.scan(folder) : []).map((x) => [x.file, x] as const));
  const items: Item[] = [
    ...(exists
      ? [
          { label: '$(folder-opened) Open Sessions Folder in New Window', action: 'window' as const },
          { label: '$(file-directory) Reveal Sessions Folder in File Manager', action: 'os' as const },
        ]
      : []),
    { label: 'Sessions, newest first', kind: vscode.QuickPickItemKind.Separator },
    ...all.map((x) => sessionPickItem(x, titled.get(x.file))),
  ];
  const picked = await call.ui.ask(
    () =>
      vscode.window.showQuickPick(items, {
        title: `Agent Sessions (${[exists ? (main?.agent ?? '') : '', ...others.map((o) => o.agent)].filter(Boolean).join(', ')})`,
        placeHolder: sessions.length ? 'Pick a session to show its rounds' : 'No sessions yet',
        matchOnDescription: true,
        matchOnDetail: true,
      }),
    () => undefined,
  );
  if (!picked) return result;
  if (picked.action === 'window')
    await vscode.commands.executeCommand('vscode.openFolder', vscode.Uri.file(folder), { forceNewWindow: true });
  else if (picked.action === 'os') await vscode.commands.executeCommand('revealFileInOS', vscode.Uri.file(folder));
  else if (picked.file) await vscode.commands.executeCommand(CommandId.openTranscript, vscode.Uri.file(picked.file));
  return { ...result, picked: picked.file };
}
