// Claude Code's sessions folder (`~/.claude/projects`, or `$CLAUDE_CONFIG_DIR/projects`)
// and the transcripts in it, newest first. Node fs only, no `vscode` import.
import { readdir, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { homedir } from 'node:os';
import { formatBytes, oneLine } from './format';

export interface SessionFile {
  file: string;
  /** The project folder's name (Claude Code's encoding of the project path). */
  project: string;
  size: number;
  mtimeMs: number;
}

export function sessionsFolder(env: NodeJS.ProcessEnv = process.env, home = homedir()): string {
  const config = env.CLAUDE_CONFIG_DIR && env.CLAUDE_CONFIG_DIR.trim() ? env.CLAUDE_CONFIG_DIR.trim() : join(home, '.claude');
  return join(config, 'projects');
}

/** Transcripts directly inside each project folder (subagent files excluded), newest first. */
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
      names = (await readdir(join(folder, project), { withFileTypes: true })).filter((d) => d.isFile() && d.name.endsWith('.jsonl')).map((d) => d.name);
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
  out.sort((a, b) => b.mtimeMs - a.mtimeMs || a.file.localeCompare(b.file));
  return out.slice(0, limit);
}

/** "3 minutes ago", "2 days ago" (for quick pick descriptions). */
export function timeAgo(ms: number, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - ms) / 1000));
  const unit = (n: number, u: string) => `${n} ${u}${n === 1 ? '' : 's'} ago`;
  if (s < 60) return 'just now';
  if (s < 3600) return unit(Math.floor(s / 60), 'minute');
  if (s < 86400) return unit(Math.floor(s / 3600), 'hour');
  return unit(Math.floor(s / 86400), 'day');
}

/** Another agent's sessions folder, where it keeps one. */
export interface AgentFolder {
  agent: string;
  folder: string;
}

/**
 * The sessions folders of every agent Agent Compactor reads: Claude Code's projects, Codex's sessions
 * (`$CODEX_HOME/sessions`), Gemini CLI's chats (`~/.gemini/tmp`), and the task folders of Cline and Roo Code in
 * VS Code's global storage (`globalStorage` is the parent of this extension's own global storage folder).
 */
export function agentFolders(env: NodeJS.ProcessEnv = process.env, home = homedir(), globalStorage?: string): AgentFolder[] {
  const codexHome = env.CODEX_HOME && env.CODEX_HOME.trim() ? env.CODEX_HOME.trim() : join(home, '.codex');
  const folders: AgentFolder[] = [
    { agent: 'Claude Code', folder: sessionsFolder(env, home) },
    { agent: 'Codex CLI', folder: join(codexHome, 'sessions') },
    { agent: 'Gemini CLI', folder: join(home, '.gemini', 'tmp') },
  ];
  if (globalStorage) {
    folders.push({ agent: 'Cline', folder: join(globalStorage, 'saoudrizwan.claude-dev', 'tasks') });
    folders.push({ agent: 'Roo Code', folder: join(globalStorage, 'rooveterinaryinc.roo-cline', 'tasks') });
  }
  return folders;
}

/** The session files of another agent's folder, by its layout, newest first (`project` names the agent). */
export async function listAgentSessions(f: AgentFolder, limit = 200): Promise<SessionFile[]> {
  if (f.agent === 'Claude Code') return (await listSessions(f.folder, limit)).map((s) => ({ ...s, project: `Claude Code · ${s.project}` }));
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
      else if (d.isFile() && sessionFileName(f.agent, d.name, dir)) files.push(p);
    }
  };
  await walk(f.folder, f.agent === 'Codex CLI' ? 3 : 2);
  const out: SessionFile[] = [];
  for (const file of files) {
    try {
      const st = await stat(file);
      out.push({ file, project: f.agent, size: st.size, mtimeMs: st.mtimeMs });
    } catch {
      /* vanished */
    }
  }
  out.sort((a, b) => b.mtimeMs - a.mtimeMs || a.file.localeCompare(b.file));
  return out.slice(0, limit);
}

function sessionFileName(agent: string, name: string, dir: string): boolean {
  if (agent === 'Codex CLI') return /^rollout-.*\.jsonl$/.test(name);
  if (agent === 'Gemini CLI') return /[\\/]chats$/.test(dir) && name.endsWith('.json');
  return name === 'api_conversation_history.json';
}

/** One session as Open Sessions Folder lists it. */
export interface SessionPick {
  label: string;
  description: string;
  detail: string;
  file: string;
}

/**
 * A session in the picker: a Claude Code session by its title (custom title, summary or first prompt) and its
 * project's real path, as the sessions scan read them from the file's two ends (`known`); the id stays in the detail.
 * Other agents' sessions (and a session the scan did not title) by their id and agent.
 */
export function sessionPickItem(x: SessionFile & { agent: string }, known: { title: string; cwd: string | null } | undefined, now = Date.now()): SessionPick {
  const id = x.agent === 'Claude Code' || x.agent === 'Codex CLI' ? basename(x.file, '.jsonl') : `${basename(dirname(x.file))}/${basename(x.file)}`;
  return {
    label: known ? oneLine(known.title, 80) : id,
    description: known?.cwd ? `${x.agent} · ${known.cwd}` : x.project ? `${x.agent} · ${x.project}` : x.agent,
    detail: `${timeAgo(x.mtimeMs, now)} · ${formatBytes(x.size)}${known ? ` · ${id}` : ''}`,
    file: x.file,
  };
}

