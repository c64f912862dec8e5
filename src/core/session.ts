// Where and by what id an agent resumes a session. Claude Code: the id is the file name (a UUID), and the folder is
// where the session was started (Claude Code picks the project folder from the process cwd). Codex: the thread id and
// the folder its rollout's first record (session_meta) names. Node fs only.
import { createReadStream } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { isSessionId } from './sessionId';

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
  // Either separator: the extension also names files of a Windows workspace.
  const m = /^(.*)\.jsonl$/i.exec(file.split(/[\\/]/).pop() ?? file);
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
export async function readSessionInfo(
  file: string,
  options: { projectFolder?: string | null } = {},
): Promise<SessionInfo> {
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
      if (!info.recordedSessionId && typeof rec.sessionId === 'string' && rec.sessionId)
        info.recordedSessionId = rec.sessionId;
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
