// The sessions of every agent as lists show them: what one listed session is (its file, project, title, context
// figure, fork origin), and how they group by agent and project. How a session's summary is read is its agent's
// (its module's `sessions.projects` for an agent whose sessions folder holds a folder per project: Claude Code's
// quick read of a file's head and tail, formats/claude-code/sessionSummary.ts).
import type { ContextTail } from './contextTail';

export interface SessionSummary {
  file: string;
  /** The file name without `.jsonl`. */
  id: string;
  /** The project folder's name under the sessions folder (Claude Code's encoding of the path). */
  folder: string;
  /** The project's real path: the `cwd` of its first line that records one (null when none is in the head). */
  cwd: string | null;
  title: string;
  size: number;
  mtimeMs: number;
  /**
   * The context figure (context.ts `contextNow`) as the file's end tells it: the newest request's usage plus the
   * uncalibrated estimates of what follows it (`contextTail`); null when none is in the end the quick read reads back
   * or it comes before a compaction (the whole file's read, sessionStats.ts, supplies it then).
   */
  contextTokens: number | null;
  /** What `contextTokens` is made of, to calibrate it with the session's factor once the whole file has been read. */
  contextTail?: ContextTail | null;
  model: string | null;
  /** The model's context window (tokens). */
  contextWindow: number;
  /** Modified within `liveMs` of now: an agent is probably writing it. */
  live: boolean;
  /** The session this one was forked from (`forkOf`), or null. */
  forkOf: ForkOrigin | null;
}

/**
 * Where a fork came from. `agent`: the agent's own branch (Claude Code's `--fork-session`, /branch), whose copied
 * lines carry `forkedFrom: { sessionId, messageUuid }`. `compaction`: a fork a compaction or repair wrote, whose first lines are the
 * original's, copied with its session id, before the lines under the fork's own id (the file's name).
 */
export interface ForkOrigin {
  sessionId: string;
  by: 'agent' | 'compaction';
}

/** A session modified this recently is shown as being written now. */
export const LIVE_MS = 60_000;

export interface ProjectGroup<T extends SessionSummary = SessionSummary> {
  /** The project's real path (or the folder's name when no line records one). */
  project: string;
  /** The agent whose sessions these are, when the sessions name theirs (every agent's sessions in one list). */
  agent?: string;
  sessions: T[];
}

/**
 * Sessions grouped by agent (when they name theirs) and project (real path), newest project first, `first` (the
 * workspace's project) at the top; `filter` keeps the sessions whose title, project, id or model contains it (any
 * case).
 */
export function groupSessions<T extends SessionSummary & { agent?: string }>(
  sessions: T[],
  first?: string | null,
  filter?: string,
): ProjectGroup<T>[] {
  const needle = filter?.trim().toLowerCase();
  const groups = new Map<string, ProjectGroup<T>>();
  for (const s of sessions) {
    const project = s.cwd ?? s.folder;
    if (needle && ![s.title, project, s.id, s.model ?? ''].some((t) => t.toLowerCase().includes(needle))) continue;
    const key = `${s.agent ?? ''}\0${project}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { project, ...(s.agent !== undefined ? { agent: s.agent } : {}), sessions: [] }));
    g.sessions.push(s);
  }
  const list = [...groups.values()];
  list.sort(
    (a, b) =>
      Number(b.project === first) - Number(a.project === first) || b.sessions[0].mtimeMs - a.sessions[0].mtimeMs,
  );
  return list;
}
