// The chain Claude Code's loader rebuilds from a transcript (buildChainWithTables with its loader model) and the active
// context doctor compares it with, as repair's splice step (repairPlan.ts) asks about it: whether an entry is loaded,
// the next response loaded after an entry, and the walk from the leaf. Repair splices converted tool results into the
// chain one at a time, each decided against the chain the splices before it left, and rebuilding the chain after each
// splice made repair quadratic in such results. `spliceIn` updates this view in place when what a rebuild would give is
// known without one; the caller rebuilds only when it is not.
import { buildChainWithTables, lastPromptTarget, type ChainLoader } from './chain';
import { activeRegion } from './repair/doctor';
import type { Entry } from './entries';

export interface LoadedChain {
  /** The entry resume starts from (-1: none). */
  leaf: number;
  /** Whether resume loads entry `i` (it is on the chain). */
  loaded(i: number): boolean;
  /** Whether `i` is one of the active context's candidates (activeRegion). */
  inRegion(i: number): boolean;
  /**
   * The first loaded assistant line of the active context after `i` whose response no loaded assistant line before `i`
   * began (the response after `i`, not a later line of one under way), of the conversation `sessionId` (of any when
   * `sessionId` or the line has none); undefined when there is none.
   */
  nextResponse(i: number, sessionId: string | undefined): number | undefined;
  /**
   * After `i` (not loaded, in the active context) was made to continue from `to`, and `after` from `i`, where the walk
   * from the leaf went from `after` straight to `to`: puts `i` on the chain between them and returns true when a rebuild
   * is known to differ from this chain by exactly that; returns false, changing nothing, when only a rebuild can tell.
   * `childrenOfI`: every entry whose parentUuid is now `i`'s uuid.
   */
  spliceIn(i: number, after: number, to: number, childrenOfI: Iterable<number>): boolean;
}

/** Entries by a key, queried for the smallest entry whose key is above a bound. */
interface ByKey {
  /** Keys, ascending. */
  keys: number[];
  /** The smallest entry among those with keys[j] and after. */
  least: number[];
}

function byKey(pairs: { key: number; at: number }[]): ByKey {
  pairs.sort((a, b) => a.key - b.key);
  const least = new Array<number>(pairs.length);
  for (let j = pairs.length - 1, min = Infinity; j >= 0; j--) least[j] = min = Math.min(min, pairs[j].at);
  return { keys: pairs.map((p) => p.key), least };
}

function leastAbove(t: ByKey | undefined, bound: number): number | undefined {
  if (!t) return undefined;
  let lo = 0;
  for (let hi = t.keys.length; lo < hi;) {
    const mid = (lo + hi) >>> 1;
    if (t.keys[mid] <= bound) lo = mid + 1;
    else hi = mid;
  }
  return lo < t.keys.length ? t.least[lo] : undefined;
}

/** The chain of `entries` (with every parent link repair has planned so far) as the agent's `loader` rebuilds it. */
export function loadedChain(entries: Entry[], loader: ChainLoader): LoadedChain {
  const built = buildChainWithTables(entries, loader);
  const { chain, tables } = built;
  const { region } = activeRegion(entries, built);
  // Flags and steps by entry index, in typed arrays: no hashing, and nothing for the garbage collector to trace.
  const on = new Uint8Array(entries.length);
  for (const i of chain.main) on[i] = 1;
  const candidate = new Uint8Array(entries.length);
  for (const i of region) candidate[i] = 1;

  // The next response after i is a loaded assistant line k > i of the region whose response (messageId) no loaded
  // assistant line of the region before i began, that is whose response's first such line is after i. So each line is
  // keyed by its response's first line, and the answer is the smallest line keyed above i: a binary search, where a
  // scan from i for each converted result was quadratic. Lines are grouped by conversation, since a result of one
  // session takes the response of its own (or of a line without one).
  const firstLine = new Map<string | undefined, number>();
  const pairs = { any: [] as { key: number; at: number }[], none: [] as { key: number; at: number }[] };
  const bySession = new Map<string, { key: number; at: number }[]>();
  for (const k of region) {
    const e = entries[k];
    if (!on[k] || e.kind !== 'assistant') continue;
    if (!firstLine.has(e.messageId)) firstLine.set(e.messageId, k);
    const pair = { key: firstLine.get(e.messageId)!, at: k };
    pairs.any.push(pair);
    if (!e.sessionId) pairs.none.push(pair);
    else {
      const list = bySession.get(e.sessionId);
      if (list) list.push(pair);
      else bySession.set(e.sessionId, [pair]);
    }
  }
  const anyResponse = byKey(pairs.any);
  const noSession = byKey(pairs.none);
  const ofSession = new Map([...bySession].map(([s, list]) => [s, byKey(list)]));

  // The walk from the leaf as a list of steps (the entry it went to from each), the entries of the walk through the
  // history behind a compact boundary (when the leaf is past one), and where the walk bridged a missing parent.
  const [fromLeaf = [], ...history] = tables.walks ?? [];
  const stepFrom = new Int32Array(entries.length).fill(-1);
  for (let k = 0; k + 1 < fromLeaf.length; k++) stepFrom[fromLeaf[k]] = fromLeaf[k + 1];
  const inHistory = new Uint8Array(entries.length);
  for (const walk of history) for (const i of walk) inHistory[i] = 1;
  const bridged = tables.bridges ?? new Map<number, number>();
  // The leaf is the last candidate, or the entry the last last-prompt line names, whatever the links, unless that line
  // names another entry: then whether a later entry descends from it decides (pickLeaf in chain.ts).
  const lastCandidate = tables.primary[tables.primary.length - 1];
  const target = lastPromptTarget(entries, tables.byUuid);
  const leafFixed = target === -1 || target === lastCandidate;
  let lastBoundary = -1;
  for (const b of chain.boundaries) lastBoundary = Math.max(lastBoundary, b);

  // Whether sibling recovery could bring `c` back once its parent is on the chain (recoverSiblings): it must be a line
  // recovery looks at that is not on the chain yet, and an assistant line of a response on the chain, or a user line
  // whose tool results all answer calls on it. Recovery's sets only grow, so what they hold at its end bounds what
  // they held when it looked at `c`.
  const mayJoin = (c: number): boolean => {
    const e = entries[c];
    if (on[c] || !e.uuid || tables.byUuid.get(e.uuid) !== c) return false;
    if (e.kind === 'assistant') return e.messageId !== undefined && tables.chainMessageIds.has(e.messageId);
    if (e.kind !== 'user') return false;
    const ids = e.blocks.filter((b) => b.type === 'tool_result' && b.toolId).map((b) => b.toolId!);
    return ids.length > 0 && ids.every((id) => tables.wanted.has(id));
  };

  /**
   * Why a rebuild would give exactly this chain with `i` on it, under these conditions (see buildChainWithTables):
   * - the leaf does not depend on links (leafFixed), so neither do it, the compact boundary it is past, and the region;
   * - the walk from the leaf went from `after` straight to `to` (no bridge, not a step of the history walk), and `i` is
   *   the line the loader keeps for its uuid: the walk now goes `after`, `i`, `to`, then on as before (`i` was not on
   *   it, so it was never a bridge's choice, and being walked it cannot become one);
   * - sibling recovery brings back the same entries: `i` adds its uuid to the chain and nothing else (a user line with
   *   no tool call or tool result left), so it can differ only where an entry continuing from that uuid joins, and none
   *   can (mayJoin) but `after`, which is on the walk;
   * - `i` and `after` are past the last compact boundary on the chain, so its preserved segment does not change.
   */
  const spliceIn = (i: number, after: number, to: number, childrenOfI: Iterable<number>): boolean => {
    const e = entries[i];
    if (!leafFixed || on[i] || !candidate[i] || !e.uuid || tables.byUuid.get(e.uuid) !== i) return false;
    if (stepFrom[after] !== to || bridged.has(after) || inHistory[after]) return false;
    if (e.kind !== 'user' || e.blocks.some((b) => b.toolId && (b.type === 'tool_use' || b.type === 'tool_result')))
      return false;
    for (const c of childrenOfI) if (c !== after && mayJoin(c)) return false;
    if (i <= lastBoundary || after <= lastBoundary) return false;
    on[i] = 1;
    stepFrom[after] = i;
    stepFrom[i] = to;
    return true;
  };

  return {
    leaf: chain.leaf,
    loaded: (i) => on[i] === 1,
    inRegion: (i) => candidate[i] === 1,
    nextResponse: (i, sessionId) => {
      if (!sessionId) return leastAbove(anyResponse, i);
      const own = leastAbove(ofSession.get(sessionId), i);
      const unmarked = leastAbove(noSession, i);
      return own === undefined ? unmarked : unmarked === undefined ? own : Math.min(own, unmarked);
    },
    spliceIn,
  };
}
