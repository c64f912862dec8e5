// Plans the repair of broken parent links so that `claude --resume` loads the whole active context again: each entry whose
// parentUuid names nothing is linked to the entry before it on the same line of work (a tool result to the line of
// its call); a tool result whose call is gone is turned into a plain text block that says what it was
// (orphanResults.ts), since the API rejects it as it is; nothing else changes: every other line is copied byte for
// byte, a relinked line differs only in its parentUuid value, and a converted line only in those blocks (and its
// parentUuid). Only a line holding several joined JSON objects, which cannot be changed alone, is routed around.
import { buildChainWithTables } from '../chain';
import type { ChainLoader } from '../chain';
import { activeRegion } from './doctor';
import type { Entry } from '../entries';
import { loadedChain } from '../loadedChain';
import { convertEntry } from '../orphanResults';
import type { TranscriptIndex } from '../transcript';

export interface RepairChange {
  /** Line changed (its parentUuid only). */
  line: number;
  uuid: string;
  from: string | null;
  to: string;
  /** Line of the entry it now continues from. */
  toLine: number;
  reason: string;
}

/** A line whose tool_result blocks answering `toolIds` (calls no longer loaded) become text blocks. */
export interface RepairConversion {
  line: number;
  uuid: string;
  toolIds: string[];
  reason: string;
}

export interface RepairPlan {
  changes: RepairChange[];
  converted: RepairConversion[];
  /** Lines left as they are, and why. */
  skipped: { line: number; reason: string }[];
}

const isSnapshot = (e: Entry) => e.kind === 'system' && e.subtype === 'file_snapshot';

function resultIds(e: Entry): string[] {
  return e.kind === 'user' ? e.blocks.filter((b) => b.type === 'tool_result' && b.toolId).map((b) => b.toolId!) : [];
}

/** Lines sharing their line number with another object (several JSON objects joined on one line). */
function sharedLines(entries: Entry[]): Set<number> {
  const shared = new Set<number>();
  for (let i = 1; i < entries.length; i++) if (entries[i].line === entries[i - 1].line) shared.add(entries[i].line);
  return shared;
}

/** Tool results of the active context whose call is not in it: they become text (see orphanResults.ts). */
function planConversions(entries: Entry[], region: number[]): RepairConversion[] {
  const callAt = new Map<string, number>();
  // The earliest call of an id: a result needs a call before it (ids can repeat across conversations in one file).
  for (const i of region)
    for (const b of entries[i].blocks)
      if (b.type === 'tool_use' && b.toolId && !callAt.has(b.toolId)) callAt.set(b.toolId, i);
  const shared = sharedLines(entries);
  const out: RepairConversion[] = [];
  for (const i of region) {
    const e = entries[i];
    // Claude Code pairs a result with its call by id wherever the call's line is (newer versions write the result first).
    const ids = resultIds(e).filter((id) => !callAt.has(id));
    if (ids.length === 0 || !e.uuid || shared.has(e.line)) continue;
    out.push({
      line: e.line,
      uuid: e.uuid,
      toolIds: ids,
      reason: `the tool_use of ${ids.join(', ')} is not in what resume loads, and the API rejects a tool_result without it: turned into a text block that says so, its content kept`,
    });
  }
  return out;
}

/** `entries` with the conversions of `converted` applied to their digests. */
function withConversions(entries: Entry[], converted: RepairConversion[]): Entry[] {
  if (converted.length === 0) return entries;
  const byLine = new Map(converted.map((c) => [c.line, c]));
  return entries.map((e) => {
    const c = byLine.get(e.line);
    return c && c.uuid === e.uuid ? convertEntry(e, new Set(c.toolIds)) : e;
  });
}

/**
 * What repair changes so that resume loads every message it validly can; pure (entry digests only): tool results
 * without their call are converted to text, then every broken parent of the active context is linked.
 */
export function planRepair(
  entries: Entry[],
  loader: ChainLoader,
  built: ReturnType<typeof buildChainWithTables> = buildChainWithTables(entries, loader),
): RepairPlan {
  // Converting blocks changes no parent link, so the region and the loader's bridges are those of the file as it is
  // (`built`: its chain as `loader` rebuilds it, when the caller has it already).
  const converted = planConversions(entries, activeRegion(entries, built).region);
  const base = withConversions(entries, converted);
  const plan = { ...planLinks(base, built), converted };
  if (converted.length) spliceConverted(base, plan, loader);
  return plan;
}

/** `entries` with the parent links of `changes`. */
function withLinks(entries: Entry[], changes: RepairChange[]): Entry[] {
  const byLine = new Map(changes.map((c) => [c.line, c]));
  return entries.map((e) => {
    const c = byLine.get(e.line);
    return c && c.uuid === e.uuid ? { ...e, parentUuid: c.to } : e;
  });
}

/**
 * A converted result that is still off the chain (the answer to one of several parallel calls hangs beside the
 * others' results) is spliced in where its turn ends: just before the first assistant response that starts after it
 * in the file (or after the leaf when none does), so that it follows the turn's remaining tool results.
 *
 * Each is placed on the chain as the placements before it left it. Lookups go through maps (an entry by line and uuid,
 * a uuid's last line, a change by line, the entries continuing from a uuid) and the chain is rebuilt only when
 * loadedChain cannot say what a placement did to it: a search of every entry, change or chain entry per result, and a
 * rebuild per placement, made repair quadratic in such results.
 */
function spliceConverted(base: Entry[], plan: RepairPlan, loader: ChainLoader): void {
  const sharedLine = sharedLines(base);
  // Where each line's first entry is (the objects of a line are adjacent entries), and the last entry of each uuid (the
  // one a parentUuid leads to, as Claude Code reads a uuid written twice).
  const lineAt = new Map<number, number>();
  const lastAt = new Map<string, number>();
  for (let k = 0; k < base.length; k++) {
    if (!lineAt.has(base[k].line)) lineAt.set(base[k].line, k);
    const u = base[k].uuid;
    if (u) lastAt.set(u, k);
  }
  const entryOf = (line: number, uuid: string): number | undefined => {
    for (let k = lineAt.get(line); k !== undefined && k < base.length && base[k].line === line; k++)
      if (base[k].uuid === uuid) return k;
    return undefined;
  };
  // The changes of each line, in the order made: an entry's first is the one a later change of it updates, and the last
  // gives the line its parentUuid (as withLinks applies them).
  const changesOf = new Map<number, RepairChange[]>();
  const record = (c: RepairChange) => {
    const list = changesOf.get(c.line);
    if (list) list.push(c);
    else changesOf.set(c.line, [c]);
  };
  for (const c of plan.changes) record(c);
  const parentOf = (k: number): string | null | undefined => {
    const c = changesOf.get(base[k].line)?.at(-1);
    return c && c.uuid === base[k].uuid ? c.to : base[k].parentUuid;
  };
  // The entries continuing from each converted result, kept current as links change (what a splice asks of them).
  const convertedUuids = new Set(plan.converted.map((c) => c.uuid));
  const childrenOf = new Map<string, Set<number>>();
  const adopt = (k: number) => {
    const p = parentOf(k);
    if (!p || !convertedUuids.has(p)) return;
    const kids = childrenOf.get(p);
    if (kids) kids.add(k);
    else childrenOf.set(p, new Set([k]));
  };
  for (let k = 0; k < base.length; k++) adopt(k);

  const set = (i: number, to: number, reason: string) => {
    const e = base[i];
    const was = parentOf(i);
    const prior = changesOf.get(e.line)?.find((c) => c.uuid === e.uuid);
    const entry: RepairChange = {
      line: e.line,
      uuid: e.uuid!,
      from: e.parentUuid ?? null,
      to: base[to].uuid!,
      toLine: base[to].line,
      reason,
    };
    if (prior) Object.assign(prior, { ...entry, from: prior.from });
    else {
      plan.changes.push(entry);
      record(entry);
    }
    if (was) childrenOf.get(was)?.delete(i);
    adopt(i);
  };
  const rebuilt = () => loadedChain(withLinks(base, plan.changes), loader);

  // Most converted results are on the chain once their parent is linked, and most placements are known without a rebuild.
  let chain = rebuilt();
  for (const c of plan.converted) {
    const i = entryOf(c.line, c.uuid);
    if (i === undefined || chain.loaded(i) || !chain.inRegion(i)) continue;
    const e = base[i];
    const next = chain.nextResponse(i, e.sessionId);
    if (next === undefined) {
      const leaf = chain.leaf;
      const same = leaf >= 0 && (!e.sessionId || !base[leaf].sessionId || base[leaf].sessionId === e.sessionId);
      if (same && leaf < i && base[leaf].uuid) {
        set(i, leaf, 'a converted tool result after the last loaded entry: it continues from it');
        chain = rebuilt();
      }
      continue;
    }
    const q = parentOf(next);
    const qAt = q ? (lastAt.get(q) ?? -1) : -1;
    if (qAt === -1 || sharedLine.has(base[next].line)) {
      plan.skipped.push({
        line: c.line,
        reason:
          'a converted tool result that could not be placed on the chain: it stays beside it and is not loaded on resume',
      });
      continue;
    }
    set(i, qAt, `a converted tool result placed where its turn ends, before line ${base[next].line}`);
    set(
      next,
      i,
      `continues from line ${c.line} (a converted tool result placed where its turn ends) instead of line ${base[qAt].line}`,
    );
    if (!chain.spliceIn(i, next, qAt, childrenOf.get(e.uuid!) ?? [])) chain = rebuilt();
  }
}

/** The changes that link every broken parent of the active context. */
function planLinks(entries: Entry[], built: ReturnType<typeof buildChainWithTables>): Omit<RepairPlan, 'converted'> {
  const { region } = activeRegion(entries, built);
  const bridges = built.tables.bridges ?? new Map<number, number>();
  // Each uuid's last entry (`at`) and first (`firstAt`: the same map when no uuid is written twice).
  const at = new Map<string, number>();
  let written = 0;
  for (let i = 0; i < entries.length; i++)
    if (entries[i].uuid) {
      at.set(entries[i].uuid!, i);
      written++;
    }
  const callAt = new Map<string, number>();
  for (const i of region)
    for (const b of entries[i].blocks)
      if (b.type === 'tool_use' && b.toolId && !callAt.has(b.toolId)) callAt.set(b.toolId, i);
  const sharedLine = sharedLines(entries);
  let firstAt = at;
  if (written !== at.size) {
    firstAt = new Map<string, number>();
    for (let i = entries.length - 1; i >= 0; i--) if (entries[i].uuid) firstAt.set(entries[i].uuid!, i);
  }
  // Each entry's position in the region (-1: not in it).
  const regionPos = new Int32Array(entries.length).fill(-1);
  region.forEach((i, k) => (regionPos[i] = k));
  // A line written again further on stands where its first copy stood (its parent is that copy's parent): the uuid is
  // linked to in the first copy's place, never in the later one's (that would lead back and leave out all between).
  // A copy written right after its first is an ordinary line.
  const outOfPlace = (c: number) => {
    const f = firstAt.get(entries[c].uuid!)!;
    return f !== c && (regionPos[c] === -1 ? 0 : regionPos[c]) - regionPos[f] !== 1;
  };
  const linkable = (c: number) => {
    const last = at.get(entries[c].uuid!)!;
    return last === c ? !outOfPlace(c) : firstAt.get(entries[c].uuid!) === c && outOfPlace(last);
  };

  const broken = region.filter((i) => {
    const p = entries[i].parentUuid;
    if (!p) return false;
    const k = at.get(p);
    return k === undefined || (k < region[0] && bridges.get(i) === -1);
  });
  const parentOf = new Map<number, string | null>();
  const parentUuidOf = (i: number) => (parentOf.has(i) ? parentOf.get(i)! : (entries[i].parentUuid ?? null));
  // Tool results whose call is not in the file: they cannot be on a valid chain, so what continues from them skips them.
  const stepped = new Set(
    region.filter((i) => {
      const ids = resultIds(entries[i]);
      return ids.length > 0 && ids.some((id) => !callAt.has(id));
    }),
  );
  const brokenSet = new Set(broken);
  // Broken entries on a line of several joined objects cannot be edited alone: what continues from them is routed around.
  const unlinkable = new Set(broken.filter((i) => sharedLine.has(entries[i].line)));
  const work = [...new Set([...broken, ...stepped])].sort((a, b) => a - b);
  const plan: Omit<RepairPlan, 'converted'> = { changes: [], skipped: [] };
  // The entries continuing from each entry: an index of children by parent (the entry a parentUuid names: its uuid's
  // last), made once, and the links made since (`linkedTo`); an entry counts where its parent is now. A set of
  // children for each entry of the region, kept current, was most of the plan's time.
  const allEntries = Array.from(entries, (_, c) => c);
  // The entry each entry's own parentUuid names (-1: none), looked up once.
  const parentInFile = allEntries.map((c) => {
    const p = entries[c].parentUuid;
    return p ? (at.get(p) ?? -1) : -1;
  });
  const childrenAt = childIndex(allEntries, parentInFile, entries.length);
  const linkedTo = new Map<string, number[]>();
  /** The entries of the active context continuing from `uuid` now. */
  const childrenOf = (uuid: string): number[] => {
    const k = at.get(uuid);
    const kids = new Set<number>();
    for (const c of k === undefined ? [] : childrenAt(k))
      if (regionPos[c] !== -1 && parentUuidOf(c) === uuid) kids.add(c);
    for (const c of linkedTo.get(uuid) ?? []) if (parentUuidOf(c) === uuid) kids.add(c);
    return [...kids];
  };

  const parentAt = (c: number): number | undefined => {
    if (!parentOf.has(c)) return parentInFile[c] === -1 ? undefined : parentInFile[c];
    const p = parentOf.get(c);
    return p ? at.get(p) : undefined;
  };
  /** Every entry continuing from entry `x` now (only a uuid's last entry is one a parentUuid leads to). */
  const childrenNow = (x: number): number[] => {
    const u = entries[x].uuid;
    if (u === undefined || at.get(u) !== x) return [];
    const kids: number[] = [];
    for (const c of childrenAt(x)) if (parentAt(c) === x) kids.push(c);
    for (const c of linkedTo.get(u) ?? []) if (parentAt(c) === x) kids.push(c);
    return kids;
  };
  // The latest entry (in file order) among the ancestors of an entry (-1 for one whose parent names nothing; Infinity
  // behind a cycle), remembered, so that the walks below stop at the first ancestor earlier than the entry they look
  // for whose own ancestors are all earlier too, instead of climbing to the root each time. Climbing made repair
  // quadratic in broken links: once a link points forward (a result written before its call), no ancestor is known to
  // be earlier. A link made changes the figure of the entries continuing from the relinked one, and only theirs: those
  // are forgotten, found through the index of children (an entry's figure is remembered only with its parent's).
  const latestMemo = new Float64Array(entries.length).fill(NaN); // NaN: not known
  const latestAncestor = (c: number): number => {
    const path: number[] = [];
    const onPath = new Set<number>();
    let top = -1; // the figure of the entry above the path's last
    for (let x: number | undefined = c; ;) {
      const known = latestMemo[x];
      if (!Number.isNaN(known)) {
        top = known;
        break;
      }
      if (onPath.has(x)) {
        top = Infinity;
        break;
      }
      path.push(x);
      onPath.add(x);
      x = parentAt(x);
      if (x === undefined) break;
    }
    if (top === Infinity) for (const x of path) latestMemo[x] = Infinity;
    else
      for (let k = path.length - 1; k >= 0; k--) {
        const p = parentAt(path[k]);
        top = p === undefined ? -1 : Math.max(p, top);
        latestMemo[path[k]] = top;
      }
    return latestMemo[c];
  };
  const forgetBelow = (i: number) => {
    for (const stack = [i]; stack.length;) {
      const x = stack.pop()!;
      if (Number.isNaN(latestMemo[x])) continue;
      latestMemo[x] = NaN;
      for (const c of childrenNow(x)) stack.push(c);
    }
  };
  /** Whether `from` is `cand` or one of its ancestors. */
  const descends = (cand: number, from: number): boolean => {
    const seen = new Set<number>();
    for (let c: number | undefined = cand; c !== undefined && !seen.has(c);) {
      if (c === from) return true;
      if (c < from && latestAncestor(c) < from) return false; // every ancestor of c is earlier than `from`
      seen.add(c);
      c = parentAt(c);
    }
    return false;
  };
  const previous = (i: number): number => {
    const e = entries[i];
    for (let k = regionPos[i] - 1; k >= 0; k--) {
      const c = region[k];
      const ce = entries[c];
      if (e.sessionId && ce.sessionId && ce.sessionId !== e.sessionId) return -1; // another conversation: never cross into it
      // A uuid written twice resolves to its later line (as Claude Code reads it): only that line can be linked to.
      if (
        stepped.has(c) ||
        unlinkable.has(c) ||
        isSnapshot(ce) ||
        ce.isSidechain !== e.isSidechain ||
        !ce.uuid ||
        ce.uuid === e.uuid ||
        !linkable(c) ||
        descends(c, i)
      )
        continue;
      return c;
    }
    return -1;
  };
  const link = (i: number, to: number, reason: string) => {
    const e = entries[i];
    if (sharedLine.has(e.line)) {
      plan.skipped.push({
        line: e.line,
        reason: 'the line holds several JSON objects joined together; it is left as it is',
      });
      return;
    }
    forgetBelow(i);
    parentOf.set(i, entries[to].uuid!);
    const linked = linkedTo.get(entries[to].uuid!);
    if (linked) linked.push(i);
    else linkedTo.set(entries[to].uuid!, [i]);
    plan.changes.push({
      line: e.line,
      uuid: e.uuid!,
      from: e.parentUuid ?? null,
      to: entries[to].uuid!,
      toLine: entries[to].line,
      reason,
    });
  };

  for (const i of work) {
    const e = entries[i];
    if (stepped.has(i) || unlinkable.has(i)) {
      const ownParent = parentUuidOf(i);
      const own = ownParent ? at.get(ownParent) : undefined;
      const to =
        !brokenSet.has(i) && own !== undefined && !stepped.has(own) && !unlinkable.has(own) ? own : previous(i);
      const children = childrenOf(e.uuid!)
        .filter((c) => c > i)
        .sort((a, b) => a - b);
      if (to === -1 || children.length === 0) {
        plan.skipped.push({
          line: e.line,
          reason: children.length
            ? 'a tool result whose call is missing, with no earlier entry to continue from'
            : 'a tool result whose call is missing, and nothing continues from it',
        });
        continue;
      }
      const why = unlinkable.has(i)
        ? `line ${e.line} holds several JSON objects joined together and cannot be changed alone`
        : `line ${e.line} is a tool result whose call is missing`;
      for (const c of children) link(c, to, `${why}; continues from line ${entries[to].line} instead`);
      // Hung off the same entry, it is a dead-end branch resume does not load (rather than a broken link).
      if (brokenSet.has(i) && !unlinkable.has(i))
        link(i, to, 'a tool result whose call is missing: a dead end beside the chain, not loaded on resume');
      plan.skipped.push({
        line: e.line,
        reason: unlinkable.has(i)
          ? 'several JSON objects joined on one line: left as it is, what follows is routed around it'
          : 'a tool result whose call is missing: left off the chain',
      });
      continue;
    }
    const ids = resultIds(e);
    const call = ids.length ? callAt.get(ids[0]) : undefined;
    const before = previous(i);
    // Its call's line, unless entries after the call on the same line of work come first (then they would hang beside it).
    const toCall =
      call !== undefined &&
      call < i &&
      !descends(call, i) &&
      !(before !== -1 && before !== call && descends(before, call));
    const to = toCall ? call : before;
    if (to === -1) {
      plan.skipped.push({
        line: e.line,
        reason: `parentUuid ${e.parentUuid} names nothing and no earlier entry of this conversation precedes it`,
      });
      continue;
    }
    link(i, to, toCall ? `the line of its tool call` : `the entry before it`);
  }
  return plan;
}

/**
 * The items of `items` by the key of each (`keys`, parallel to it; -1: none), as a function from a key below `size` to
 * its items in their order: two arrays of numbers (counts, then items grouped), not a collection per key.
 */
function childIndex(items: number[], keys: number[], size: number): (key: number) => Int32Array {
  const start = new Int32Array(size + 1);
  for (const k of keys) if (k !== -1) start[k + 1]++;
  for (let k = 0; k < size; k++) start[k + 1] += start[k];
  const filled = start.slice(0, size);
  const grouped = new Int32Array(start[size]);
  keys.forEach((k, j) => {
    if (k !== -1) grouped[filled[k]++] = items[j];
  });
  return (key) => grouped.subarray(start[key], start[key + 1]);
}

/** The index as it would be after `plan` (digests copied where they change). */
export function applyPlan(index: TranscriptIndex, plan: RepairPlan): TranscriptIndex {
  const byLine = new Map(plan.changes.map((c) => [c.line, c]));
  const entries = withConversions(index.entries, plan.converted).map((e) => {
    const c = byLine.get(e.line);
    return c && c.uuid === e.uuid ? { ...e, parentUuid: c.to } : e;
  });
  return { ...index, entries };
}
