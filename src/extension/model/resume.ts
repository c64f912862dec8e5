// Resuming a transcript in Claude Code: its session id (the file name, which is how Claude
// Code finds a session), its working folder (from its lines: Claude Code must be started
// there), and what stands in the way. Node fs only, no `vscode` import.
import { stat } from 'node:fs/promises';
import { isAbsolute, relative } from 'node:path';
import { isSessionId, resumeCommand, shellQuote } from '../../core/compact/resume';
import { baseName } from './format';

export async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

export type ResumeProblemCode = 'not-session-id' | 'no-cwd' | 'cwd-missing';

export interface ResumeProblem {
  code: ResumeProblemCode;
  message: string;
}

export interface ResumeTarget {
  file: string;
  sessionId: string | null;
  cwd: string | null;
  /** Whether `cwd` is an existing folder on this machine. */
  cwdExists: boolean;
}

/**
 * Why the transcript cannot be resumed (null: it can). A copied command only needs the id
 * and the folder's name; launching also needs the folder to exist here.
 */
export function resumeProblem(t: ResumeTarget, purpose: 'launch' | 'copy'): ResumeProblem | null {
  const name = baseName(t.file);
  if (!isSessionId(t.sessionId)) {
    return {
      code: 'not-session-id',
      message:
        `Claude Code cannot resume ${name} by id: it finds a session by its file name, so the transcript must be named ` +
        '<session-uuid>.jsonl and sit in ~/.claude/projects/<project>/ (the folder Claude Code keeps for the project it was started in).',
    };
  }
  if (!t.cwd) {
    return {
      code: 'no-cwd',
      message: `${name} records no working folder (none of its lines has a "cwd"), so it is not known where Claude Code must be started to resume session ${t.sessionId}.`,
    };
  }
  if (purpose === 'launch' && !t.cwdExists) {
    return {
      code: 'cwd-missing',
      message: `Cannot resume session ${t.sessionId} here: its working folder ${t.cwd} does not exist on this machine, and Claude Code finds a session only when started in the folder it was recorded in.`,
    };
  }
  return null;
}

/** "Claude Code: 1234abcd". */
export function terminalName(sessionId: string): string {
  return `Claude Code: ${sessionId.slice(0, 8)}`;
}

/** The line typed into the terminal: `<claude> --resume <id>`, the program quoted for the shell. */
export function resumeShellLine(claudePath: string, sessionId: string, platform: NodeJS.Platform = process.platform): string {
  let program = shellQuote(claudePath);
  // PowerShell (the Windows default) runs a quoted path only through the call operator.
  if (platform === 'win32' && program !== claudePath) program = `& '${claudePath.replace(/'/g, "''")}'`;
  return `${program} --resume ${sessionId}`;
}

/** `cd <cwd> && <claude> --resume <id>` (the core's resumeCommand), or null. */
export function copyableResumeCommand(t: ResumeTarget, claudePath: string): string | null {
  return resumeCommand(t.cwd, t.sessionId, claudePath);
}

/** True when `file` is inside `folder` (Claude Code's sessions folder). */
export function isInside(file: string, folder: string): boolean {
  const rel = relative(folder, file);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}
