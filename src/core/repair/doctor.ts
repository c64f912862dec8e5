// What `claude --resume` would load from a transcript, and the structural problems that make it load less: the chain
// is rebuilt the way Claude Code's loader does it (formats/claude-code/loader.ts), then compared with every
// conversation entry after the last compact boundary. Works on entry digests only (no line is re-read).
import { chainLoaderOf } from '../formats/registry';
import { buildChainWithTables, type Chain, type ChainTables } from '../chain';
import { isCompactBoundary, type Entry } from '../entries';
import { readSessionIndex } from '../inspect';
import type { TranscriptIndex } from '../transcript';

export type ProblemKind =
  | 'dangling-parent'
  | 'leaf-dead-end'
  | 'dead-end-branch'
  | 'sibling-recovered'
  | 'orphan-tool-result'
  | 'unanswered-tool-use'
  | 'duplicate-uuid'
  | 'parent-cycle'
  | 'invalid-request'
  | 'not-resumable'
  | 'malformed-line';

/** error: resume loses or breaks something; warning: resume works around it; info: normal, said for completeness. */
export type Severity = 'error' | 'warning' | 'info';

export interface DoctorProblem {
  kind: ProblemKind;
  severity: Severity;
  /** 1-based line of the file where the problem is. */
  line: number;
  detail: string;
  /** The uuid a dangling parentUuid names, or the duplicated uuid. */
  uuid?: string;
  /** Conversation entries left out of the resumed request because of this problem. */
  unreachable?: number;
}

export interface DoctorReport {
  file: string;
  /** Chain entries (messages, attachments, system and progress lines) of the active context reached from the leaf. */
  reachableEntries: number;
  totalEntries: number;
  /** user and assistant lines of the active context reached from the leaf, and all of them after the last boundary. */
  reachableMessages: number;
  totalMessages: number;
  /** reachableMessages / totalMessages (1 when there are none). */
  reachability: number;
  /** Line resume starts from (the leaf), or null. */
  leafLine: number | null;
  /** Line of the compact boundary the active context starts at, or null. */
  boundaryLine: number | null;
  /** Whether the request rebuilt from the reached entries pairs every tool result with its call and starts with a user message. */
  apiValid: boolean;
  /** No error or warning. */
  healthy: boolean;
  problems: DoctorProblem[];
}

const isMessage = (e: Entry) => e.kind === 'user' || e.kind === 'assistant';

/** The active context's candidates: primary-side chain entries from the last boundary at or before the leaf (all of them when none). */
export function activeRegion(
  entries: Entry[],
  built: { chain: Chain; tables: ChainTables },
): { region: number[]; cut: number } {
  const { chain, tables } = built;
  const primary = tables.primary;
  let cut = -1;
  for (let k = primary.length - 1; k >= 0; k--) {
    const i = primary[k];
    if (i <= chain.leaf && isCompactBoundary(entries[i])) {
      cut = i;
      break;
    }
  }
  return { region: cut === -1 ? primary : primary.filter((i) => i >= cut), cut };
}

export async function doctorFile(file: string): Promise<DoctorReport> {
  return diagnose(await readSessionIndex(file));
}

/** `built`: the chain of `index` as its agent's loader rebuilds it, when the caller has it already. */
export function diagnose(
  index: TranscriptIndex,
  built: { chain: Chain; tables: ChainTables } = buildChainWithTables(index.entries, chainLoaderOf(index.format)),
): DoctorReport {
  const entries = index.entries;
  const loader = chainLoaderOf(index.format);
  const { chain, tables } = built;
  const { region, cut } = activeRegion(entries, built);
  const onMain = flags(entries.length, chain.main);
  const problems: DoctorProblem[] = [];
  // Each uuid's first entry, and for each entry that of its uuid: what a link is followed to, without a lookup by
  // uuid each time it is followed.
  const known = new Map<string, number>();
  const links: Links = { firstOf: new Int32Array(entries.length).fill(-1), parentAt: new Int32Array(entries.length) };
  for (let i = 0; i < entries.length; i++) {
    const u = entries[i].uuid;
    if (u === undefined) continue;
    const first = known.get(u);
    links.firstOf[i] = first ?? i;
    if (first === undefined) known.set(u, i);
    else
      problems.push({
        kind: 'duplicate-uuid',
        severity: 'warning',
        line: entries[i].line,
        uuid: u,
        detail: `uuid ${u} is also on line ${entries[first].line}; Claude Code keeps only the later line, so links to it may lead elsewhere`,
      });
  }
  if (chain.subagentFile)
    problems.push({
      kind: 'not-resumable',
      severity: 'error',
      line: entries[chain.leaf]?.line ?? 1,
      detail: 'every entry is a sidechain (a subagent transcript): Claude Code does not resume it on its own',
    });

  // The entry each parentUuid of the region leads to (its uuid's first entry), -1 where it names none.
  for (const i of region) {
    const p = entries[i].parentUuid;
    links.parentAt[i] = p ? (known.get(p) ?? -1) : -1;
  }
  danglingProblems(entries, tables, region, onMain, links, problems, loader.bridgeGapMs);
  leafProblems(entries, chain, region, onMain, known, problems);
  branchProblems(entries, region, onMain, links, problems);
  const loaded = loadedEntries(chain, region, cut, entries.length);
  const apiValid = pairingProblems(entries, chain, loaded, problems);
  for (const n of chain.notes) {
    const m = /^parentUuid cycle at line (\d+)/.exec(n);
    if (m)
      problems.push({
        kind: 'parent-cycle',
        severity: 'error',
        line: Number(m[1]),
        detail: `${n}: entries behind it are not loaded`,
      });
  }
  const walked = tables.walked;
  for (const i of region) {
    if (!onMain[i] || !walked || walked.has(i)) continue;
    problems.push({
      kind: 'sibling-recovered',
      severity: 'info',
      line: entries[i].line,
      detail: 'a parallel tool call or its result, off the parent chain; Claude Code brings it back after its call',
    });
  }
  for (const m of index.malformed) {
    const tail = index.unterminatedTail && m.line === index.lineCount;
    problems.push({
      kind: 'malformed-line',
      severity: 'info',
      line: m.line,
      detail: `${m.error}; Claude Code skips it${tail ? ' (the last line is unfinished: is the session still being written?)' : ''}`,
    });
  }

  // The preserved segment of Claude Code's own /compact sits before the boundary in the file but is loaded too.
  const preservedCount = loaded.length - region.filter((i) => onMain[i]).length;
  const reachableEntries = loaded.length;
  const totalMessages =
    region.filter((i) => isMessage(entries[i])).length +
    loaded.filter((i) => !inRegionSet(region, i) && isMessage(entries[i])).length;
  const reachableMessages = loaded.filter((i) => isMessage(entries[i])).length;
  problems.sort((a, b) => a.line - b.line);
  return {
    file: index.path,
    reachableEntries,
    totalEntries: region.length + preservedCount,
    reachableMessages,
    totalMessages,
    reachability: totalMessages === 0 ? 1 : reachableMessages / totalMessages,
    leafLine: chain.leaf >= 0 ? entries[chain.leaf].line : null,
    boundaryLine: cut >= 0 ? entries[cut].line : null,
    apiValid,
    healthy: !problems.some((p) => p.severity !== 'info'),
    problems,
  };
}

/**
 * What resume loads, in the order Claude Code sends it: the chain's entries in the region after the last boundary,
 * with that boundary's preserved segment (entries before it in the file) right after its summary.
 */
function loadedEntries(chain: Chain, region: number[], cut: number, size: number): number[] {
  const keep = flags(size, region);
  if (cut !== -1 && chain.boundaries[chain.boundaries.length - 1] === cut) for (const i of chain.preserved) keep[i] = 1;
  return chain.main.filter((i) => keep[i] === 1);
}

/** A flag per entry index below `size`: 1 for those of `indices`. */
function flags(size: number, indices: Iterable<number>): Uint8Array {
  const out = new Uint8Array(size);
  for (const i of indices) if (i < size) out[i] = 1;
  return out;
}

/** Links by entry index (diagnose): each entry's uuid's first entry (-1: none), each region entry's parent's (-1: none). */
interface Links {
  firstOf: Int32Array;
  parentAt: Int32Array;
}

/** True when `i` is in `region` (sorted ascending, file order). */
function inRegionSet(region: number[], i: number): boolean {
  let lo = 0;
  let hi = region.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (region[mid] < i) lo = mid + 1;
    else hi = mid;
  }
  return region[lo] === i;
}

function danglingProblems(
  entries: Entry[],
  tables: ChainTables,
  region: number[],
  onMain: Uint8Array,
  links: Links,
  problems: DoctorProblem[],
  bridgeGapMs: number,
): void {
  const bridges = tables.bridges ?? new Map<number, number>();
  // Entries of the region before the current one that resume leaves out (and how many are messages), counted as the
  // loop goes: counting them again for each broken link made doctor quadratic in broken links.
  let lostEntries = 0;
  let lostMessages = 0;
  for (const i of region) {
    const e = entries[i];
    const lost = { entries: lostEntries, messages: lostMessages };
    if (!onMain[i]) {
      lostEntries++;
      if (isMessage(e)) lostMessages++;
    }
    const p = e.parentUuid;
    if (!p) continue;
    const to = bridges.get(i);
    const at = links.parentAt[i];
    if (at !== -1 && (at >= region[0] || to !== -1)) continue;
    const base =
      at === -1
        ? `parentUuid ${p} names no entry in the file`
        : `parentUuid ${p} names line ${entries[at].line}, before the compact boundary Claude Code reads from`;
    if (to === undefined) {
      problems.push({
        kind: 'dangling-parent',
        severity: 'error',
        line: e.line,
        uuid: p,
        detail: `${base}; this line is itself not loaded on resume (a break nearer the leaf, or a branch resume does not follow)`,
      });
    } else if (to >= 0) {
      problems.push({
        kind: 'dangling-parent',
        severity: 'warning',
        line: e.line,
        uuid: p,
        unreachable: 0,
        detail: `${base}; Claude Code bridges it to line ${entries[to].line} (an entry at most ${bridgeGapMs / 1000} s older), so nothing is lost this time`,
      });
    } else {
      problems.push({
        kind: 'dangling-parent',
        severity: 'error',
        line: e.line,
        uuid: p,
        unreachable: lost.entries,
        detail: `${base}; Claude Code's walk from the leaf stops here: ${lost.messages} messages (${lost.entries} entries) before it are not loaded on resume`,
      });
    }
  }
}

function leafProblems(
  entries: Entry[],
  chain: Chain,
  region: number[],
  onMain: Uint8Array,
  known: Map<string, number>,
  problems: DoctorProblem[],
): void {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i];
    if (e.kind !== 'last-prompt' || !e.leafUuid) continue;
    if (!known.has(e.leafUuid))
      problems.push({
        kind: 'leaf-dead-end',
        severity: 'warning',
        line: e.line,
        uuid: e.leafUuid,
        detail: `last-prompt names leaf ${e.leafUuid}, which is not in the file; Claude Code starts from the last entry instead`,
      });
    break;
  }
  if (chain.leaf < 0) return;
  const later = region.filter((i) => i > chain.leaf && !onMain[i] && isMessage(entries[i]));
  if (later.length) {
    problems.push({
      kind: 'leaf-dead-end',
      severity: 'error',
      line: entries[chain.leaf].line,
      unreachable: later.length,
      detail: `resume starts from this line, but ${later.length} messages written after it (from line ${entries[later[0]].line}) are on another branch and are not loaded`,
    });
  }
}

/**
 * Branches off the loaded chain that hold messages: each tip (an entry nothing continues from) not loaded is followed
 * up to where it leaves the chain. Those that fork from a loaded entry are abandoned branches (an edited or rewound
 * prompt leaves one: normal); those behind a missing parent are reported as dangling parents.
 */
function branchProblems(
  entries: Entry[],
  region: number[],
  onMain: Uint8Array,
  links: Links,
  problems: DoctorProblem[],
): void {
  const { firstOf, parentAt } = links;
  const n = entries.length;
  // The entries something continues from (by their uuid's first entry, as a parentUuid names it), and the region's.
  const hasChild = new Uint8Array(n);
  for (const i of region) if (parentAt[i] !== -1) hasChild[parentAt[i]] = 1;
  const inRegion = flags(n, region);
  // For each entry off the chain already followed: where its branch leaves (the entry it forks from, or NONE or an
  // entry outside the region where it ends, or LOOPS), and how many entries and messages lie from it to there.
  // Tips sharing a long stretch of branch (each parallel tool result behind a break hangs one off it) each followed it
  // to its end, which made doctor quadratic in them. Kept by entry index, as the walk's path is (`onPath`: the tip
  // whose walk last passed an entry).
  const LOOPS = -1;
  const NONE = -2;
  const followed = new Uint8Array(n);
  const exitOf = new Int32Array(n);
  const sizeOf = new Int32Array(n);
  const messagesOf = new Int32Array(n);
  const onPath = new Int32Array(n).fill(-1);
  const path: number[] = [];
  for (const tip of region) {
    const t = entries[tip];
    if (onMain[tip] || (t.uuid && hasChild[firstOf[tip]])) continue;
    path.length = 0;
    let exit: number;
    let size = 0;
    let messages = 0;
    for (let cur = tip; ;) {
      path.push(cur);
      onPath[cur] = tip;
      const next = parentAt[cur];
      if (next === -1 || !inRegion[next] || onMain[next]) {
        exit = next === -1 ? NONE : next;
        break;
      }
      if (onPath[next] === tip) {
        exit = LOOPS;
        break;
      }
      if (followed[next]) {
        exit = exitOf[next];
        size = sizeOf[next];
        messages = messagesOf[next];
        break;
      }
      cur = next;
    }
    for (let k = path.length - 1; k >= 0; k--) {
      const x = path[k];
      size++;
      if (isMessage(entries[x])) messages++;
      followed[x] = 1;
      exitOf[x] = exit;
      sizeOf[x] = size;
      messagesOf[x] = messages;
    }
    if (messages > 0 && exit >= 0 && onMain[exit]) {
      problems.push({
        kind: 'dead-end-branch',
        severity: 'info',
        line: t.line,
        unreachable: size,
        detail: `a branch of ${messages} messages ending here forks from line ${entries[exit].line} and is not loaded on resume (an edited or rewound prompt leaves one)`,
      });
    }
  }
}

/**
 * Tool pairing over the loaded entries (Claude Code orders results after their calls itself, so only membership
 * counts): a result without its call makes the request invalid; a call without a result, except in the last
 * response, is dropped by Claude Code. Returns whether the request would be valid.
 */
function pairingProblems(entries: Entry[], chain: Chain, loaded: number[], problems: DoctorProblem[]): boolean {
  const calls = new Map<string, number>();
  const results = new Set<string>();
  let lastResponse: string | undefined;
  for (const i of loaded) {
    const e = entries[i];
    if (e.kind === 'assistant' && e.messageId) lastResponse = e.messageId;
    for (const b of e.blocks) {
      if (!b.toolId) continue;
      if (b.type === 'tool_use') calls.set(b.toolId, i);
      else if (b.type === 'tool_result') results.add(b.toolId);
    }
  }
  let valid = loaded.length > 0;
  for (const i of loaded) {
    const e = entries[i];
    for (const b of e.blocks) {
      if (!b.toolId) continue;
      if (b.type === 'tool_result' && !calls.has(b.toolId)) {
        valid = false;
        problems.push({
          kind: 'orphan-tool-result',
          severity: 'error',
          line: e.line,
          detail: `tool_result for ${b.toolId} has no tool_use among the loaded entries: the API rejects such a request`,
        });
      } else if (
        b.type === 'tool_use' &&
        !results.has(b.toolId) &&
        !(e.kind === 'assistant' && e.messageId === lastResponse)
      ) {
        problems.push({
          kind: 'unanswered-tool-use',
          severity: 'warning',
          line: e.line,
          detail: `tool_use ${b.toolId}${b.name ? ` (${b.name})` : ''} has no tool_result among the loaded entries; Claude Code drops the call from the request`,
        });
      }
    }
  }
  const first = loaded.map((i) => entries[i]).find(isMessage);
  if (first && first.kind !== 'user') {
    valid = false;
    problems.push({
      kind: 'invalid-request',
      severity: 'error',
      line: first.line,
      detail: 'the resumed request would start with an assistant message',
    });
  }
  if (!first && chain.leaf >= 0 && !chain.subagentFile) {
    valid = false;
    problems.push({
      kind: 'invalid-request',
      severity: 'error',
      line: entries[chain.leaf].line,
      detail: 'no user or assistant message is loaded on resume',
    });
  }
  return valid;
}
