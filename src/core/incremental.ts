// Incremental analysis: extends an analysis by appended lines when they are an ordinary continuation of the
// conversation, giving exactly what a full analysis of the grown file gives (test/unit/incremental.test.ts).
import { lastPromptTarget, recoverSiblings, type Chain, type ChainTables } from './chain';
import { isCompactBoundary, type Entry } from './entries';
import type { Analysis, IncrementalState } from './analysis';

export type { IncrementalState } from './analysis';
import { assembleReport, cloneState, reportRounds, type ReportState } from './report';
import { buildRounds, type Round } from './rounds';

// ---------------------------------------------------------------------------------------
// Incremental analysis. The state below describes the analysis of the first `entryCount`
// entries; `extendAnalysis` checks that the new entries cannot change anything the full
// algorithm (chain.ts, rounds.ts, the report loop) decided about the old ones, and then
// derives the new chain, rounds and report figures from the new entries and the last round.

export function buildIncrementalState(
  entries: Entry[],
  chain: Chain,
  tables: ChainTables,
  rounds: Round[],
  resume: { at: number; state: ReportState },
): IncrementalState {
  const { byUuid, primary } = tables;
  const onMain = new Uint8Array(entries.length);
  for (const i of chain.main) onMain[i] = 1;
  const dangling = new Set<string>();
  const offMessageIds = new Set<string>();
  const offUseIds = new Set<string>();
  const offResultIds = new Set<string>();
  for (const i of primary) {
    const e = entries[i];
    const p = e.parentUuid;
    if (p && !byUuid.has(p)) dangling.add(p);
    if (!onMain[i]) noteIds(e, offMessageIds, offUseIds, offResultIds);
  }
  // pickLeaf: the last last-prompt line decides, when it names a candidate.
  const lastPromptLeaf = lastPromptTarget(entries, byUuid);
  const st: IncrementalState = {
    entryCount: entries.length,
    tables,
    promptTail: null,
    promptTailLast: null,
    promptReached: null,
    dangling,
    offMessageIds,
    offUseIds,
    offResultIds,
    lastPromptLeaf,
    earlierRoundIds: new Set(),
    earlierRounds: 0,
    earlierLastEntry: -1,
    namesBefore: new Map(),
    lastRoundStart: -1,
    tailClean: false,
    resume,
  };
  setTail(st, entries, chain, rounds, 0, new Map());
  return st;
}

function noteIds(e: Entry, messageIds: Set<string>, useIds: Set<string>, resultIds: Set<string>): void {
  if (e.kind === 'assistant' && e.messageId) messageIds.add(e.messageId);
  for (const b of e.blocks) {
    if (!b.toolId) continue;
    if (b.type === 'tool_use') useIds.add(b.toolId);
    else if (b.type === 'tool_result') resultIds.add(b.toolId);
  }
}

/**
 * Records where the last round starts and what buildRounds knows at that point. `namesFrom`
 * and `names` give the tool names known at chain position `namesFrom` (to avoid rescanning);
 * the earlier rounds' ids and last entries are added from round `st.earlierRounds` on (the
 * rounds before it are the same as when the state last saw them).
 */
function setTail(
  st: IncrementalState,
  entries: Entry[],
  chain: Chain,
  rounds: Round[],
  namesFrom: number,
  names: Map<string, string>,
): void {
  const last = rounds[rounds.length - 1];
  if (!last || last.entries.length === 0) {
    st.lastRoundStart = -1;
    st.tailClean = false;
    return;
  }
  const firstIdx = last.entries[0];
  let pos = chain.main.length - 1;
  while (pos >= 0 && chain.main[pos] !== firstIdx) pos--;
  st.lastRoundStart = pos;
  for (let k = st.earlierRounds; k < rounds.length - 1; k++) {
    const r = rounds[k];
    if (r.messageId) st.earlierRoundIds.add(r.messageId);
    if (r.entries.length) st.earlierLastEntry = Math.max(st.earlierLastEntry, r.entries[r.entries.length - 1]);
  }
  st.earlierRounds = rounds.length - 1;
  // Every entry of an earlier round must come before the last round's start (chain order is file order).
  st.tailClean = pos >= 0 && last.inContext && st.earlierLastEntry <= firstIdx;
  for (let p = namesFrom; p < pos; p++) {
    const e = entries[chain.main[p]];
    if (e.kind !== 'assistant') continue;
    for (const b of e.blocks)
      if ((b.type === 'tool_use' || b.type === 'server_tool_use') && b.toolId) names.set(b.toolId, b.name ?? '?');
  }
  st.namesBefore = names;
}

/** The incremental path; null when the append is not an ordinary continuation (then the caller re-derives in full). */
export function extendAnalysis(prev: Analysis, st: IncrementalState): Analysis | null {
  const { index } = prev;
  const chain = prev.chain;
  if (chain.leaf < 0 || st.lastRoundStart < 0 || !st.tailClean) return null;
  const appended = ordinaryAppend(index.entries, st, chain.subagentFile);
  if (!appended) return null;
  const leafPath = newLeafPath(index.entries, chain, st, appended);
  if (!leafPath) return null;
  // Nothing below gives up: the shared tables are updated in place from here on.
  const { newChain, tables, onNew } = extendChain(index.entries, chain, st, appended.candidates, leafPath);
  const rounds = extendRounds(index.entries, prev, st, newChain);
  // Report: resume the loop at the round before the old last one.
  const from = st.resume.at;
  const run = reportRounds(
    index.entries,
    rounds,
    from,
    cloneState(st.resume.state),
    prev.report.rounds.slice(0, from),
    index.format.id,
  );
  const sidechains = prev.report.sidechains.filter((s) => s.source !== 'file');
  const report = assembleReport(index, newChain, rounds, run, sidechains);
  // State for the next append: this one's, moved over (the previous analysis can no longer be extended).
  const analysis: Analysis = { index, chain: newChain, rounds, report, appendState: st };
  prev.appendState = null;
  advanceState(st, index.entries, appended.candidates, onNew, tables, run.resume);
  setTail(st, index.entries, newChain, rounds, st.lastRoundStart, st.namesBefore);
  return analysis;
}

interface Appended {
  /** Indices of the new chain entries (with a uuid), in file order. */
  candidates: number[];
  uuids: Set<string>;
}

/**
 * The new entries, when they cannot change anything decided about the old ones: no boundary, no last-prompt line,
 * fresh unique uuids, no new inline sidechains, message and tool ids that cannot change how older lines were chained
 * or grouped. Null otherwise.
 */
function ordinaryAppend(entries: Entry[], st: IncrementalState, side: boolean): Appended | null {
  const t = st.tables;
  const candidates: number[] = [];
  const uuids = new Set<string>();
  const newResults = new Set<string>();
  for (let i = st.entryCount; i < entries.length; i++) {
    const e = entries[i];
    if (isCompactBoundary(e) || e.kind === 'last-prompt') return null;
    if (e.uuid === undefined) continue;
    if (e.isSidechain !== side) return null;
    if (t.byUuid.has(e.uuid) || uuids.has(e.uuid) || st.dangling.has(e.uuid)) return null;
    uuids.add(e.uuid);
    candidates.push(i);
    if (e.kind === 'assistant' && e.messageId) {
      // An older off-chain line of this response could join the chain; an earlier round would absorb it.
      if (st.offMessageIds.has(e.messageId) && !t.chainMessageIds.has(e.messageId)) return null;
      if (st.earlierRoundIds.has(e.messageId)) return null;
    }
    for (const b of e.blocks) {
      if (!b.toolId) continue;
      // A tool_use must be new; a tool_result must answer an id no older candidate answers
      // (or older lines could be recovered onto the chain, or lose their place on it).
      if (
        b.type === 'tool_use' &&
        (t.wanted.has(b.toolId) ||
          st.offUseIds.has(b.toolId) ||
          t.answered.has(b.toolId) ||
          st.offResultIds.has(b.toolId))
      )
        return null;
      if (b.type === 'tool_result') {
        if (t.answered.has(b.toolId) || st.offResultIds.has(b.toolId) || newResults.has(b.toolId)) return null;
        newResults.add(b.toolId);
      }
    }
  }
  return { candidates, uuids };
}

/** The new leaf (the last candidate) and the new entries on its path, when it descends from the old leaf through new entries only; null otherwise. */
function newLeafPath(
  entries: Entry[],
  chain: Chain,
  st: IncrementalState,
  appended: Appended,
): { leaf: number; walked: number[] } | null {
  const { candidates } = appended;
  if (!candidates.length) return { leaf: chain.leaf, walked: [] };
  const leaf = candidates[candidates.length - 1];
  const byNew = new Map<string, number>();
  for (const i of candidates) byNew.set(entries[i].uuid!, i);
  const oldLeafUuid = entries[chain.leaf].uuid!;
  if (
    st.lastPromptLeaf >= 0 &&
    !promptStillPicksLastCandidate(entries, chain, st, st.entryCount, appended.uuids, oldLeafUuid)
  )
    return null;
  const walked: number[] = [];
  let cur = leaf;
  for (let steps = 0; ; steps++) {
    if (steps > candidates.length) return null;
    walked.push(cur);
    const parent = entries[cur].parentUuid;
    if (!parent) return null;
    const nextNew = byNew.get(parent);
    if (nextNew !== undefined) {
      cur = nextNew;
      continue;
    }
    return parent === oldLeafUuid ? { leaf, walked } : null;
  }
}

/** The chain grown by the new leaf's path and the sibling results recovered among the new entries. */
function extendChain(
  entries: Entry[],
  chain: Chain,
  st: IncrementalState,
  candidates: number[],
  path: { leaf: number; walked: number[] },
): { newChain: Chain; tables: ChainTables; onNew: Set<number> } {
  const t = st.tables;
  const onNew = new Set<number>(path.walked);
  recoverSiblings(entries, onNew, candidates, t);
  const added = [...onNew].sort((a, b) => a - b);
  const newChain: Chain = {
    ...chain,
    main: added.length ? chain.main.concat(added) : chain.main,
    leaf: path.leaf,
    offChain: chain.offChain + candidates.length - added.length,
  };
  const tables: ChainTables = { ...t, primary: candidates.length ? t.primary.concat(candidates) : t.primary };
  return { newChain, tables, onNew };
}

/** Rounds rebuilt from the last round's start (its lines and everything after it); the earlier ones are kept. */
function extendRounds(entries: Entry[], prev: Analysis, st: IncrementalState, newChain: Chain): Round[] {
  const lastOld = prev.rounds[prev.rounds.length - 1];
  const tailChain: Chain = {
    ...newChain,
    main: newChain.main.slice(st.lastRoundStart),
    activeStart: 0,
    boundaries: [],
  };
  const tail = buildRounds(entries, tailChain);
  for (const r of tail) {
    r.index += lastOld.index;
    r.segment += lastOld.segment;
    for (const tr of r.toolResults) {
      if (tr.name === undefined) {
        const name = st.namesBefore.get(tr.id);
        if (name !== undefined) tr.name = name;
      }
    }
  }
  return prev.rounds.slice(0, lastOld.index).concat(tail);
}

/** Records the new entries in the state's tables and sets, for the next append. */
function advanceState(
  st: IncrementalState,
  entries: Entry[],
  candidates: number[],
  onNew: Set<number>,
  tables: ChainTables,
  resume: { at: number; state: ReportState },
): void {
  const t = st.tables;
  for (const i of candidates) {
    const e = entries[i];
    t.byUuid.set(e.uuid!, i);
    if (st.promptTail) st.promptTail.set(e.uuid!, 1);
    if (st.promptTailLast) st.promptTailLast.set(e.uuid!, i);
    if (!onNew.has(i)) noteIds(e, st.offMessageIds, st.offUseIds, st.offResultIds);
  }
  for (const i of candidates) {
    const p = entries[i].parentUuid;
    if (p && !t.byUuid.has(p)) st.dangling.add(p);
  }
  st.tables = tables;
  st.entryCount = entries.length;
  st.resume = resume;
}

/**
 * chain.ts pickLeaf with a last-prompt line naming candidate P: the leaf stays P unless the last
 * candidate descends from P (hasDescendantAfter: parent links through every entry from P on,
 * the last of a uuid winning). The new last candidate reaches the old leaf through new entries,
 * so it descends from P when the old leaf does, provided no older entry from P on shares a uuid
 * with the new entries or the old leaf.
 */
function promptStillPicksLastCandidate(
  entries: Entry[],
  chain: Chain,
  st: IncrementalState,
  oldN: number,
  newUuids: Set<string>,
  oldLeafUuid: string,
): boolean {
  if (!st.promptTail || !st.promptTailLast) {
    const counts = new Map<string, number>();
    const last = new Map<string, number>();
    for (let i = st.lastPromptLeaf; i < oldN; i++) {
      const u = entries[i].uuid;
      if (u === undefined) continue;
      counts.set(u, (counts.get(u) ?? 0) + 1);
      last.set(u, i);
    }
    st.promptTail = counts;
    st.promptTailLast = last;
  }
  for (const u of newUuids) if (st.promptTail.has(u)) return false;
  if (st.promptTail.get(oldLeafUuid) !== 1) return false;
  if (st.promptReached === null) {
    // Does the old leaf reach P by parent links through entries from P on?
    const target = st.lastPromptLeaf;
    const seen = new Set<number>();
    let cur: number | undefined = chain.leaf;
    let reached = false;
    while (cur !== undefined && !seen.has(cur)) {
      if (cur === target) {
        reached = true;
        break;
      }
      seen.add(cur);
      const p = entries[cur].parentUuid;
      if (!p) break;
      cur = st.promptTailLast.get(p);
    }
    st.promptReached = reached;
  }
  return st.promptReached;
}
