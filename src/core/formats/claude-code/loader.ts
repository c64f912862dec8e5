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
 *
 * A walk may bridge at every tenth line (a session written a second apart, with links broken throughout): each choice
 * is a binary search in the candidates sorted once by time (each timestamp parsed once), then a step down past the
 * ones this walk has already taken, which are skipped for good (union-find over the sorted positions: `seen` only
 * grows during a walk). Linear in the candidates overall, where a scan per choice was quadratic.
 */
export function loaderBridge(entries: Entry[], candidates: number[], e: Entry, seen: Set<number>): number {
  const t = e.timestamp ? Date.parse(e.timestamp) : NaN;
  if (Number.isNaN(t)) return -1;
  const side = bridgeSides(entries, candidates)[e.isSidechain ? 1 : 0];
  const { order, times } = side;
  // The last sorted position whose time is not later than the entry's.
  let lo = 0;
  for (let hi = order.length; lo < hi;) {
    const mid = (lo + hi) >>> 1;
    if (times[mid] <= t) lo = mid + 1;
    else hi = mid;
  }
  let walked = bridgeWalked.get(seen);
  if (!walked) bridgeWalked.set(seen, (walked = new Map<BridgeSide, Int32Array>()));
  let skip = walked.get(side);
  if (!skip) {
    skip = new Int32Array(order.length);
    for (let k = 0; k < skip.length; k++) skip[k] = k;
    walked.set(side, skip);
  }
  for (let p = lo - 1; ;) {
    p = unwalkedAtOrBelow(skip, p);
    if (p < 0) return -1;
    if (!seen.has(order[p])) return t - times[p] <= CLAUDE_CODE_BRIDGE_GAP_MS ? order[p] : -1;
    skip[p] = p - 1;
  }
}

/** The candidates Claude Code's loader may bridge to, per side (main, sidechain), in the order it prefers them. */
interface BridgeSide {
  /** Entry indices by time, and among equal times the latest in the file first (so the earliest is met first going down). */
  order: Int32Array;
  /** Their times (Date.parse, as the loader compares them). */
  times: Float64Array;
}

const bridgeSideCache = new WeakMap<number[], [BridgeSide, BridgeSide]>();
/** Per walk (its `seen` set): for each side, union-find links from a walked sorted position down to the next one to try. */
const bridgeWalked = new WeakMap<Set<number>, Map<BridgeSide, Int32Array>>();

function bridgeSides(entries: Entry[], candidates: number[]): [BridgeSide, BridgeSide] {
  const cached = bridgeSideCache.get(candidates);
  if (cached) return cached;
  const pick: [{ i: number; t: number }[], { i: number; t: number }[]] = [[], []];
  for (const i of candidates) {
    const c = entries[i];
    if (c.kind === 'progress' || (c.kind === 'system' && c.subtype === 'file_snapshot')) continue;
    const ct = c.timestamp ? Date.parse(c.timestamp) : NaN;
    if (!Number.isNaN(ct)) pick[c.isSidechain ? 1 : 0].push({ i, t: ct });
  }
  const sorted = pick.map((xs) => {
    xs.sort((a, b) => a.t - b.t || b.i - a.i);
    return { order: Int32Array.from(xs, (x) => x.i), times: Float64Array.from(xs, (x) => x.t) };
  }) as [BridgeSide, BridgeSide];
  bridgeSideCache.set(candidates, sorted);
  return sorted;
}

/** The highest position at or below `p` not known to be walked (-1 when none), compressing the links it follows. */
function unwalkedAtOrBelow(skip: Int32Array, p: number): number {
  let root = p;
  while (root >= 0 && skip[root] !== root) root = skip[root];
  while (p >= 0 && skip[p] !== p) {
    const next = skip[p];
    skip[p] = root;
    p = next;
  }
  return root;
}

export const claudeLoader: ChainLoader = {
  bridge: loaderBridge,
  lastCopyOnly: true,
  bridgeGapMs: CLAUDE_CODE_BRIDGE_GAP_MS,
};
