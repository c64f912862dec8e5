// Claude Code's loader model: how Claude Code 2.1.330 rebuilds a session's chain when it resumes it (read from its
// loader and checked against it by the compatibility suite, test/compat/doctor.test.ts): a missing parent is bridged to
// an entry at most 5 seconds older, a parent already walked counts as missing, and one entry is kept per uuid. Resume
// health (doctor.ts) and repair (repairPlan.ts) rebuild the chain with it.
import type { ChainLoader } from '../../chain';
import type { Entry } from '../../entries';

/** Longest gap (ms) Claude Code 2.1.330 bridges from an entry with a missing parent to an earlier entry (read from its loader). */
export const CLAUDE_CODE_BRIDGE_GAP_MS = 5000;

/**
 * Claude Code's own choice for an entry whose parent is missing: among candidates not yet walked (any position in
 * the file; file snapshots and progress lines excluded, which the compatibility suite confirms), the one with the latest timestamp not later than the entry's, when at most
 * CLAUDE_CODE_BRIDGE_GAP_MS older (ties: the earliest in the file). -1 when there is none.
 */
export function loaderBridge(entries: Entry[], candidates: number[], e: Entry, seen: Set<number>): number {
  const t = e.timestamp ? Date.parse(e.timestamp) : NaN;
  if (Number.isNaN(t)) return -1;
  let best = -1;
  let bestTime = -Infinity;
  for (const i of candidates) {
    const c = entries[i];
    if (
      seen.has(i) ||
      c.isSidechain !== e.isSidechain ||
      c.kind === 'progress' ||
      (c.kind === 'system' && c.subtype === 'file_snapshot')
    )
      continue;
    const ct = c.timestamp ? Date.parse(c.timestamp) : NaN;
    if (Number.isNaN(ct) || ct > t || ct <= bestTime) continue;
    best = i;
    bestTime = ct;
  }
  return best !== -1 && t - bestTime <= CLAUDE_CODE_BRIDGE_GAP_MS ? best : -1;
}

export const claudeLoader: ChainLoader = { bridge: loaderBridge, lastCopyOnly: true };
