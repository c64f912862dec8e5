// How a user resumes a session in Claude Code: from the session's working directory (Claude Code
// picks the project folder from the process cwd), by the session id (the file name).

/** POSIX shell quoting: plain words stay as they are, anything else goes in single quotes. */
export function shellQuote(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True for the ids Claude Code accepts with `--resume` (a UUID, which is also the file name). */
export function isSessionId(id: unknown): id is string {
  return typeof id === 'string' && UUID_RE.test(id);
}

/** `cd <cwd> && <claude> --resume <id>`, or null when either is unknown or the id is not a session id. */
export function resumeCommand(cwd: string | null, sessionId: string | null, claudePath = 'claude'): string | null {
  if (!cwd || !isSessionId(sessionId)) return null;
  return `cd ${shellQuote(cwd)} && ${shellQuote(claudePath)} --resume ${sessionId}`;
}
