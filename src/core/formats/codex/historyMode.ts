// How a Codex thread stores its history, as its session_meta's `history_mode` says: `legacy` (absent in older
// rollouts: Codex's default) or `paginated` (Codex 0.169 and later: every record numbered by `ordinal`; a fork keeps
// its history before the fork in its original's rollout and copies none of it). Codex reads session_meta into an enum
// of the two: a binary that does not know a mode cannot read the thread at all, so neither resumes nor rewrites it.
// Checked with the pinned Codex CLI (test/compat/codex-today.test.ts): it writes paginated threads, and resumes the
// `compacted` record our writer appends to one (in place and as a fork under a new id), ordinals continued.
import { str, type JsonObject } from '../../json';

/** The modes Codex CLI writes that Agent Compactor reads, writes and offers to resume. */
export const CODEX_HISTORY_MODES: readonly string[] = ['legacy', 'paginated'];

/** A session_meta payload's history mode: absent is `legacy`, Codex's default. */
export function codexHistoryMode(meta: JsonObject | undefined): string {
  return str(meta, 'history_mode') ?? 'legacy';
}

/** Why the thread whose session_meta payload is `meta` uses a history mode nobody here knows; null when known. */
export function unknownHistoryMode(meta: JsonObject | undefined): string | null {
  const mode = codexHistoryMode(meta);
  if (CODEX_HISTORY_MODES.includes(mode)) return null;
  return `its session_meta says history_mode ${JSON.stringify(mode).slice(0, 40)}, a way of storing a thread Agent Compactor does not know (Codex CLI writes ${CODEX_HISTORY_MODES.join(' and ')}), and a Codex CLI that does not know it cannot read the thread`;
}

/**
 * Why our writer must not append a compacted record to the rollout whose first session_meta payload is `meta` and
 * whose last record is numbered `lastOrdinal` (null: not numbered); null when it may. Codex refuses a paginated
 * rollout whose last record has no ordinal, and a paginated fork holds only what followed the fork.
 */
export function codexWriteRefusal(meta: JsonObject | undefined, lastOrdinal: number | null): string | null {
  const unknown = unknownHistoryMode(meta);
  if (unknown) return unknown;
  if (codexHistoryMode(meta) !== 'paginated') return null;
  if (str(meta, 'forked_from_id'))
    return `it is a paginated fork of thread ${str(meta, 'forked_from_id')!.slice(0, 40)}: Codex keeps the history before the fork in that thread's rollout, not in this file, so a summary of this file would lose it`;
  if (lastOrdinal === null)
    return 'it is a paginated rollout whose last record has no ordinal: Codex refuses such a rollout ("final paginated rollout record … is missing an ordinal"), so the record we would append could not be numbered after it';
  return null;
}
