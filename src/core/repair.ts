// Repairs broken parent links so that `claude --resume` loads the whole active context again: each entry whose
// parentUuid names nothing is linked to the entry before it on the same line of work (a tool result to the line of
// its call), a tool result whose call is gone is stepped over, and nothing else changes: every other line is copied
// byte for byte, and a changed line differs only in its parentUuid value.
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { chmod, lstat, open, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { buildChainWithTables } from './chain';
import { activeRegion, diagnose, type DoctorReport } from './doctor';
import type { Entry } from './entries';
import { assertTranscript, indexTranscript, type TranscriptIndex } from './transcript';
import { acquireLock, commitTemp, makeBackup, sameFile, writeTemp } from './compact/fsutil';
import { resumeCommand } from './compact/resume';
import { CompactError } from './compact/types';
import { readSessionInfo, sessionIdFromFile } from './session';

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

export interface RepairPlan {
  changes: RepairChange[];
  /** Lines left as they are, and why. */
  skipped: { line: number; reason: string }[];
}

const isSnapshot = (e: Entry) => e.kind === 'system' && e.subtype === 'file_snapshot';

function resultIds(e: Entry): string[] {
  return e.kind === 'user' ? e.blocks.filter((b) => b.type === 'tool_result' && b.toolId).map((b) => b.toolId!) : [];
}

/** The changes that link every broken parent of the active context; pure (entry digests only). */
export function planRepair(entries: Entry[]): RepairPlan {
  const built = buildChainWithTables(entries, 'claude-code');
  const { region } = activeRegion(entries, built);
  const bridges = built.tables.bridges ?? new Map<number, number>();
  const at = new Map<string, number>();
  for (let i = 0; i < entries.length; i++) if (entries[i].uuid) at.set(entries[i].uuid!, i);
  const callAt = new Map<string, number>();
  for (const i of region) for (const b of entries[i].blocks) if (b.type === 'tool_use' && b.toolId) callAt.set(b.toolId, i);
  const sharedLine = new Set<number>();
  for (let i = 1; i < entries.length; i++) if (entries[i].line === entries[i - 1].line) sharedLine.add(entries[i].line);

  const broken = region.filter((i) => {
    const p = entries[i].parentUuid;
    if (!p) return false;
    const k = at.get(p);
    return k === undefined || (k < region[0] && bridges.get(i) === -1);
  });
  const parentOf = new Map<number, string | null>();
  const parentUuidOf = (i: number) => (parentOf.has(i) ? parentOf.get(i)! : entries[i].parentUuid ?? null);
  // Tool results whose call is not in the file: they cannot be on a valid chain, so what continues from them skips them.
  const stepped = new Set(region.filter((i) => {
    const ids = resultIds(entries[i]);
    return ids.length > 0 && ids.some((id) => !((callAt.get(id) ?? Infinity) < i));
  }));
  const brokenSet = new Set(broken);
  // Broken entries on a line of several joined objects cannot be edited alone: what continues from them is routed around.
  const unlinkable = new Set(broken.filter((i) => sharedLine.has(entries[i].line)));
  const work = [...new Set([...broken, ...stepped])].sort((a, b) => a - b);
  const plan: RepairPlan = { changes: [], skipped: [] };

  const descends = (cand: number, from: number): boolean => {
    const seen = new Set<number>();
    for (let c: number | undefined = cand; c !== undefined && !seen.has(c); ) {
      if (c === from) return true;
      seen.add(c);
      const p = parentUuidOf(c);
      c = p ? at.get(p) : undefined;
    }
    return false;
  };
  const previous = (i: number): number => {
    const e = entries[i];
    for (let k = region.indexOf(i) - 1; k >= 0; k--) {
      const c = region[k];
      const ce = entries[c];
      if (e.sessionId && ce.sessionId && ce.sessionId !== e.sessionId) return -1; // another conversation: never cross into it
      // A uuid written twice resolves to its later line (as Claude Code reads it): only that line can be linked to.
      if (stepped.has(c) || unlinkable.has(c) || isSnapshot(ce) || ce.isSidechain !== e.isSidechain || !ce.uuid || ce.uuid === e.uuid || at.get(ce.uuid) !== c || descends(c, i)) continue;
      return c;
    }
    return -1;
  };
  const link = (i: number, to: number, reason: string) => {
    const e = entries[i];
    if (sharedLine.has(e.line)) {
      plan.skipped.push({ line: e.line, reason: 'the line holds several JSON objects joined together; it is left as it is' });
      return;
    }
    parentOf.set(i, entries[to].uuid!);
    plan.changes.push({ line: e.line, uuid: e.uuid!, from: e.parentUuid ?? null, to: entries[to].uuid!, toLine: entries[to].line, reason });
  };

  for (const i of work) {
    const e = entries[i];
    if (stepped.has(i) || unlinkable.has(i)) {
      const ownParent = parentUuidOf(i);
      const own = ownParent ? at.get(ownParent) : undefined;
      const to = !brokenSet.has(i) && own !== undefined && !stepped.has(own) && !unlinkable.has(own) ? own : previous(i);
      const children = region.filter((c) => c > i && parentUuidOf(c) === e.uuid);
      if (to === -1 || children.length === 0) {
        plan.skipped.push({ line: e.line, reason: children.length ? 'a tool result whose call is missing, with no earlier entry to continue from' : 'a tool result whose call is missing, and nothing continues from it' });
        continue;
      }
      const why = unlinkable.has(i) ? `line ${e.line} holds several JSON objects joined together and cannot be changed alone` : `line ${e.line} is a tool result whose call is missing`;
      for (const c of children) link(c, to, `${why}; continues from line ${entries[to].line} instead`);
      // Hung off the same entry, it is a dead-end branch resume does not load (rather than a broken link).
      if (brokenSet.has(i) && !unlinkable.has(i)) link(i, to, 'a tool result whose call is missing: a dead end beside the chain, not loaded on resume');
      plan.skipped.push({ line: e.line, reason: unlinkable.has(i) ? 'several JSON objects joined on one line: left as it is, what follows is routed around it' : 'a tool result whose call is missing: left off the chain' });
      continue;
    }
    const ids = resultIds(e);
    const call = ids.length ? callAt.get(ids[0]) : undefined;
    const to = call !== undefined && call < i && !descends(call, i) ? call : previous(i);
    if (to === -1) {
      plan.skipped.push({ line: e.line, reason: `parentUuid ${e.parentUuid} names nothing and no earlier entry of this conversation precedes it` });
      continue;
    }
    link(i, to, call === to ? `the line of its tool call` : `the entry before it`);
  }
  return plan;
}

/** The index as it would be after `plan` (digests copied where they change). */
export function applyPlan(index: TranscriptIndex, plan: RepairPlan): TranscriptIndex {
  const byLine = new Map(plan.changes.map((c) => [c.line, c]));
  const entries = index.entries.map((e) => {
    const c = byLine.get(e.line);
    return c && c.uuid === e.uuid ? { ...e, parentUuid: c.to } : e;
  });
  return { ...index, entries };
}

/** `text` (one JSON line) with its top-level parentUuid value replaced, every other byte as it was; null when that cannot be done exactly. */
export function relinkLine(text: string, from: string | null, to: string): string | null {
  const needle = `"parentUuid":${JSON.stringify(from)}`;
  const k = text.indexOf(needle);
  if (k === -1) return null;
  const out = text.slice(0, k) + `"parentUuid":${JSON.stringify(to)}` + text.slice(k + needle.length);
  try {
    const a = JSON.parse(text) as Record<string, unknown>;
    const b = JSON.parse(out) as Record<string, unknown>;
    if (b.parentUuid !== to) return null;
    b.parentUuid = a.parentUuid;
    return JSON.stringify(a) === JSON.stringify(b) ? out : null;
  } catch {
    return null;
  }
}

export interface RepairOptions {
  /** Output path; by default a fork: a new session `<new-uuid>.jsonl` beside the original. */
  out?: string;
  /** Replace the original after a backup. */
  inPlace?: boolean;
}

export interface RepairResult {
  /** Null when nothing needed repair (nothing was written). */
  output: string | null;
  mode: 'fork' | 'out' | 'in-place';
  sessionId: string | null;
  resumeCommand: string | null;
  backup: string | null;
  changes: RepairChange[];
  skipped: RepairPlan['skipped'];
  before: DoctorReport;
  after: DoctorReport;
}

/** Chunks of the file up to `size`, with the changed lines' text substituted. */
async function* patched(file: string, lines: Map<number, { start: number; end: number; text: string }>, size: number): AsyncGenerator<Buffer | string> {
  let pos = 0;
  for (const r of [...lines.values()].sort((a, b) => a.start - b.start)) {
    if (r.start > pos) yield* createReadStream(file, { start: pos, end: r.start - 1 }) as AsyncIterable<Buffer>;
    yield r.text;
    pos = r.end;
  }
  if (size > pos) yield* createReadStream(file, { start: pos, end: size - 1 }) as AsyncIterable<Buffer>;
}

async function readRange(file: string, start: number, end: number): Promise<string> {
  const fh = await open(file, 'r');
  try {
    const buf = Buffer.alloc(end - start);
    let got = 0;
    while (got < buf.length) {
      const { bytesRead } = await fh.read(buf, got, buf.length - got, start + got);
      if (bytesRead === 0) throw new CompactError('changed-on-disk', `${basename(file)} shrank while it was being read; nothing was written.`);
      got += bytesRead;
    }
    return buf.toString('utf8');
  } finally {
    await fh.close();
  }
}

/** Diagnoses `file`, repairs its broken links into a fork (or `out`, or in place after a backup), and reports what changed. */
export async function repairFile(file: string, options: RepairOptions = {}): Promise<RepairResult> {
  file = resolve(file);
  const index = await indexTranscript(file);
  assertTranscript(index);
  const before = diagnose(index);
  const plan = planRepair(index.entries);
  const after = diagnose(applyPlan(index, plan));
  const mode: RepairResult['mode'] = options.inPlace ? 'in-place' : options.out !== undefined ? 'out' : 'fork';
  const none: RepairResult = { output: null, mode, sessionId: null, resumeCommand: null, backup: null, changes: plan.changes, skipped: plan.skipped, before, after };
  if (plan.changes.length === 0) return none;
  // Never write a repair that makes resume load less than it does now (Claude Code's loader bridges some gaps itself),
  // unless it turns a request the API would reject into a valid one.
  if (after.reachableMessages < before.reachableMessages && (before.apiValid || !after.apiValid)) {
    throw new CompactError('invalid-output', `Repairing ${basename(file)} would make resume load fewer messages (${after.reachableMessages} instead of ${before.reachableMessages} of ${before.totalMessages}), so nothing was written.`);
  }
  if (index.unterminatedTail && index.malformed.some((m) => m.line === index.lineCount)) {
    throw new CompactError('changed-on-disk', `${basename(file)} ends in the middle of a line (is an agent still writing to it?). Nothing was written; repair it when the session is idle.`);
  }
  const lines = new Map<number, { start: number; end: number; text: string }>();
  for (const c of plan.changes) {
    const e = index.entries.find((x) => x.line === c.line && x.uuid === c.uuid)!;
    const text = relinkLine(await readRange(file, e.start, e.end), c.from, c.to);
    if (text === null) throw new CompactError('invalid-output', `line ${c.line}: its parentUuid could not be changed without touching anything else; nothing was written.`);
    lines.set(c.line, { start: e.start, end: e.end, text });
  }
  let out: string;
  let sessionId: string | null;
  if (options.inPlace) {
    out = file;
    sessionId = sessionIdFromFile(file);
  } else if (options.out === undefined) {
    sessionId = randomUUID();
    out = join(dirname(file), `${sessionId}.jsonl`);
  } else {
    out = resolve(options.out);
    if (await sameFile(out, file)) throw new CompactError('unsafe-path', 'The output would overwrite the original; use in-place mode (it keeps a backup) or another output path.');
    if (await lstat(out).catch(() => null)) throw new CompactError('exists', `${out} already exists; nothing was written.`);
    sessionId = sessionIdFromFile(out);
  }
  const lock = options.inPlace ? await acquireLock(file) : null;
  let backup: string | null = null;
  try {
    const tmp = await writeTemp(out, patched(file, lines, index.size));
    try {
      await chmod(tmp, (await stat(file)).mode & 0o777);
      const now = await stat(file);
      if (now.size !== index.size || now.mtimeMs !== index.mtimeMs) {
        throw new CompactError('changed-on-disk', `${basename(file)} changed while it was being repaired (is an agent still writing to it?). Nothing was written; repair it when the session is idle.`);
      }
      if (options.inPlace) backup = await makeBackup(file);
      else if (await lstat(out).catch(() => null)) throw new CompactError('exists', `${out} appeared while repairing; nothing was written.`);
      await commitTemp(tmp, out);
    } catch (err) {
      await unlink(tmp).catch(() => undefined);
      throw err;
    }
  } finally {
    await lock?.release();
  }
  const { cwd } = await readSessionInfo(file, { projectFolder: basename(dirname(file)) });
  return { ...none, output: out, sessionId, resumeCommand: resumeCommand(cwd, sessionId), backup };
}
