// Claude Code's sessions folder (`~/.claude/projects`, or `$CLAUDE_CONFIG_DIR/projects`)
// and the transcripts in it, newest first. Node fs only, no `vscode` import.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { homedir } from 'node:os';

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
