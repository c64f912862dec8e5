// `agent-compactor sessions [--agent ID] [--json] [--limit N]`: every agent's sessions on this machine, newest first,
// from the folders each agent keeps them in (core/sessionFolders.ts), with a title where one is cheap to read and the
// command that resumes the session where its agent has one. Reads only.
import { basename, dirname } from 'node:path';
import { resumeFields, type ResumeAgent } from '../core/compact/resume';
import { readCodexSessionMeta, readSessionInfo, projectFolderName, sessionIdFromFile } from '../core/session';
import { agentFolders, listAgentSessions, type AgentId, type SessionFile } from '../core/sessionFolders';
import { summarizeSession } from '../core/sessionList';
import { EXIT_OK, intOption, UsageError } from './args';
import { printJson, printOut, sanitizeForTerminal, truncate } from './format';
import { HELP_OPTION, JSON_OPTION, str, bool, type Values, type VerbSpec } from './options';

/** The agents `--agent` takes: those whose folders are found from the home folder and the environment alone. */
const CLI_AGENTS = ['claude-code', 'codex', 'gemini-cli', 'copilot-cli'] as const satisfies readonly AgentId[];
const DEFAULT_LIMIT = 50;

export const sessionsVerb: VerbSpec = {
  name: 'sessions',
  args: '',
  summary:
    "Every agent's sessions on this machine, newest first: agent, file, size, modified time, a title where one is cheap to read (Claude Code), and the command that resumes it (Claude Code, Codex); reads only.",
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
  notes: [
    'Folders: Claude Code $CLAUDE_CONFIG_DIR/projects or ~/.claude/projects; Codex $CODEX_HOME/sessions or ~/.codex/sessions; Gemini CLI ~/.gemini/tmp/*/chats; Copilot CLI ~/.copilot/session-state/*/events.jsonl.',
  ],
  run: runSessions,
};

export interface ListedSession {
  agent: AgentId;
  file: string;
  size: number;
  modified: string;
  title: string | null;
  sessionId: string | null;
  cwd: string | null;
  /** The agent that resumes it (Claude Code and Codex sessions). */
  resumeAgent?: ResumeAgent;
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
  const found: (SessionFile & { id: AgentId })[] = [];
  for (const f of agentFolders()) {
    if (agent !== 'all' && f.id !== agent) continue;
    for (const s of await listAgentSessions(f, limit)) found.push({ ...s, id: f.id });
  }
  found.sort((a, b) => b.mtimeMs - a.mtimeMs || a.file.localeCompare(b.file));
  const listed: ListedSession[] = [];
  for (const s of found.slice(0, limit)) listed.push(await describeSession(s));
  if (bool(values, 'json')) printJson(JSON.stringify(listed, null, 2) + '\n');
  else printOut(renderSessions(listed));
  return EXIT_OK;
}

/** One session's row: its title and resume command read from the file's head (never the whole file). */
async function describeSession(s: SessionFile & { id: AgentId }): Promise<ListedSession> {
  const base = { agent: s.id, file: s.file, size: s.size, modified: new Date(s.mtimeMs).toISOString() };
  const resume = (agent: ResumeAgent, cwd: string | null, sessionId: string | null) => ({
    sessionId,
    cwd,
    ...resumeFields(agent, cwd, sessionId),
  });
  try {
    if (s.id === 'claude-code') {
      const folder = basename(dirname(s.file));
      const summary = await summarizeSession(s.file, folder);
      // Claude Code finds a session only when started in the folder its project folder names (core/session.ts).
      const cwd =
        summary.cwd && projectFolderName(summary.cwd) === folder
          ? summary.cwd
          : (await readSessionInfo(s.file, { projectFolder: folder })).cwd;
      return { ...base, title: summary.title, ...resume('claude-code', cwd, sessionIdFromFile(s.file)) };
    }
    if (s.id === 'codex') {
      const meta = await readCodexSessionMeta(s.file);
      return { ...base, title: null, ...resume('codex', meta.cwd, meta.id) };
    }
  } catch {
    /* unreadable or vanished since it was listed: listed without title or command */
  }
  return {
    ...base,
    title: null,
    sessionId: null,
    cwd: null,
    resumeCommand: null,
    ...(s.id === 'claude-code' || s.id === 'codex'
      ? { resumeProblem: 'the session could not be read' }
      : { resumeProblem: 'this agent has no resume command Agent Compactor offers' }),
  };
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
      `${s.modified}  ${s.agent}  ${size(s.size)}${s.title ? `  ${sanitizeForTerminal(truncate(s.title.replace(/\s+/g, ' '), 80))}` : ''}`,
    );
    out.push(`  ${sanitizeForTerminal(s.file)}`);
    if (s.resumeCommand) out.push(`  resume: ${sanitizeForTerminal(s.resumeCommand)}`);
  }
  return out.join('\n') + '\n';
}
