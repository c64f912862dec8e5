// The ids agents resume sessions by: a UUID (Claude Code's file name, Codex's thread id). A leaf module: the agent
// modules (formats/) and the resume commands (core/resume.ts) both check ids with it.
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True for the ids Claude Code accepts with `--resume` and Codex with `resume` (a UUID: Claude Code's file name, Codex's thread id). */
export function isSessionId(id: unknown): id is string {
  return typeof id === 'string' && UUID_RE.test(id);
}
