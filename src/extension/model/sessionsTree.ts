// The Sessions view as plain data: projects (real paths, the workspace's first) holding their sessions, newest first,
// each with its title, last activity, size, context fill as a small bar and a mark when it is being written now.
// Pure: no `vscode` import.
import { basename } from 'node:path';
import type { ProjectGroup, SessionSummary } from '../../core/sessionList';
import { formatBytes, shortNumber } from './format';
import { timeAgo } from './sessions';

export interface SessionNode {
  id: string;
  kind: 'project' | 'session';
  label: string;
  description: string;
  tooltip: string;
  icon: string;
  color?: string;
  contextValue: string;
  collapsible: 'none' | 'collapsed' | 'expanded';
  /** The session's transcript (session nodes). */
  file?: string;
  project: string;
  children?: SessionNode[];
}

/** `▰▰▰▱▱` for a share from 0 to 1. */
export function fillBar(share: number, width = 5): string {
  const n = Math.max(0, Math.min(width, Math.round(share * width)));
  return '▰'.repeat(n) + '▱'.repeat(width - n);
}

export function fillText(s: Pick<SessionSummary, 'contextTokens' | 'contextWindow'>): string | null {
  if (s.contextTokens === null) return null;
  const share = s.contextTokens / s.contextWindow;
  return `${fillBar(share)} ${shortNumber(s.contextTokens)} / ${shortNumber(s.contextWindow)} · ${Math.round(share * 100)}%`;
}

export function sessionNode(s: SessionSummary, now = Date.now()): SessionNode {
  const fill = fillText(s);
  return {
    id: `session:${s.file}`,
    kind: 'session',
    label: s.title,
    description: [s.live ? 'writing now' : timeAgo(s.mtimeMs, now), formatBytes(s.size), fill].filter(Boolean).join(' · '),
    tooltip: [s.title, s.file, `Last activity: ${new Date(s.mtimeMs).toLocaleString()}${s.live ? ' (being written now)' : ''}`, `Size: ${formatBytes(s.size)}`, s.model ? `Model: ${s.model}` : '', fill ? `Context: ${fill}` : 'No usage recorded yet'].filter(Boolean).join('\n'),
    icon: s.live ? 'circle-filled' : 'comment-discussion',
    color: s.live ? 'charts.green' : undefined,
    contextValue: s.live ? 'session.live' : 'session',
    collapsible: 'none',
    file: s.file,
    project: s.cwd ?? s.folder,
  };
}

export function sessionTreeNodes(groups: ProjectGroup[], workspaceProject: string | null, now = Date.now()): SessionNode[] {
  return groups.map((g, i) => ({
    id: `project:${g.project}`,
    kind: 'project',
    label: basename(g.project) || g.project,
    description: `${g.project} · ${g.sessions.length} session${g.sessions.length === 1 ? '' : 's'}`,
    tooltip: g.project,
    icon: g.project === workspaceProject ? 'root-folder-opened' : 'folder',
    contextValue: 'project',
    collapsible: i === 0 ? 'expanded' : 'collapsed',
    project: g.project,
    children: g.sessions.map((s) => sessionNode(s, now)),
  }));
}
