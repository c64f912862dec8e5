// Sessions as the extension's pickers show them. Node only, no `vscode` import.
import { formatBytes, oneLine } from './format';
import { sessionName, type SessionFile } from '../../core/sessionFolders';
import type { AgentId } from '../../core/formats/registry';

// The folders and their listing live in core (the CLI's `sessions` verb reads them too).
export {
  agentFolders,
  listAgentSessions,
  listSessions,
  sessionsFolder,
  type AgentFolder,
  type SessionFile,
} from '../../core/sessionFolders';

/** "3 minutes ago", "2 days ago" (for quick pick descriptions). */
export function timeAgo(ms: number, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - ms) / 1000));
  const unit = (n: number, u: string) => `${n} ${u}${n === 1 ? '' : 's'} ago`;
  if (s < 60) return 'just now';
  if (s < 3600) return unit(Math.floor(s / 60), 'minute');
  if (s < 86400) return unit(Math.floor(s / 3600), 'hour');
  return unit(Math.floor(s / 86400), 'day');
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
export function sessionPickItem(
  x: SessionFile & { agent: string; id: AgentId },
  known: { title: string; cwd: string | null } | undefined,
  now = Date.now(),
): SessionPick {
  const id = sessionName(x.id, x.file);
  return {
    label: known ? oneLine(known.title, 80) : id,
    description: known?.cwd ? `${x.agent} · ${known.cwd}` : x.project ? `${x.agent} · ${x.project}` : x.agent,
    detail: `${timeAgo(x.mtimeMs, now)} · ${formatBytes(x.size)}${known ? ` · ${id}` : ''}`,
    file: x.file,
  };
}
