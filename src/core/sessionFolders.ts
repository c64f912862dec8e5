// Where each agent keeps its sessions (from the environment and the home folder) and the session files in those
// folders, newest first. Shared by the extension's Sessions view and pickers and the CLI's `sessions` verb.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { homedir } from 'node:os';

export interface SessionFile {
  file: string;
  /** The project folder's name (Claude Code's encoding of the project path); for other agents, the agent. */
  project: string;
  size: number;
  mtimeMs: number;
}

/** Claude Code's sessions folder: `$CLAUDE_CONFIG_DIR/projects`, else `~/.claude/projects`. */
export function sessionsFolder(env: NodeJS.ProcessEnv = process.env, home = homedir()): string {
  const config =
    env.CLAUDE_CONFIG_DIR && env.CLAUDE_CONFIG_DIR.trim() ? env.CLAUDE_CONFIG_DIR.trim() : join(home, '.claude');
  return join(config, 'projects');
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

function newestFirst(list: SessionFile[]): SessionFile[] {
  return list.sort((a, b) => b.mtimeMs - a.mtimeMs || a.file.localeCompare(b.file));
}

/** The agents whose sessions folders are known, by the id the CLI takes (`--agent`). */
export type AgentId = 'claude-code' | 'codex' | 'gemini-cli' | 'copilot-cli' | 'cline' | 'roo-code';

/** An agent's sessions folder, where it keeps one. */
export interface AgentFolder {
  /** The agent's display name ('Claude Code', 'Codex CLI', …). */
  agent: string;
  id: AgentId;
  folder: string;
}

/**
 * The sessions folders of every agent Agent Compactor reads: Claude Code's projects, Codex's sessions
 * (`$CODEX_HOME/sessions`, nested by date), Gemini CLI's chats (`~/.gemini/tmp/<project>/chats`), Copilot CLI's
 * session state (`~/.copilot/session-state/<id>/events.jsonl`), and, given VS Code's global storage folder, the task
 * folders of Cline and Roo Code in it.
 */
export function agentFolders(
  env: NodeJS.ProcessEnv = process.env,
  home = homedir(),
  globalStorage?: string,
): AgentFolder[] {
  const codexHome = env.CODEX_HOME && env.CODEX_HOME.trim() ? env.CODEX_HOME.trim() : join(home, '.codex');
  const folders: AgentFolder[] = [
    { agent: 'Claude Code', id: 'claude-code', folder: sessionsFolder(env, home) },
    { agent: 'Codex CLI', id: 'codex', folder: join(codexHome, 'sessions') },
    { agent: 'Gemini CLI', id: 'gemini-cli', folder: join(home, '.gemini', 'tmp') },
    { agent: 'Copilot CLI', id: 'copilot-cli', folder: join(home, '.copilot', 'session-state') },
  ];
  if (globalStorage) {
    folders.push({ agent: 'Cline', id: 'cline', folder: join(globalStorage, 'saoudrizwan.claude-dev', 'tasks') });
    folders.push({
      agent: 'Roo Code',
      id: 'roo-code',
      folder: join(globalStorage, 'rooveterinaryinc.roo-cline', 'tasks'),
    });
  }
  return folders;
}

/** How deep below its folder each agent keeps its session files. */
const DEPTH: Record<AgentId, number> = {
  'claude-code': 1,
  codex: 3,
  'gemini-cli': 2,
  'copilot-cli': 1,
  cline: 1,
  'roo-code': 1,
};

/** The session files of an agent's folder, by its layout, newest first (`project` names the agent, Claude Code's its project too). */
export async function listAgentSessions(f: AgentFolder, limit = 200): Promise<SessionFile[]> {
  if (f.id === 'claude-code')
    return (await listSessions(f.folder, limit)).map((s) => ({ ...s, project: `Claude Code · ${s.project}` }));
  const files: string[] = [];
  const walk = async (dir: string, depth: number): Promise<void> => {
    let list;
    try {
      list = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const d of list) {
      const p = join(dir, d.name);
      if (d.isDirectory() && depth > 0) await walk(p, depth - 1);
      else if (d.isFile() && isSessionFileName(f.id, d.name, dir)) files.push(p);
    }
  };
  await walk(f.folder, DEPTH[f.id]);
  const out: SessionFile[] = [];
  for (const file of files) {
    try {
      const st = await stat(file);
      out.push({ file, project: f.agent, size: st.size, mtimeMs: st.mtimeMs });
    } catch {
      /* vanished */
    }
  }
  return newestFirst(out).slice(0, limit);
}

function isSessionFileName(agent: AgentId, name: string, dir: string): boolean {
  if (agent === 'codex') return /^rollout-.*\.jsonl$/.test(name);
  if (agent === 'gemini-cli') return /[\\/]chats$/.test(dir) && name.endsWith('.json');
  if (agent === 'copilot-cli') return name === 'events.jsonl';
  return name === 'api_conversation_history.json';
}
