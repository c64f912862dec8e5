// `repair`: writes what repairPlan.ts plans (a fork by default, or `out`, or in place after a backup, with the same
// atomic write and lock rules as compaction) and reports it; the changed lines are rewritten alone, every other byte
// of the file is streamed through as it was.
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { chmod, lstat, open, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { diagnose, type DoctorReport } from './doctor';
import { assertTranscript, indexTranscript } from './transcript';
import { acquireLock, commitTemp, makeBackup, sameFile, writeTemp } from './compact/fsutil';
import { resumeCommand } from './compact/resume';
import { CompactError } from './compact/types';
import { convertLine } from './orphanResults';
import { applyPlan, planRepair, type RepairChange, type RepairConversion, type RepairPlan } from './repairPlan';
import { readSessionInfo, sessionIdFromFile } from './session';

export { applyPlan, planRepair, type RepairChange, type RepairConversion, type RepairPlan } from './repairPlan';

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
  converted: RepairConversion[];
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
  const none: RepairResult = { output: null, mode, sessionId: null, resumeCommand: null, backup: null, changes: plan.changes, converted: plan.converted, skipped: plan.skipped, before, after };
  if (plan.changes.length === 0 && plan.converted.length === 0) return none;
  // Never write a repair that makes resume load less than it does now (Claude Code's loader bridges some gaps itself),
  // unless it turns a request the API would reject into a valid one.
  if (after.reachableMessages < before.reachableMessages && (before.apiValid || !after.apiValid)) {
    throw new CompactError('invalid-output', `Repairing ${basename(file)} would make resume load fewer messages (${after.reachableMessages} instead of ${before.reachableMessages} of ${before.totalMessages}), so nothing was written.`);
  }
  if (index.unterminatedTail && index.malformed.some((m) => m.line === index.lineCount)) {
    throw new CompactError('changed-on-disk', `${basename(file)} ends in the middle of a line (is an agent still writing to it?). Nothing was written; repair it when the session is idle.`);
  }
  const lines = new Map<number, { start: number; end: number; text: string }>();
  const entryAt = new Map<string, (typeof index.entries)[number]>();
  for (const e of index.entries) if (!entryAt.has(`${e.line} ${e.uuid}`)) entryAt.set(`${e.line} ${e.uuid}`, e); // the first, as find() would
  const relinks = new Map(plan.changes.map((c) => [c.line, c]));
  for (const c of plan.converted) {
    const e = entryAt.get(`${c.line} ${c.uuid}`)!;
    const text = convertLine(await readRange(file, e.start, e.end), new Set(c.toolIds), relinks.get(c.line)?.to);
    if (text === null) throw new CompactError('invalid-output', `line ${c.line}: its tool results could not be converted; nothing was written.`);
    lines.set(c.line, { start: e.start, end: e.end, text });
  }
  for (const c of plan.changes) {
    if (lines.has(c.line)) continue;
    const e = entryAt.get(`${c.line} ${c.uuid}`)!;
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
