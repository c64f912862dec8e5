// `agent-compactor sessions [--agent ID] [--json] [--limit N]`: every agent's sessions on this machine, newest first,
// from the folders each agent keeps them in (core/sessionFolders.ts), with a title where one is cheap to read and the
// command that resumes the session where its agent has one. Reads only.
import { resumeFields } from '../core/resume';
import { agentModule, AGENTS, type AgentId } from '../core/formats/registry';
import { agentFolders, listAgentSessions, type SessionFile } from '../core/sessionFolders';
import { inPool } from '../core/pool';
import { EXIT_OK, intOption, UsageError } from './args';
import { printJson, printOut, sanitizeForTerminal, truncate } from './format';
import { HELP_OPTION, JSON_OPTION, str, bool, type Values, type VerbSpec } from './options';

/** The agents `--agent` takes: every agent whose module says where it keeps its sessions. */
const CLI_AGENTS: readonly AgentId[] = AGENTS.filter((a) => a.sessions).map((a) => a.id);
const DEFAULT_LIMIT = 50;

export const sessionsVerb: VerbSpec = {
  name: 'sessions',
  args: '',
  summary:
    "Every agent's sessions on this machine, newest first: agent, file, size, modified time, the title the session records (or its first prompt), its folder, and the command that resumes it (Claude Code, Codex); reads only.",
  options: [
    {
      flag: 'agent',
      type: 'string',
      value: 'ID',
      help: `only this agent's sessions: ${CLI_AGENTS.join(', ')} or all`,
      default: 'all',
    },
    { flag: 'limit', type: 'string', value: 'N', help: 'list at most N sessions', default: String(DEFAULT_LIMIT) },
    JSON_OPTION,
    HELP_OPTION,
  ],
  // Each agent's module says where its sessions are (a new agent's folders join the list with its module).
  notes: [`Folders: ${AGENTS.flatMap((a) => (a.sessions ? [a.sessions.where] : [])).join('; ')}.`],
  run: runSessions,
};

export interface ListedSession {
  agent: AgentId;
  /** Where it was found, when that is not the agent itself ('Roo Code' for a Cline task of Roo Code). */
  location?: string;
  file: string;
  size: number;
  modified: string;
  title: string | null;
  sessionId: string | null;
  cwd: string | null;
  /** The agent that resumes it (Claude Code and Codex sessions). */
  resumeAgent?: AgentId;
  resumeCommand: string | null;
  resumeProblem?: string;
}

export async function runSessions(values: Values, positionals: string[]): Promise<number> {
  if (positionals.length)
    throw new UsageError(
      `sessions: takes no file, got ${positionals.length} argument${positionals.length === 1 ? '' : 's'} (see 'agent-compactor sessions --help')`,
    );
  const agent = str(values, 'agent') ?? 'all';
  if (agent !== 'all' && !(CLI_AGENTS as readonly string[]).includes(agent))
    throw new UsageError(`--agent must be one of ${CLI_AGENTS.join(', ')}, all; got '${sanitizeForTerminal(agent)}'`);
  const limitText = str(values, 'limit');
  const limit = limitText === undefined ? DEFAULT_LIMIT : intOption(limitText, 'limit');
  const found: Found[] = [];
  for (const f of agentFolders()) {
    if (agent !== 'all' && f.id !== agent) continue;
    for (const s of await listAgentSessions(f, limit)) found.push({ ...s, id: f.id, location: f.agent });
  }
  found.sort((a, b) => b.mtimeMs - a.mtimeMs || a.file.localeCompare(b.file));
  // A few at once (each reads the two ends of its file, or looks through it for the folder it is resumed in).
  const listed = await inPool(found.slice(0, limit), describeSession);
  if (bool(values, 'json')) printJson(JSON.stringify(listed, null, 2) + '\n');
  else printOut(renderSessions(listed));
  return EXIT_OK;
}

type Found = SessionFile & { id: AgentId; location: string };

/** One session's row: what its agent's module reads of it from the file's head (never the whole file). */
async function describeSession(s: Found): Promise<ListedSession> {
  const agent = agentModule(s.id);
  const base = {
    agent: s.id,
    ...(s.location !== agent.name ? { location: s.location } : {}),
    file: s.file,
    size: s.size,
    modified: new Date(s.mtimeMs).toISOString(),
  };
  try {
    const facts = await agent.sessions!.describe(s.file);
    const { title, sessionId, cwd } = facts;
    if (!agent.resume) return { ...base, title, sessionId, cwd, resumeCommand: null, resumeProblem: noResume(s.id) };
    if (facts.resumeRefusal)
      return { ...base, title, sessionId, cwd, resumeCommand: null, resumeProblem: facts.resumeRefusal };
    return { ...base, title, sessionId, cwd, ...resumeFields(s.id, cwd, sessionId) };
  } catch {
    /* unreadable or vanished since it was listed: listed without title or command */
  }
  return {
    ...base,
    title: null,
    sessionId: null,
    cwd: null,
    resumeCommand: null,
    resumeProblem: agent.resume ? 'the session could not be read' : noResume(s.id),
  };
}

function noResume(id: AgentId): string {
  return `${agentModule(id).name} sessions have no resume command Agent Compactor offers`;
}

function size(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

export function renderSessions(list: readonly ListedSession[]): string {
  if (!list.length) return 'no sessions found\n';
  const out: string[] = [];
  for (const s of list) {
    out.push(
      `${s.modified}  ${s.agent}${s.location ? ` (${sanitizeForTerminal(s.location)})` : ''}  ${size(s.size)}${s.title ? `  ${sanitizeForTerminal(truncate(s.title.replace(/\s+/g, ' '), 80))}` : ''}`,
    );
    out.push(`  ${sanitizeForTerminal(s.file)}`);
    if (s.resumeCommand) out.push(`  resume: ${sanitizeForTerminal(s.resumeCommand)}`);
  }
  return out.join('\n') + '\n';
}
