// Which attachments are the context an agent announces at a session's start, and what one weighs. A module of its
// own, below the registry, so that both the resume's figure (reannounced.ts) and an agent's reading of its newest
// sessions (formats/claude-code/agentNow.ts) use it without an import circle.
import type { Entry } from './entries';
import { TOKEN_MODEL } from './tokens/estimate';

/**
 * Attachments the agent's own compaction writes (files it re-reads for the new context), not session-start context:
 * a file that begins at its compaction (a `--fork-session` copy) holds them before its first request, yet a resume of
 * it does not send them again.
 */
const REATTACHED_BY_COMPACTION = new Set(['file', 'compact_file_reference']);

/** An attachment with rendered text that is session-start context (not a file re-attached by a compaction). */
export function isAnnouncement(e: Entry): boolean {
  return (
    e.kind === 'attachment' &&
    !!e.attachmentType &&
    !!e.attachmentChars &&
    !REATTACHED_BY_COMPACTION.has(e.attachmentType)
  );
}

/** Uncalibrated tokens of an attachment's rendered text (by its proxy count where indexed, else per character). */
export function attachmentTokens(e: Entry): number {
  return e.attachmentTokens !== undefined
    ? TOKEN_MODEL.proseScale * e.attachmentTokens
    : TOKEN_MODEL.prose * (e.attachmentChars ?? 0);
}
