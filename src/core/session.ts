// Where and by what id an agent resumes a session. Claude Code: the id is the file name (a UUID), and the folder is
// where the session was started (Claude Code picks the project folder from the process cwd). Codex: the thread id and
// the folder its rollout's first record (session_meta) names. Node fs only.
import { open } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
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
 *
 * When no line's folder matches (a project folder renamed or moved, or a path Claude Code shortens), that is known
 * only at the end of the file: once the first folder and session id are known, only the `cwd` values are looked at
 * (each distinct one tested once, on the bytes, without decoding or parsing the lines), and a line is parsed only
 * when one of its values names the project folder. Parsing every line (every line records a `cwd`) made listing
 * such sessions several times dearer than the others.
 */
export async function readSessionInfo(
  file: string,
  options: { projectFolder?: string | null } = {},
): Promise<SessionInfo> {
  const info: SessionInfo = { sessionId: sessionIdFromFile(file), recordedSessionId: null, cwd: null };
  const want = options.projectFolder || null;
  let first: string | null = null;
  let sidechainCwd: string | null = null;
  /** One line as it was always read (every line when nothing is known yet): true when the search is over. */
  const readLine = (line: string): boolean => {
    if (!line.includes('"cwd"') && (info.recordedSessionId || !line.includes('"sessionId"'))) return false;
    let o: unknown;
    try {
      o = JSON.parse(line);
    } catch {
      return false;
    }
    if (!o || typeof o !== 'object' || Array.isArray(o)) return false;
    const rec = o as { cwd?: unknown; sessionId?: unknown; isSidechain?: unknown };
    if (!info.recordedSessionId && typeof rec.sessionId === 'string' && rec.sessionId)
      info.recordedSessionId = rec.sessionId;
    if (typeof rec.cwd !== 'string' || !rec.cwd) return false;
    if (rec.isSidechain === true) {
      sidechainCwd ??= rec.cwd;
      if (!want || projectFolderName(rec.cwd) !== want) return false;
    }
    first ??= rec.cwd;
    if (!want) return true;
    if (projectFolderName(rec.cwd) === want) {
      info.cwd = rec.cwd;
      return true;
    }
    return false;
  };
  /** The bytes of a line (no newline) read as readline reads them: a lone carriage return also ends a line. */
  const readBytes = (buf: Buffer, from: number, to: number): boolean => {
    const text = buf.toString('utf8', from, to);
    if (!text.includes('\r')) return readLine(text);
    return text.split('\r').some(readLine);
  };
  // Whether a recorded folder (its JSON string's bytes, quotes excluded) names the project folder, by value.
  const names = new Map<string, boolean>();
  // The value before, as bytes: most lines record the same folder as the one before them.
  let lastRaw = Buffer.alloc(0);
  let lastYes = false;
  const namesWanted = (buf: Buffer, from: number, to: number): boolean => {
    if (to - from === lastRaw.length && buf.compare(lastRaw, 0, lastRaw.length, from, to) === 0) return lastYes;
    lastRaw = Buffer.from(buf.subarray(from, to));
    const raw = lastRaw.toString('latin1');
    let yes = names.get(raw);
    if (yes === undefined) {
      let value: unknown = null;
      try {
        value = JSON.parse(buf.toString('utf8', from - 1, to + 1));
      } catch {
        /* not a string: names nothing */
      }
      yes = typeof value === 'string' && projectFolderName(value) === want;
      names.set(raw, yes);
    }
    lastYes = yes;
    return yes;
  };
  /**
   * The lines of buf[0, end) once the first folder and session id are known: only a line with a `"cwd"` whose string
   * value names the project folder can change the answer (the others only set what is already set), so only such a
   * line is read. True when the search is over.
   */
  const scanLines = (buf: Buffer, end: number): boolean => {
    for (let at = buf.indexOf(CWD_KEY, 0); at !== -1 && at < end;) {
      let v = at + CWD_KEY.length;
      while (v < end && isSpace(buf[v])) v++;
      if (buf[v] === COLON) {
        v++;
        while (v < end && isSpace(buf[v])) v++;
      } else v = -1;
      let close = -1;
      if (v !== -1 && buf[v] === QUOTE)
        for (let k = v + 1; k < end; k++) {
          const c = buf[k];
          if (c === BACKSLASH) k++;
          else if (c === QUOTE) {
            close = k;
            break;
          } else if (c === NEWLINE) break;
        }
      if (close !== -1 && namesWanted(buf, v + 1, close)) {
        const lineStart = buf.lastIndexOf(NEWLINE, at) + 1;
        let lineEnd = buf.indexOf(NEWLINE, close);
        if (lineEnd === -1 || lineEnd > end) lineEnd = end;
        if (readBytes(buf, lineStart, lineEnd)) return true;
        at = buf.indexOf(CWD_KEY, lineEnd);
        continue;
      }
      at = buf.indexOf(CWD_KEY, at + CWD_KEY.length);
    }
    return false;
  };

  const fh = await open(file, 'r');
  try {
    let buf = Buffer.alloc(SCAN_CHUNK);
    let held = 0; // bytes of an unfinished line carried over at the start of buf
    let pos = 0;
    let done = false;
    while (!done && pos < MAX_SCAN_BYTES) {
      if (held === buf.length) {
        const bigger = Buffer.alloc(buf.length * 2);
        buf.copy(bigger, 0, 0, held);
        buf = bigger;
      }
      const room = Math.min(buf.length - held, MAX_SCAN_BYTES - pos);
      const { bytesRead } = await fh.read(buf, held, room, pos);
      pos += bytesRead;
      const filled = held + bytesRead;
      const last = bytesRead === 0 || pos >= MAX_SCAN_BYTES;
      // Complete lines only, unless the file (or the part read) ends: then what is left is its last line.
      const end = last ? filled : buf.lastIndexOf(NEWLINE, filled - 1) + 1;
      let from = 0;
      if (end > 0 || last) {
        while (from < end && !(first !== null && info.recordedSessionId)) {
          let nl = buf.indexOf(NEWLINE, from);
          if (nl === -1 || nl >= end) nl = end;
          if (readBytes(buf, from, nl)) {
            done = true;
            break;
          }
          from = nl + 1;
        }
        if (!done && from < end && want !== null) done = scanLines(buf.subarray(from), end - from);
      }
      if (last) break;
      held = filled - Math.max(end, 0);
      buf.copy(buf, 0, end, filled);
    }
  } finally {
    await fh.close();
  }
  info.cwd ??= first ?? sidechainCwd;
  return info;
}

const SCAN_CHUNK = 1 << 20;
const CWD_KEY = Buffer.from('"cwd"');
const NEWLINE = 0x0a;
const QUOTE = 0x22;
const COLON = 0x3a;
const BACKSLASH = 0x5c;
/** JSON's whitespace within a line. */
const isSpace = (c: number | undefined) => c === 0x20 || c === 0x09 || c === 0x0d;
