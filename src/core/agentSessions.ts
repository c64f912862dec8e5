// Every agent's sessions as the Sessions view lists them, from the folders each agent's module names
// (sessionFolders.ts, the listing the CLI's `sessions` verb walks too): an agent whose folders are projects (Claude
// Code) by its module's rich head-and-tail summary (`sessions.projects`: context, model, fork, limited to some
// projects when asked), every other agent by what its module reads of a file's head (title, id, folder). Reads only.
import { stat } from 'node:fs/promises';
import type { ProjectSessions } from './formats/agent';
import { agentModule, type AgentId } from './formats/registry';
import { listAgentSessions, sessionName, type AgentFolder } from './sessionFolders';
import { LIVE_MS, type SessionSummary } from './sessionList';

/** A session in the list: its summary, the agent that wrote it and where it was found ('Claude Code', 'Roo Code'). */
export type ListedSession = SessionSummary & { agent: AgentId; location: string };

/** The module's summary of sessions in project folders, for a folder whose location has them. */
function projectsOf(f: AgentFolder): ProjectSessions {
  const projects = agentModule(f.id).sessions?.projects;
  if (!projects) throw new Error(`${f.agent}: a location with project folders, and no summary of their sessions`);
  return projects;
}

/** Shown for a session that records no title. */
const NO_TITLE = '(no prompt)';

/** The list entry of another agent's session file: stats and what the module reads of its head. */
async function headSummary(f: AgentFolder, file: string, now: number, known?: ListedSession): Promise<ListedSession> {
  const st = await stat(file);
  const base = {
    file,
    size: st.size,
    mtimeMs: st.mtimeMs,
    live: now - st.mtimeMs < LIVE_MS,
  };
  // The head of a session file does not change as the agent appends: what was read of it holds while it only grows.
  if (known && known.size <= st.size) return { ...known, ...base };
  const facts = await agentModule(f.id).sessions!.describe(file);
  const window = agentModule(f.id).limits(null, null).window;
  return {
    ...base,
    id: sessionName(f.id, file),
    folder: f.agent,
    cwd: facts.cwd,
    title: facts.title ?? NO_TITLE,
    contextTokens: null,
    model: null,
    contextWindow: window ?? 0,
    forkOf: null,
    agent: f.id,
    location: f.agent,
  };
}

export interface ScanScope {
  /**
   * Only these project folders of the agents whose folders are projects, and no other agent's sessions (the Sessions
   * view while hidden: the workspace's project alone). Absent: everything.
   */
  only?: readonly string[];
  /** The previous scan's entries, by file: a file's head is not read again while the file only grows. */
  known?: ReadonlyMap<string, ListedSession>;
}

/** Every session in `folders`, newest first (see ScanScope). */
export async function scanAgentSessions(
  folders: readonly AgentFolder[],
  now = Date.now(),
  scope: ScanScope = {},
): Promise<ListedSession[]> {
  const out: ListedSession[] = [];
  for (const f of folders) {
    if (f.location.projectFolders) {
      for (const s of await projectsOf(f).scan(f.folder, now, scope.only))
        out.push({ ...s, agent: f.id, location: f.agent });
      continue;
    }
    if (scope.only) continue;
    for (const s of await listAgentSessions(f, Number.MAX_SAFE_INTEGER)) {
      const entry = await headSummary(f, s.file, now, scope.known?.get(s.file)).catch(() => null);
      if (entry) out.push(entry);
    }
  }
  out.sort((a, b) => b.mtimeMs - a.mtimeMs || a.file.localeCompare(b.file));
  return out;
}

/** One listed session read again (it grew): by its project summary, or its head as its module reads it. */
export async function rescanSession(
  s: ListedSession,
  folders: readonly AgentFolder[],
  now = Date.now(),
): Promise<ListedSession> {
  const f = folders.find((x) => x.id === s.agent && x.agent === s.location);
  if (!f) throw new Error(`${s.file}: not in a listed sessions folder`);
  if (f.location.projectFolders)
    return { ...(await projectsOf(f).summarize(s.file, s.folder, now)), agent: s.agent, location: s.location };
  return headSummary(f, s.file, now, s);
}
