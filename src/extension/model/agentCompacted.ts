// The agent compacts a session while its preview is open (Claude Code's auto or idle compaction, Codex's auto
// compaction): the file gains a compact boundary of the agent's own, and the plan made before it is over a context
// that is no longer the session's. The store plans again over the file as it is (extension/store.ts `refresh`); these
// rules tell that it happened and say so in the plan's notes.
import { agentCompactions, compactionTitle, type AgentCompaction } from '../../core/agentCompactions';
import type { Analysis } from '../../core/analysis';

/**
 * The agent's own compactions `next` holds past the first `linesRead` lines (what was read before the file grew),
 * oldest first. The count is taken before the re-read: reinspect extends the previous index in place.
 */
export function compactedSince(linesRead: number, next: Analysis): AgentCompaction[] {
  return agentCompactions(next).filter((c) => c.by === 'agent' && c.line > linesRead);
}

/**
 * The plan note of a preview planned again because the agent compacted the session while it was open; null when it
 * did not.
 */
export function replannedNote(compactions: readonly AgentCompaction[]): string | null {
  const newest = compactions[compactions.length - 1];
  if (!newest) return null;
  const more = compactions.length > 1 ? ` (and ${compactions.length - 1} earlier)` : '';
  return `The session was compacted while this preview was open: ${compactionTitle(newest)} at line ${newest.line}${more}. The plan was made again over the file as it is now: the rounds before that compaction are no longer in the context.`;
}
