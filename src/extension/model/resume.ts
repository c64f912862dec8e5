// Resuming a session in the agent that wrote it: Claude Code (`claude --resume <id>`: the id is the file name, which
// is how Claude Code finds a session) or Codex (`codex resume <id>`: the thread id its rollout's session_meta names),
// started in the session's working folder (from its lines), and what stands in the way. Node fs only, no `vscode`.
import { access, constants, stat } from 'node:fs/promises';
import { delimiter, isAbsolute, join, relative } from 'node:path';
import {
  commandLine,
  isSessionId,
  resumeAgentName,
  resumeArgv,
  resumeCommand,
  resumeParts,
  resumeSpec,
} from '../../core/resume';
import type { AgentId } from '../../core/formats/registry';
import { baseName } from './format';

export async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

export type ResumeProblemCode = 'not-session-id' | 'no-cwd' | 'unsafe' | 'cwd-missing';

export interface ResumeProblem {
  code: ResumeProblemCode;
  message: string;
}

export interface ResumeTarget {
  file: string;
  /** The agent that resumes it. */
  agent: AgentId;
  sessionId: string | null;
  cwd: string | null;
  /** Whether `cwd` is an existing folder on this machine. */
  cwdExists: boolean;
}

/**
 * Why the session cannot be resumed (null: it can). A copied command only needs the id and the folder's name;
 * launching also needs the folder to exist here.
 */
export function resumeProblem(t: ResumeTarget, purpose: 'launch' | 'copy', program?: string): ResumeProblem | null {
  const name = baseName(t.file);
  const agent = resumeAgentName(t.agent);
  if (!isSessionId(t.sessionId)) return { code: 'not-session-id', message: resumeSpec(t.agent).notAnId(name) };
  if (!t.cwd) {
    return {
      code: 'no-cwd',
      message: `${name} records no working folder, so it is not known where ${agent} must be started to resume session ${t.sessionId}.`,
    };
  }
  // A folder that is not absolute or holds control or bidi characters, or a program that holds them: no command is made.
  const parts = resumeParts(t.agent, t.cwd, t.sessionId, program);
  if (!parts.ok) return { code: 'unsafe', message: `Cannot resume ${name}: ${parts.reason}.` };
  if (purpose === 'launch' && !t.cwdExists) {
    return {
      code: 'cwd-missing',
      message: `Cannot resume session ${t.sessionId} here: its working folder ${t.cwd} does not exist on this machine, and ${resumeSpec(t.agent).folderNeeded}.`,
    };
  }
  return null;
}

/** "Claude Code: 1234abcd", "Codex CLI: 1234abcd" (the agent's display name). */
export function terminalName(agent: AgentId, sessionId: string): string {
  return `${resumeAgentName(agent)}: ${sessionId.slice(0, 8)}`;
}

/**
 * The line typed into the terminal: `<claude> --resume <id>` or `<codex> resume <id>`, quoted for the terminal's
 * shell: POSIX sh, or on Windows PowerShell (VS Code's default there; a user who made cmd.exe the default gets a line
 * cmd may misread, which is why the folder is never part of it). Throws for an id that is not a UUID (resumeProblem
 * says so first).
 */
export function resumeShellLine(
  agent: AgentId,
  program: string,
  sessionId: string,
  platform: NodeJS.Platform = process.platform,
): string {
  const argv = resumeArgv(agent, sessionId, program);
  if (!argv) throw new Error(`not a session id: ${JSON.stringify(sessionId)}`);
  return commandLine(argv, platform === 'win32' ? 'powershell' : 'posix');
}

/** `cd <cwd> && <program> --resume <id>` / `… resume <id>` (the core's resumeCommand), or null. */
export function copyableResumeCommand(t: ResumeTarget, program: string): string | null {
  return resumeCommand(t.cwd, t.sessionId, program, t.agent);
}

/** True when `file` is inside `folder` (an agent's sessions folder). */
export function isInside(file: string, folder: string): boolean {
  const rel = relative(folder, file);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

/**
 * Where `program` (`agentCompactor.claudePath` or `codexPath`: a name looked up on PATH, or a path) is, or null when it is
 * not an executable file there: the terminal would only say "command not found". On Windows, PATHEXT's extensions are
 * tried too. The extension host's PATH stands for the terminal's.
 */
export async function findProgram(
  program: string,
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): Promise<string | null> {
  const exts = platform === 'win32' ? ['', ...(env.PATHEXT ?? '.COM;.EXE;.BAT;.CMD').split(';').filter(Boolean)] : [''];
  const named = /[\\/]/.test(program);
  const dirs = named
    ? ['']
    : (env.PATH ?? env.Path ?? '').split(platform === 'win32' ? ';' : delimiter).filter(Boolean);
  for (const dir of dirs) {
    for (const ext of exts) {
      const candidate = named ? program + ext : join(dir, program + ext);
      try {
        if (!(await stat(candidate)).isFile()) continue;
        if (platform !== 'win32') await access(candidate, constants.X_OK);
        return candidate;
      } catch {
        /* not here */
      }
    }
  }
  return null;
}
