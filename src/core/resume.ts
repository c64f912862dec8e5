// How a user resumes a session: the agent's program with the session id (its module's resume part), started in the
// session's working folder (Claude Code picks the project folder from the process cwd; Codex starts the resumed
// thread there). The id and the
// folder come from the transcript, which is untrusted, so every command we print, copy or type is made here from
// parts checked first (`resumeParts`), then quoted for the shell it is meant for.
//
// Shells. A printed or copied command (`cd <folder> && <program> <args>`) is for a POSIX shell: sh, bash, zsh, dash,
// and on Windows Git Bash or WSL. It is not meant for cmd.exe, which has no quoting that stops `%VAR%` expansion, nor
// for PowerShell, whose `&&` needs version 7. What the extension types into a terminal it opened is only
// `<program> <args>` (the folder is the terminal's cwd, never part of the line), quoted for PowerShell on Windows,
// VS Code's default shell there (`commandLine`).
import { posix, win32 } from 'node:path';
import { isSessionId } from './sessionId';
import { hasTerminalUnsafeChars } from './terminalChars';
import type { AgentPrograms, ResumeSpec } from './formats/agent';
import { agentModule, type AgentId } from './formats/registry';

export { isSessionId } from './sessionId';

/** The program that resumes an agent's sessions (its module's resume part), when it has one. */
export function resumeProgram(agent: AgentId): string | null {
  return agentModule(agent).resume?.program ?? null;
}

/** The display name of the agent that resumes (for terminals and messages): its module's. */
export function resumeAgentName(agent: AgentId): string {
  return agentModule(agent).name;
}

/**
 * The agent that resumes a session of `format` by its id (its module has a resume command), or null: the others'
 * sessions are read-only here, and no command to resume one by id is offered (`noResumeReason` says why).
 */
export function resumeAgentOf(format: AgentId): AgentId | null {
  return agentModule(format).resume ? format : null;
}

/** The agent's resume part (its program, arguments and messages); throws for an agent without one. */
export function resumeSpec(agent: AgentId): ResumeSpec {
  const { name, resume } = agentModule(agent);
  if (!resume) throw new Error(`${name} sessions have no resume command`);
  return resume;
}

/** The program that resumes the agent's sessions: the one the user configured for it, else its usual name. */
export function programFor(agent: AgentId, programs: AgentPrograms = {}): string {
  const spec = resumeSpec(agent);
  return programs[spec.programOption] ?? spec.program;
}

/** Why no resume command is offered for a session of `format` (null: one is): its module's reason. */
export function noResumeReason(format: AgentId): string | null {
  const agent = agentModule(format);
  return agent.resume ? null : agent.unsupported('resume', agent.records ? 'jsonl' : 'json');
}

/**
 * The argv that resumes `sessionId` in `agent` (its module's program and arguments: `claude --resume <id>`, `codex
 * resume <id>`); null unless the id is a UUID and the agent has a resume command.
 */
export function resumeArgv(agent: AgentId, sessionId: string, program?: string): string[] | null {
  const spec = agentModule(agent).resume;
  return spec && isSessionId(sessionId) ? [program ?? spec.program, ...spec.args(sessionId)] : null;
}

/** The program, its arguments and the folder to start it in; or why no command can be offered. */
export type ResumeParts = { ok: true; cwd: string; argv: string[] } | { ok: false; reason: string };

/** A string for a reason: JSON-quoted and cut short, so that a hostile value reads as data. */
const quoted = (s: string) => JSON.stringify(s.length > 80 ? `${s.slice(0, 79)}…` : s);

/**
 * The checked parts of the command that resumes `sessionId` in `agent`: the id must be a UUID, the folder an absolute
 * path (so it can never read as an option such as `-P`) without control characters, the program a non-empty name
 * without control characters.
 */
export function resumeParts(
  agent: AgentId,
  cwd: string | null | undefined,
  sessionId: string | null | undefined,
  program?: string | null,
): ResumeParts {
  const { name, resume } = agentModule(agent);
  if (!resume) return { ok: false, reason: `${name} sessions have no resume command Agent Compactor offers` };
  program ??= resume.program;
  if (!sessionId)
    return { ok: false, reason: `no session id is known, so ${name} cannot be told which session to resume` };
  if (!isSessionId(sessionId))
    return {
      ok: false,
      reason: `the session id ${quoted(sessionId)} is not a UUID, so no command to resume it is offered`,
    };
  if (!cwd)
    return {
      ok: false,
      reason: `the transcript records no working folder, so it is not known where ${name} must be started to resume session ${sessionId}`,
    };
  if (!posix.isAbsolute(cwd) && !win32.isAbsolute(cwd))
    return {
      ok: false,
      reason: `the recorded working folder ${quoted(cwd)} is not an absolute path, so no command to resume session ${sessionId} is offered`,
    };
  // A control or bidi character would be shown rewritten (cli/format.ts) or reordered on a terminal: the command as
  // shown would not be the one that works (a `cd` to a folder that does not exist), so none is printed.
  if (hasTerminalUnsafeChars(cwd))
    return {
      ok: false,
      reason: `the recorded working folder ${quoted(cwd)} holds control or bidi characters, which a terminal does not show as they are, so no command to resume session ${sessionId} is offered`,
    };
  if (!program || hasTerminalUnsafeChars(program))
    return {
      ok: false,
      reason: `the ${name} program ${quoted(program)} is empty or holds control or bidi characters`,
    };
  return { ok: true, cwd, argv: resumeArgv(agent, sessionId, program)! };
}

/** POSIX shell quoting: plain words stay as they are, anything else goes in single quotes (which stop every expansion). */
export function shellQuote(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * PowerShell quoting: a single-quoted string, in which PowerShell expands nothing; it reads the typographic single
 * quotes (U+2018–U+201B) as quotes too, so each of them is doubled like `'`.
 */
export function powerShellQuote(word: string): string {
  return `'${word.replace(/['\u2018\u2019\u201a\u201b]/g, (q) => q + q)}'`;
}

/** The line that runs `argv` in a shell already in the right folder: POSIX sh quoting, or PowerShell's (`& '<program>' …`). */
export function commandLine(argv: readonly string[], shell: 'posix' | 'powershell'): string {
  if (shell === 'posix') return argv.map(shellQuote).join(' ');
  const plain = (w: string) => /^[A-Za-z0-9_.\\/:-]+$/.test(w);
  const [program, ...args] = argv;
  // PowerShell runs a quoted program only through the call operator (and would read a bare `-x` as an expression);
  // arguments made of plain characters stay bare.
  const head = plain(program) && !program.startsWith('-') ? program : `& ${powerShellQuote(program)}`;
  return [head, ...args.map((a) => (plain(a) ? a : powerShellQuote(a)))].join(' ');
}

/** `cd <folder> && <program> <args>` for a POSIX shell, from checked parts. */
export function posixResumeCommand(parts: { cwd: string; argv: readonly string[] }): string {
  return `cd ${shellQuote(parts.cwd)} && ${commandLine(parts.argv, 'posix')}`;
}

/** The POSIX command that resumes the session in `agent`, or null when `resumeParts` refuses (it says why). */
export function resumeCommand(
  cwd: string | null | undefined,
  sessionId: string | null | undefined,
  program: string | undefined,
  agent: AgentId,
): string | null {
  const parts = resumeParts(agent, cwd, sessionId, program);
  return parts.ok ? posixResumeCommand(parts) : null;
}

/** A result's resume fields: the agent that resumes it, and the POSIX command or why none is offered. */
export function resumeFields(
  agent: AgentId,
  cwd: string | null | undefined,
  sessionId: string | null | undefined,
): { resumeAgent: AgentId; resumeCommand: string | null; resumeProblem?: string } {
  const parts = resumeParts(agent, cwd, sessionId);
  return parts.ok
    ? { resumeAgent: agent, resumeCommand: posixResumeCommand(parts) }
    : { resumeAgent: agent, resumeCommand: null, resumeProblem: parts.reason };
}
