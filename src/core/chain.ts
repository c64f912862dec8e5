// Rebuilds the conversation the way Claude Code does on resume: pick the leaf, walk
// parentUuid back (across earlier compactions via logicalParentUuid), bring back sibling
// tool results of parallel tool calls, and mark where the active context starts.
import type { Entry } from './entries';

export interface Chain {
  /** Indices into `entries` of the main conversation, in file order (history and active context). */
  main: number[];
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

export interface Sidechain {
  id: string;
  entries: number[];
}

function isChainEntry(e: Entry): boolean {
  return e.uuid !== undefined;
}

/** Compares entries by position in the file. */
function filePos(e: Entry): number {
  return e.start * 16 + e.part;
}

/**
 * Walks from `leaf` to the root. A dangling parent is repaired by linking to the entry
 * with the nearest earlier timestamp (as Claude Code does); cycles stop the walk.
 */
function walk(entries: Entry[], byUuid: Map<string, number>, leaf: number, candidates: number[], notes: string[], followLogical: boolean): number[] {
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
    if (parent === null && followLogical && e.kind === 'system' && e.subtype === 'compact_boundary' && e.logicalParentUuid) {
      parent = e.logicalParentUuid;
    }
    if (parent === null) break;
    const next = byUuid.get(parent);
    if (next !== undefined) {
      cur = next;
      continue;
    }
    // Dangling parent: nearest earlier entry by timestamp among candidates.
    const repaired = nearestEarlier(entries, candidates, e, seen);
    if (repaired === -1) {
      notes.push(`line ${e.line}: parent ${parent} not found; chain starts here`);
      break;
    }
    notes.push(`line ${e.line}: parent ${parent} not found; linked to line ${entries[repaired].line} (nearest earlier timestamp)`);
    cur = repaired;
  }
  return out;
}

function nearestEarlier(entries: Entry[], candidates: number[], e: Entry, seen: Set<number>): number {
  if (!e.timestamp) return -1;
  let best = -1;
  let bestTs = '';
  for (const i of candidates) {
    const c = entries[i];
    if (seen.has(i) || !c.timestamp || c.timestamp >= e.timestamp || filePos(c) >= filePos(e)) continue;
    if (c.timestamp > bestTs) {
      best = i;
      bestTs = c.timestamp;
    }
  }
  return best;
}

/** Picks the leaf: the last `last-prompt` leafUuid naming an existing entry, else the last chain entry. */
function pickLeaf(entries: Entry[], byUuid: Map<string, number>, candidates: number[]): number {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i];
    if (e.kind === 'last-prompt' && e.leafUuid) {
      const idx = byUuid.get(e.leafUuid);
      if (idx !== undefined && candidates.includes(idx)) {
        // Only accept it when nothing later in the file continues from it as a leaf would.
        const later = candidates[candidates.length - 1];
        if (later === idx || !hasDescendantAfter(entries, idx, later)) return idx;
      }
      break;
    }
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

/**
 * Brings back side branches of parallel tool calls: assistant lines of a response already
 * on the chain and tool_result lines answering its tool_uses, when their parent is on the
 * chain. Repeats until nothing more joins (a recovered tool_use can have a recovered result).
 */
function recoverSiblings(entries: Entry[], onChain: Set<number>, pool: number[]): void {
  const chainUuids = new Set<string>();
  const chainMessageIds = new Set<string>();
  const wanted = new Set<string>();
  const answered = new Set<string>();
  const admit = (i: number) => {
    const e = entries[i];
    onChain.add(i);
    if (e.uuid) chainUuids.add(e.uuid);
    if (e.kind === 'assistant' && e.messageId) chainMessageIds.add(e.messageId);
    for (const b of e.blocks) {
      if (b.type === 'tool_use' && b.toolId) wanted.add(b.toolId);
      if (b.type === 'tool_result' && b.toolId) answered.add(b.toolId);
    }
  };
  for (const i of [...onChain]) admit(i);
  for (let changed = true; changed; ) {
    changed = false;
    for (const i of pool) {
      if (onChain.has(i)) continue;
      const e = entries[i];
      if (!e.parentUuid || !chainUuids.has(e.parentUuid)) continue;
      let join = false;
      if (e.kind === 'assistant') join = e.messageId !== undefined && chainMessageIds.has(e.messageId);
      else if (e.kind === 'user') {
        const ids = e.blocks.filter((b) => b.type === 'tool_result' && b.toolId).map((b) => b.toolId!);
        join = ids.length > 0 && ids.every((id) => wanted.has(id) && !answered.has(id));
      }
      if (join) {
        admit(i);
        changed = true;
      }
    }
  }
}

export function buildChain(entries: Entry[]): Chain {
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

  const leaf = pickLeaf(entries, byUuid, primary);
  const onChain = new Set<number>(leaf === -1 ? [] : walk(entries, byUuid, leaf, primary, notes, true));
  recoverSiblings(entries, onChain, primary);
  const main = [...onChain].sort((a, b) => filePos(entries[a]) - filePos(entries[b]));

  const boundaries: number[] = [];
  main.forEach((idx) => {
    const e = entries[idx];
    if (e.kind === 'system' && e.subtype === 'compact_boundary') boundaries.push(idx);
  });
  const lastBoundary = boundaries.length ? boundaries[boundaries.length - 1] : -1;
  const activeStart = lastBoundary === -1 ? 0 : main.indexOf(lastBoundary);

  const sidechains = subagentFile ? [] : groupSidechains(entries, sideCandidates);
  return { main, activeStart, boundaries, leaf, sidechains, offChain: primary.length - main.length, notes, subagentFile };
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
