// What the user's agent sends now with every request it makes, read from the user's own newest sessions of that
// agent: a resume of a compacted session is sent by the agent installed today, not by the one that wrote the file
// (an old file's system prompt and tools, 41.8k, against the 16.6k Claude Code 2.1.330 sends). Read at the edge (the
// CLI, the extension, compactFile's planning step), like the saved decisions, and given to the planner as a value.
// Generic: which folder speaks for a file, and what its sessions' ends record, are the agent's module's (its
// `agentNow`, formats/agent.ts); only the reading of the files is here.
// Cheap and bounded: the newest few session files of the agent's sessions folder, and only their head and tail.
// Never an error: a folder or file that cannot be read, or holds nothing recorded, gives nothing (the plan then uses
// the file's own figure and says so).
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import type { AgentNow, SessionEnds } from './formats/agent';
import { agentModule, type AgentId } from './formats/registry';
import { agentFolders, listAgentSessions, type AgentFolder } from './sessionFolders';

export type { AgentNow, SessionEnds } from './formats/agent';

/** How many of the newest sessions are looked at, and how much of each end of a file is read. */
export const AGENT_NOW_FILES = 24;
export const AGENT_NOW_END_BYTES = 256 * 1024;

/**
 * What the user's agent sends now, for a plan over `analysis` (the file at `file`), as the agent's module reads its
 * newest sessions; null for an agent whose module does not (its files' own figures are used).
 */
export async function readAgentNow(
  file: string,
  analysis: { index: { format: { id: AgentId } } },
  env: NodeJS.ProcessEnv = process.env,
): Promise<AgentNow | null> {
  return readAgentNowOf(analysis.index.format.id, file, env);
}

/** The user's sessions folder of `agent` (its first location), whose newest sessions speak for a file outside it. */
function usersFolder(agent: AgentId, env: NodeJS.ProcessEnv): AgentFolder | null {
  return agentFolders(env).find((f) => f.id === agent) ?? null;
}

/** The sessions folder whose newest sessions speak for `file` of `agent` (its module's `agentNow.folderOf`), or null. */
export function agentNowFolderOf(agent: AgentId, file: string, env: NodeJS.ProcessEnv = process.env): string | null {
  const spec = agentModule(agent).agentNow;
  const users = usersFolder(agent, env);
  return spec && users ? spec.folderOf(file, users.folder) : null;
}

/**
 * What the user's `agent` sends now, from the newest sessions of the folder that speaks for `file` (agentNowFolderOf):
 * their ends read here, what they record read by the agent's module. Null when its module does not read them.
 */
export async function readAgentNowOf(
  agent: AgentId,
  file: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<AgentNow | null> {
  const spec = agentModule(agent).agentNow;
  const users = usersFolder(agent, env);
  if (!spec || !users) return null;
  const folder = spec.folderOf(file, users.folder);
  const files = await listAgentSessions({ ...users, folder }, AGENT_NOW_FILES).catch(() => []);
  const ends = await Promise.all(files.map((f) => readEnds(f.file)));
  return spec.of(ends, spec.readsOwnFile ? await readEnds(file) : null);
}

/** The head and tail lines of one session file (whole lines only), or nothing when it cannot be read safely. */
async function readEnds(file: string): Promise<SessionEnds> {
  const none = { file, head: [], tail: [] };
  let fh;
  try {
    // Never through a link, never a FIFO or device (see sidecarFiles.ts): another session's file is read only here.
    fh = await open(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch {
    return none;
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) return none;
    const headLength = Math.min(st.size, AGENT_NOW_END_BYTES);
    const head = await slice(fh, 0, headLength);
    const headLines = head.split('\n');
    if (headLength < st.size) headLines.pop(); // cut mid-line
    if (st.size <= AGENT_NOW_END_BYTES) return { file, head: headLines, tail: [] };
    const from = Math.max(headLength, st.size - AGENT_NOW_END_BYTES);
    const tailLines = (await slice(fh, from, st.size - from)).split('\n');
    if (from > headLength) tailLines.shift(); // cut mid-line
    return { file, head: headLines, tail: tailLines };
  } catch {
    return none;
  } finally {
    await fh.close();
  }
}

async function slice(fh: import('node:fs/promises').FileHandle, from: number, length: number): Promise<string> {
  const buf = Buffer.alloc(length);
  const { bytesRead } = await fh.read(buf, 0, length, from);
  return buf.toString('utf8', 0, bytesRead);
}
