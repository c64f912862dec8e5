// Rebuilds the conversation the way Claude Code does on resume: pick the leaf, walk
// parentUuid back (across earlier compactions via logicalParentUuid), bring back sibling
// tool results of parallel tool calls, and mark where the active context starts.
// Over 400 lines: the walk, the resume-time boundary cut and sibling recovery are one algorithm with shared tables;
// split, each part would need the others' state. An agent's own loader rules (ChainLoader) come from its module.
import { isCompactBoundary, type Entry } from './entries';

export interface Chain {
  /**
   * Indices into `entries` of the main conversation (history and active context), in file order, except that the
   * preserved segment of the last compact boundary follows the entry it is anchored to (see `preserved`).
   */
  main: number[];
  /**
   * Entries from before the last compact boundary that the agent keeps in its active context: the preserved segment
   * Claude Code's own /compact names (head to tail, in conversation order). Claude Code sends them right after the
   * summary, so `main` places them there and they count as active. Empty when the boundary names none.
   */
  preserved: number[];
  /** Index (into `main`) of the first entry of the active context (0 when no compact boundary). */
  activeStart: number;
  /** Indices of compact boundaries on the main chain, in order. */
  boundaries: number[];
  /** Leaf entry index, or -1 for a transcript without chain entries. */
  leaf: number;
  /** Sidechain conversations (subagents), each in file order. */
  sidechains: Sidechain[];
  /** Chain entries that are on no conversation reached from the leaf (abandoned branches). */
  offChain: number;
  /** Problems found while walking (cycles, dangling parents repaired). */
  notes: string[];
  /** True when the file itself is a subagent transcript (every entry a sidechain). */
  subagentFile: boolean;
}

/**
 * Lookup tables a chain was built with (`buildChainWithTables`), so that incremental
 * re-inspection can extend the chain without rebuilding them.
 */
export interface ChainTables {
  /** Candidates of the primary side: uuid → index (the last one wins). */
  byUuid: Map<string, number>;
  /** Sibling recovery's sets over the main chain. */
  chainUuids: Set<string>;
  chainMessageIds: Set<string>;
  wanted: Set<string>;
  answered: Set<string>;
  /** Primary-side candidates, in file order. */
  primary: number[];
  /** What the walk from the leaf did at each dangling parent: entry index → the entry it linked to (-1: the walk stopped there). */
  bridges?: Map<number, number>;
  /** Entries the walk reached (the rest of `main` was brought back by sibling recovery). */
  walked?: Set<number>;
  /**
   * The walks that reached them, each in the order walked: the one from the leaf, then, when the leaf is past a compact
   * boundary, the one from that boundary back through the history behind it. Repair follows the first one to place a
   * converted tool result on the chain without rebuilding it (repairSplice.ts).
   */
  walks?: number[][];
}

/**
 * How an agent's own loader rebuilds a session's chain when it resumes it, where it differs from the product's view:
 * the loader model of an agent lives in its module (Claude Code's: formats/claude-code/loader.ts).
 */
export interface ChainLoader {
  /**
   * The entry that stands in for the missing parent of `e` (or for one already walked), or -1: the walk stops there and
   * everything behind it is left out of the resumed request. `seen`: the entries walked so far.
   */
  bridge(entries: Entry[], candidates: number[], e: Entry, seen: Set<number>): number;
  /** The loader keeps one entry per uuid (the later line): an earlier copy of a line written twice is never loaded. */
  lastCopyOnly: boolean;
  /** The longest gap (ms) `bridge` spans back to an earlier entry, for the words that explain a bridge. */
  bridgeGapMs: number;
}

/**
 * How the chain is rebuilt. `product`: dangling parents always link to the nearest earlier entry (and, after a
 * boundary, to the previous line in the file), which shows the whole conversation a session holds. A ChainLoader: as
 * that agent loads a session on resume (a parent already walked counts as missing, so the walk never loops).
 */
export type ChainMode = 'product' | ChainLoader;

export interface Sidechain {
  id: string;
  entries: number[];
}

function isChainEntry(e: Entry): boolean {
  return e.uuid !== undefined;
}

/**
 * Walks from `leaf` to the root. A dangling parent is repaired by linking to the entry
 * with the nearest earlier timestamp (as Claude Code does); cycles stop the walk.
 */
function walk(
  entries: Entry[],
  byUuid: Map<string, number>,
  leaf: number,
  candidates: number[],
  notes: string[],
  followLogical: boolean,
  fileOrderFallback: boolean,
  record: WalkRecord,
): number[] {
  const out: number[] = [];
  const seen = new Set<number>();
  let cur = leaf;
  while (cur !== -1) {
    if (seen.has(cur)) {
      notes.push(`parentUuid cycle at line ${entries[cur].line}; walk stopped there`);
      break;
    }
    seen.add(cur);
    out.push(cur);
    const e = entries[cur];
    let parent = e.parentUuid ?? null;
    if (parent === null && followLogical && isCompactBoundary(e) && e.logicalParentUuid) {
      parent = e.logicalParentUuid;
    }
    if (parent === null) break;
    const next = byUuid.get(parent);
    // An agent's loader treats a parent it has already walked like a missing one (and so never loops).
    if (next !== undefined && !(record.loader && seen.has(next))) {
      cur = next;
      continue;
    }
    // Dangling parent: nearest earlier entry by timestamp among candidates.
    let repaired: number;
    if (record.loader) repaired = record.loader.bridge(entries, candidates, e, seen);
    else {
      repaired = nearestEarlier(entries, candidates, e, cur, seen);
      if (repaired === -1 && fileOrderFallback) repaired = previousInFile(candidates, cur, seen);
    }
    record.bridges.set(cur, repaired);
    if (repaired === -1) {
      notes.push(`line ${e.line}: parent ${parent} not found; chain starts here`);
      break;
    }
    notes.push(
      `line ${e.line}: parent ${parent} not found; linked to line ${entries[repaired].line} (nearest earlier entry)`,
    );
    cur = repaired;
  }
  record.walks.push(out);
  return out;
}

interface WalkRecord {
  /** The agent's loader being modelled, or null (the product's view). */
  loader: ChainLoader | null;
  bridges: Map<number, number>;
  /** Each walk taken, in the order walked (ChainTables.walks). */
  walks: number[][];
}

/** The closest candidate before `idx` in file order that the walk has not visited. */
function previousInFile(candidates: number[], idx: number, seen: Set<number>): number {
  for (let k = candidates.length - 1; k >= 0; k--) {
    const i = candidates[k];
    if (i < idx && !seen.has(i)) return i;
  }
  return -1;
}

function nearestEarlier(entries: Entry[], candidates: number[], e: Entry, eIdx: number, seen: Set<number>): number {
  if (!e.timestamp) return -1;
  const ts = e.timestamp;
  // Entries are indexed in file order: only candidates before `eIdx` can precede it.
  let hi = candidates.length;
  for (let lo = 0; lo < hi;) {
    const mid = (lo + hi) >>> 1;
    if (candidates[mid] < eIdx) lo = mid + 1;
    else hi = mid;
  }
  let best = -1;
  const table = timestampKeys(entries, candidates);
  const key = table ? isoKey(ts) : NaN;
  if (table && !Number.isNaN(key)) {
    // Same choice on order-preserving numbers (see timestampKeys), scanning backwards: ties go
    // to the earlier entry, and the scan stops once no earlier key can reach the best one.
    const { keys, prefixMax } = table;
    let bestKey = -Infinity;
    for (let j = hi - 1; j >= 0; j--) {
      if (prefixMax[j] < bestKey) break;
      const k = keys[j];
      if (!(k < key) || k < bestKey || seen.has(candidates[j])) continue;
      best = candidates[j];
      bestKey = k;
    }
    return best;
  }
  let bestTs = '';
  for (let j = 0; j < hi; j++) {
    const i = candidates[j];
    const t = entries[i].timestamp;
    if (t === undefined || t >= ts || t <= bestTs || seen.has(i)) continue;
    best = i;
    bestTs = t;
  }
  return best;
}

/**
 * Numeric keys of `YYYY-MM-DDTHH:MM:SS.sssZ` timestamps, ordered exactly as the strings are
 * (fixed width, fields within their ranges, mixed radix). NaN for an entry without a timestamp.
 */
function isoKey(t: string): number {
  if (
    t.length !== 24 ||
    t.charCodeAt(4) !== 45 ||
    t.charCodeAt(7) !== 45 ||
    t.charCodeAt(10) !== 84 ||
    t.charCodeAt(13) !== 58 ||
    t.charCodeAt(16) !== 58 ||
    t.charCodeAt(19) !== 46 ||
    t.charCodeAt(23) !== 90
  )
    return NaN;
  const y = digits(t, 0, 4);
  const mo = digits(t, 5, 2);
  const da = digits(t, 8, 2);
  const h = digits(t, 11, 2);
  const mi = digits(t, 14, 2);
  const se = digits(t, 17, 2);
  const ms = digits(t, 20, 3);
  if (
    y < 0 ||
    ms < 0 ||
    !(mo >= 1 && mo <= 12 && da >= 1 && da <= 31 && h >= 0 && h <= 23 && mi >= 0 && mi <= 59 && se >= 0 && se <= 59)
  )
    return NaN;
  return ((y * 12 + mo - 1) * 31 + da - 1) * 86_400_000 + ((h * 60 + mi) * 60 + se) * 1000 + ms;
}

/** The decimal number in t[from, from + n), or -1 when a character is not a digit. */
function digits(t: string, from: number, n: number): number {
  let v = 0;
  for (let i = from; i < from + n; i++) {
    const c = t.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    v = v * 10 + c;
  }
  return v;
}

interface TimestampTable {
  keys: Float64Array;
  /** Largest key among candidates[0..j] (-Infinity where none has a timestamp). */
  prefixMax: Float64Array;
}

const keyCache = new WeakMap<number[], TimestampTable | null>();

/** Keys for `candidates` (null when some timestamp has another form: then strings are compared). */
function timestampKeys(entries: Entry[], candidates: number[]): TimestampTable | null {
  let table = keyCache.get(candidates);
  if (table !== undefined) return table;
  const keys = new Float64Array(candidates.length);
  const prefixMax = new Float64Array(candidates.length);
  let max = -Infinity;
  table = { keys, prefixMax };
  for (let j = 0; j < candidates.length; j++) {
    const t = entries[candidates[j]].timestamp;
    let k = NaN;
    if (t) {
      k = isoKey(t);
      if (Number.isNaN(k)) {
        table = null;
        break;
      }
      if (k > max) max = k;
    }
    keys[j] = k;
    prefixMax[j] = max;
  }
  keyCache.set(candidates, table);
  return table;
}

/**
 * The entry the file's last `last-prompt` line names (-1 when that line names no entry in
 * `byUuid`, or there is none). Only the last such line counts.
 */
export function lastPromptTarget(entries: Entry[], byUuid: Map<string, number>): number {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i];
    if (e.kind === 'last-prompt' && e.leafUuid) return byUuid.get(e.leafUuid) ?? -1;
  }
  return -1;
}

/**
 * Picks the leaf: the entry the last `last-prompt` line names (`byUuid` holds only
 * candidates), else the last chain entry.
 */
function pickLeaf(entries: Entry[], byUuid: Map<string, number>, candidates: number[]): number {
  const idx = lastPromptTarget(entries, byUuid);
  if (idx !== -1) {
    // Only accept it when nothing later in the file continues from it as a leaf would.
    const later = candidates[candidates.length - 1];
    if (later === idx || !hasDescendantAfter(entries, idx, later)) return idx;
  }
  return candidates.length ? candidates[candidates.length - 1] : -1;
}

function hasDescendantAfter(entries: Entry[], idx: number, last: number): boolean {
  // The last chain entry descends from idx if walking its parents reaches idx.
  const byUuid = new Map<string, number>();
  for (let i = idx; i <= last; i++) if (entries[i].uuid) byUuid.set(entries[i].uuid!, i);
  let cur = last;
  const seen = new Set<number>();
  while (cur !== undefined && !seen.has(cur)) {
    if (cur === idx) return true;
    seen.add(cur);
    const p = entries[cur].parentUuid;
    if (!p) return false;
    const n = byUuid.get(p);
    if (n === undefined) return false;
    cur = n;
  }
  return false;
}

/** Sibling recovery's sets over the main chain. */
export type SiblingTables = Pick<ChainTables, 'chainUuids' | 'chainMessageIds' | 'wanted' | 'answered'>;

/** Records an entry that is on the chain in the sets sibling recovery matches against. */
function admit(e: Entry, t: SiblingTables): void {
  if (e.uuid) t.chainUuids.add(e.uuid);
  if (e.kind === 'assistant' && e.messageId) t.chainMessageIds.add(e.messageId);
  for (const b of e.blocks) {
    if (b.type === 'tool_use' && b.toolId) t.wanted.add(b.toolId);
    if (b.type === 'tool_result' && b.toolId) t.answered.add(b.toolId);
  }
}

/**
 * Brings back side branches of parallel tool calls: assistant lines of a response already
 * on the chain and tool_result lines answering its tool_uses, when their parent is on the
 * chain. Repeats until nothing more joins (a recovered tool_use can have a recovered result).
 * Entries of `onChain` are admitted into `t` (which may already describe the chain before
 * them); lines of `pool` that join are added to `onChain` and `t`.
 */
export function recoverSiblings(
  entries: Entry[],
  onChain: Set<number>,
  pool: number[],
  t: SiblingTables = { chainUuids: new Set(), chainMessageIds: new Set(), wanted: new Set(), answered: new Set() },
): SiblingTables {
  for (const i of onChain) admit(entries[i], t);
  let rest = pool.filter((i) => !onChain.has(i));
  for (let changed = true; changed && rest.length;) {
    changed = false;
    for (const i of rest) {
      if (onChain.has(i)) continue;
      const e = entries[i];
      if (!e.parentUuid || !t.chainUuids.has(e.parentUuid)) continue;
      let join = false;
      if (e.kind === 'assistant') join = e.messageId !== undefined && t.chainMessageIds.has(e.messageId);
      else if (e.kind === 'user') {
        const ids = e.blocks.filter((b) => b.type === 'tool_result' && b.toolId).map((b) => b.toolId!);
        join = ids.length > 0 && ids.every((id) => t.wanted.has(id) && !t.answered.has(id));
      }
      if (join) {
        onChain.add(i);
        admit(e, t);
        changed = true;
      }
    }
    if (changed) rest = rest.filter((i) => !onChain.has(i));
  }
  return t;
}

export function buildChain(entries: Entry[], mode: ChainMode = 'product'): Chain {
  return buildChainWithTables(entries, mode).chain;
}

/** `buildChain`, also returning the lookup tables it built (for incremental re-inspection and the doctor). */
export function buildChainWithTables(
  entries: Entry[],
  mode: ChainMode = 'product',
): { chain: Chain; tables: ChainTables } {
  const notes: string[] = [];
  const mainCandidates: number[] = [];
  const sideCandidates: number[] = [];
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i];
    if (!isChainEntry(e)) continue;
    (e.isSidechain ? sideCandidates : mainCandidates).push(i);
  }
  const subagentFile = mainCandidates.length === 0 && sideCandidates.length > 0;
  const primary = subagentFile ? sideCandidates : mainCandidates;
  const byUuid = new Map<string, number>();
  for (const i of primary) byUuid.set(entries[i].uuid!, i);
  // Whether some uuid is written twice (otherwise every candidate is its uuid's last copy).
  const twice = byUuid.size !== primary.length;

  const leaf = pickLeaf(entries, byUuid, primary);
  const loader = mode === 'product' ? null : mode;
  const record: WalkRecord = { loader, bridges: new Map(), walks: [] };
  const onChain = new Set<number>(leaf === -1 ? [] : walkLikeResume(entries, byUuid, leaf, primary, notes, record));
  const walked = new Set(onChain);
  // A loader that keeps one entry per uuid (the later line) never loads an earlier copy of a line written twice.
  const recovery = recoverSiblings(
    entries,
    onChain,
    loader?.lastCopyOnly && twice ? primary.filter((i) => byUuid.get(entries[i].uuid!) === i) : primary,
  );
  // Entry indices follow file order (the index is built by reading the file front to back).
  const inFileOrder = Array.from(Int32Array.from(onChain).sort());

  let lastBoundary = -1;
  for (const idx of inFileOrder) if (isCompactBoundary(entries[idx])) lastBoundary = idx;
  const preserved = lastBoundary === -1 ? [] : preservedSegment(entries, byUuid, lastBoundary, onChain, notes);
  const main = preserved.length ? placePreserved(entries, byUuid, inFileOrder, lastBoundary, preserved) : inFileOrder;
  const boundaries: number[] = [];
  for (const idx of main) if (isCompactBoundary(entries[idx])) boundaries.push(idx);
  const activeStart = lastBoundary === -1 ? 0 : main.indexOf(lastBoundary);

  const sidechains = subagentFile ? [] : groupSidechains(entries, sideCandidates);
  const chain: Chain = {
    main,
    preserved,
    activeStart,
    boundaries,
    leaf,
    sidechains,
    offChain: primary.length - main.length,
    notes,
    subagentFile,
  };
  return { chain, tables: { byUuid, primary, ...recovery, bridges: record.bridges, walked, walks: record.walks } };
}

/**
 * The preserved segment a compact boundary names, head to tail: walked from `tailUuid` back along parentUuid to
 * `headUuid`, over entries before the boundary that are on the chain. Empty (with a note) when the walk does not reach
 * the head that way: then nothing is counted as preserved rather than a guess.
 */
function preservedSegment(
  entries: Entry[],
  byUuid: Map<string, number>,
  boundary: number,
  onChain: Set<number>,
  notes: string[],
): number[] {
  const seg = entries[boundary].preservedSegment;
  if (!seg) return [];
  const out: number[] = [];
  const seen = new Set<number>();
  for (let cur = byUuid.get(seg.tailUuid); cur !== undefined;) {
    if (seen.has(cur) || cur > boundary || !onChain.has(cur)) break;
    seen.add(cur);
    out.push(cur);
    if (entries[cur].uuid === seg.headUuid) return out.reverse();
    const parent = entries[cur].parentUuid;
    cur = parent ? byUuid.get(parent) : undefined;
  }
  notes.push(
    `line ${entries[boundary].line}: the preserved segment it names (${seg.headUuid}..${seg.tailUuid}) is not a parentUuid path on the chain; not counted as active`,
  );
  return [];
}

/** `main` with the preserved segment moved to just after its anchor (the summary), else just after the boundary. */
function placePreserved(
  entries: Entry[],
  byUuid: Map<string, number>,
  inFileOrder: number[],
  boundary: number,
  preserved: number[],
): number[] {
  const moved = new Set(preserved);
  const rest = inFileOrder.filter((i) => !moved.has(i));
  const anchorUuid = entries[boundary].preservedSegment?.anchorUuid;
  const anchor = anchorUuid === undefined ? undefined : byUuid.get(anchorUuid);
  let at = anchor !== undefined && anchor > boundary ? rest.indexOf(anchor) : -1;
  if (at === -1) at = rest.indexOf(boundary);
  return [...rest.slice(0, at + 1), ...preserved, ...rest.slice(at + 1)];
}

/**
 * Claude Code reads only what follows the last compact boundary (in file order) before the
 * leaf: entries before it are gone, so a parent pointing back there dangles and is repaired to
 * the nearest earlier entry (normally the summary). Its own /compact can hang later lines off
 * a line written just before the boundary, so a plain parent walk would miss the boundary.
 * The active part is walked that way; the history behind the boundary is walked in full.
 */
function walkLikeResume(
  entries: Entry[],
  byUuid: Map<string, number>,
  leaf: number,
  primary: number[],
  notes: string[],
  record: WalkRecord,
): number[] {
  let cut = -1;
  for (let k = primary.length - 1; k >= 0; k--) {
    const i = primary[k];
    if (i > leaf) continue;
    if (isCompactBoundary(entries[i])) {
      cut = i;
      break;
    }
  }
  if (cut === -1) return walk(entries, byUuid, leaf, primary, notes, true, false, record);
  const activeCandidates = primary.filter((i) => i >= cut);
  const activeByUuid = new Map<string, number>();
  for (const i of activeCandidates) activeByUuid.set(entries[i].uuid!, i);
  // After a boundary, timestamps can run backwards (Claude Code's /compact stamps its boundary
  // after the lines that follow it): fall back to the previous entry in the file.
  const active = walk(entries, activeByUuid, leaf, activeCandidates, notes, false, true, record);
  const history = walk(entries, byUuid, cut, primary, notes, true, false, record);
  return [...active, ...history];
}

/** Groups inline sidechain entries into conversations by agentId, or by root for old files. */
function groupSidechains(entries: Entry[], side: number[]): Sidechain[] {
  const groups = new Map<string, number[]>();
  const rootOf = new Map<string, string>();
  for (const i of side) {
    const e = entries[i];
    let key = e.agentId;
    if (!key) {
      const parentRoot = e.parentUuid ? rootOf.get(e.parentUuid) : undefined;
      key = parentRoot ?? `root-${e.uuid}`;
    }
    rootOf.set(e.uuid!, key);
    let g = groups.get(key);
    if (!g) groups.set(key, (g = []));
    g.push(i);
  }
  return [...groups].map(([id, list]) => ({ id, entries: list }));
}
