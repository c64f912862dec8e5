// Where each agent keeps its sessions and the session files in those folders, newest first: every agent's module
// says where (its sessions locations), this walks them. Shared by the extension's Sessions view and pickers and the
// CLI's `sessions` verb.
import { readdir, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { homedir } from 'node:os';
import type { SessionsLocation } from './formats/agent';
import { agentModule, AGENTS, type AgentId } from './formats/registry';
import { inPool } from './pool';

export interface SessionFile {
  file: string;
  /** The project folder's name (Claude Code's encoding of the project path); for other agents, the location's name. */
  project: string;
  size: number;
  mtimeMs: number;
}

/**
 * The folder of projects: the first sessions folder whose folders are projects (Claude Code's
 * `$CLAUDE_CONFIG_DIR/projects`, else `~/.claude/projects`), the one the Sessions view watches and the pickers open in.
 */
export function sessionsFolder(env: NodeJS.ProcessEnv = process.env, home = homedir()): string {
  const where = { env, home, globalStorage: [] };
  for (const agent of AGENTS)
    for (const location of agent.sessions?.locations ?? [])
      if (location.projectFolders) {
        const [folder] = location.folders(where);
        if (folder) return folder;
      }
  throw new Error('no registered agent keeps its sessions in project folders');
}

/** Claude Code transcripts directly inside each project folder (subagent files excluded), newest first. */
export async function listSessions(folder: string, limit = 200): Promise<SessionFile[]> {
  let projects: string[];
  try {
    projects = (await readdir(folder, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name);
  } catch {
    return [];
  }
  const out: SessionFile[] = [];
  for (const project of projects) {
    let names: string[];
    try {
      names = (await readdir(join(folder, project), { withFileTypes: true }))
        .filter((d) => d.isFile() && d.name.endsWith('.jsonl'))
        .map((d) => d.name);
    } catch {
      continue;
    }
    for (const name of names) {
      const file = join(folder, project, name);
      try {
        const st = await stat(file);
        out.push({ file, project, size: st.size, mtimeMs: st.mtimeMs });
      } catch {
        /* vanished */
      }
    }
  }
  return newestFirst(out).slice(0, limit);
}

function newestFirst<T extends { mtimeMs: number; file: string }>(list: T[]): T[] {
  return list.sort((a, b) => b.mtimeMs - a.mtimeMs || a.file.localeCompare(b.file));
}

/** An agent's sessions folder, where it keeps one. */
export interface AgentFolder {
  /** The location's display name ('Claude Code', 'Codex CLI', 'Roo Code', …). */
  agent: string;
  id: AgentId;
  folder: string;
  /** The agent module's location the folder is of (its depth and which files are sessions). */
  location: SessionsLocation;
}

/** The VS Code builds whose global storage may hold extensions' tasks (Cline, Roo Code), by their user data folder. */
const VSCODE_BUILDS = ['Code', 'Code - Insiders', 'VSCodium', 'Cursor'];

/**
 * VS Code's global storage folders on this machine, as the CLI finds them (the extension knows its own): each build's
 * `User/globalStorage` in the platform's user data folder, then VS Code Server's and code-server's.
 */
export function vscodeGlobalStorage(
  env: NodeJS.ProcessEnv = process.env,
  home = homedir(),
  platform: NodeJS.Platform = process.platform,
): string[] {
  const data =
    platform === 'darwin'
      ? join(home, 'Library', 'Application Support')
      : platform === 'win32'
        ? (env.APPDATA ?? join(home, 'AppData', 'Roaming'))
        : env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME.trim()
          ? env.XDG_CONFIG_HOME.trim()
          : join(home, '.config');
  return [
    ...VSCODE_BUILDS.map((b) => join(data, b, 'User', 'globalStorage')),
    join(home, '.vscode-server', 'data', 'User', 'globalStorage'),
    join(home, '.local', 'share', 'code-server', 'User', 'globalStorage'),
  ];
}

/**
 * The sessions folders of every agent Agent Compactor reads, in the registry's order, as each agent's module names
 * them: Claude Code's projects, Codex's sessions (`$CODEX_HOME/sessions`, nested by date), Gemini CLI's chats, Cline's
 * and Roo Code's task folders in VS Code's global storage (`globalStorage`: the extension's own; by default every
 * VS Code build's, vscodeGlobalStorage), Copilot CLI's session state.
 */
export function agentFolders(
  env: NodeJS.ProcessEnv = process.env,
  home = homedir(),
  globalStorage?: string | readonly string[],
): AgentFolder[] {
  const storage =
    globalStorage === undefined
      ? vscodeGlobalStorage(env, home)
      : typeof globalStorage === 'string'
        ? [globalStorage]
        : globalStorage;
  const where = { env, home, globalStorage: storage };
  const folders: AgentFolder[] = [];
  for (const agent of AGENTS)
    for (const location of agent.sessions?.locations ?? [])
      for (const folder of location.folders(where))
        folders.push({ agent: location.label, id: agent.id, folder, location });
  return folders;
}

/**
 * The session files of an agent's folder, by its layout (files `depth` folders below it that the location calls
 * sessions), newest first; `project` names the location, and where its first folders are projects (Claude Code's),
 * the project folder too.
 */
export async function listAgentSessions(f: AgentFolder, limit = 200): Promise<SessionFile[]> {
  const files: { file: string; top: string }[] = [];
  const walk = async (dir: string, depth: number, top: string): Promise<void> => {
    let list;
    try {
      list = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const d of list) {
      const p = join(dir, d.name);
      if (d.isDirectory() && depth > 0) await walk(p, depth - 1, top || d.name);
      else if (depth === 0 && d.isFile() && f.location.isSessionFile(d.name, dir)) files.push({ file: p, top });
    }
  };
  await walk(f.folder, f.location.depth, '');
  const stats = await inPool(files, async ({ file, top }): Promise<SessionFile | null> => {
    try {
      const st = await stat(file);
      const project = f.location.projectFolders ? `${f.agent} · ${top}` : f.agent;
      return { file, project, size: st.size, mtimeMs: st.mtimeMs };
    } catch {
      return null; // vanished
    }
  });
  return newestFirst(stats.filter((s): s is SessionFile => s !== null)).slice(0, limit);
}

/** How a session file of an agent is named in a list where no title is known (its module's `nameOf`). */
export function sessionName(id: AgentId, file: string): string {
  const nameOf = agentModule(id).sessions?.nameOf;
  return nameOf ? nameOf(file) : `${basename(dirname(file))}/${basename(file)}`;
}
