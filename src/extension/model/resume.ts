// Resuming a transcript in Claude Code: its session id (the file name, which is how Claude
// Code finds a session), its working folder (from its lines: Claude Code must be started
// there), and what stands in the way. Node fs only, no `vscode` import.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, relative, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { isSessionId, resumeCommand, shellQuote } from '../../core/compact/resume';
import { baseName } from './format';

export interface SessionInfo {
  /** The file name without `.jsonl` when it is a UUID, else null: Claude Code resumes `<id>.jsonl` only. */
  sessionId: string | null;
  /** The first `sessionId` its lines record (a renamed copy may differ from the file name). */
  recordedSessionId: string | null;
  /** The working folder of the first line that records one: where the session was started. */
  cwd: string | null;
}

/** `<uuid>.jsonl` → the uuid; anything else → null. */
export function sessionIdFromFile(file: string): string | null {
  const m = /^(.*)\.jsonl$/i.exec(baseName(file));
  return m && isSessionId(m[1]) ? m[1] : null;
}

/** Bytes read at most while looking for the working folder. */
const MAX_SCAN_BYTES = 32 << 20;

/**
 * Claude Code's name for a project folder under ~/.claude/projects: the path of the folder it
 * was started in, every character other than a letter or digit replaced by '-'.
 */
export function projectFolderName(cwd: string): string {
  return cwd.replace(/[^a-zA-Z0-9]/g, '-');
}

/** The project folder's name when `file` sits directly in one under `sessionsRoot`, else null. */
export function projectFolderOf(file: string, sessionsRoot: string): string | null {
  const dir = dirname(resolve(file));
  return resolve(dirname(dir)) === resolve(sessionsRoot) ? basename(dir) : null;
}

/**
 * Reads the transcript's lines up to the main-chain line whose `cwd` is the session's folder.
 * Claude Code finds a session only when started in the folder that names its project folder,
 * and records its current folder on every line, which follows `cd`s of the Bash tool: so the
 * folder is the recorded one that matches `projectFolder` (the folder the transcript is in,
 * when it is in Claude Code's sessions folder), else the first one (where it was started).
 */
export async function readSessionInfo(file: string, options: { projectFolder?: string | null } = {}): Promise<SessionInfo> {
  const info: SessionInfo = { sessionId: sessionIdFromFile(file), recordedSessionId: null, cwd: null };
  const want = options.projectFolder || null;
  let first: string | null = null;
  let sidechainCwd: string | null = null;
  const stream = createReadStream(file, { encoding: 'utf8', end: MAX_SCAN_BYTES - 1 });
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  try {
    for await (const line of lines) {
      if (!line.includes('"cwd"') && (info.recordedSessionId || !line.includes('"sessionId"'))) continue;
      let o: unknown;
      try {
        o = JSON.parse(line);
      } catch {
        continue;
      }
      if (!o || typeof o !== 'object' || Array.isArray(o)) continue;
      const rec = o as { cwd?: unknown; sessionId?: unknown; isSidechain?: unknown };
      if (!info.recordedSessionId && typeof rec.sessionId === 'string' && rec.sessionId) info.recordedSessionId = rec.sessionId;
      if (typeof rec.cwd !== 'string' || !rec.cwd) continue;
      if (rec.isSidechain === true) {
        sidechainCwd ??= rec.cwd;
        if (!want || projectFolderName(rec.cwd) !== want) continue;
      }
      first ??= rec.cwd;
      if (!want) break;
      if (projectFolderName(rec.cwd) === want) {
        info.cwd = rec.cwd;
        break;
      }
    }
  } finally {
    lines.close();
    stream.destroy();
  }
  info.cwd ??= first ?? sidechainCwd;
  return info;
}

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
