// `repair`: writes what repairPlan.ts plans (a fork by default, or `out`, or in place after a backup, with the same
// atomic write and lock rules as compaction) and reports it; the changed lines are rewritten alone, every other byte
// of the file is streamed through as it was.
import { randomUUID } from 'node:crypto';
import { chmod, lstat, open, stat, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { diagnose, type DoctorReport } from './doctor';
import { readSessionIndex } from '../inspect';
import type { TranscriptIndex } from '../transcript';
import { acquireLock } from '../io/lock';
import { sameFile, writeTemp } from '../io/atomic';
import { commitOutput } from '../io/commit';
import { resumeCommand } from '../resume';
import { CompactError } from '../errors';
import { convertLine } from '../orphanResults';
import { applyPlan, planRepair, type RepairChange, type RepairConversion, type RepairPlan } from './repairPlan';
import { readSessionInfo, sessionIdFromFile } from '../session';
import { chainLoaderOf, requireCapability } from '../formats/registry';
import { buildChainWithTables } from '../chain';

export { applyPlan, planRepair, type RepairChange, type RepairConversion, type RepairPlan } from './repairPlan';

/** A "parentUuid" key with its value (a JSON string or null), however it is spaced; the value is group 1. */
const PARENT_KEY = /"parentUuid"\s*:\s*("(?:[^"\\]|\\.)*"|null)/g;

/**
 * `text` (one JSON line) with its top-level parentUuid value replaced, every other byte as it was (whatever spacing
 * the writer used); null when that cannot be done exactly. Each occurrence of the key whose value is `from` is tried in
 * turn (one inside a nested object or written twice may come first): the first whose change leaves every other value
 * of the parsed line as it was is the one.
 */
export function relinkLine(text: string, from: string | null, to: string): string | null {
  let before: Record<string, unknown>;
  try {
    before = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return null;
  }
  for (const m of text.matchAll(PARENT_KEY)) {
    let value: unknown;
    try {
      value = JSON.parse(m[1]);
    } catch {
      continue;
    }
    if (value !== from) continue;
    const at = m.index + m[0].length - m[1].length;
    const out = text.slice(0, at) + JSON.stringify(to) + text.slice(at + m[1].length);
    try {
      const after = JSON.parse(out) as Record<string, unknown>;
      if (after.parentUuid !== to) continue;
      after.parentUuid = before.parentUuid;
      if (JSON.stringify(before) === JSON.stringify(after)) return out;
    } catch {
      /* not this occurrence */
    }
  }
  return null;
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
  /** In place: bytes a live agent appended while the file was being replaced, carried over after the repair in the order written. */
  carriedOverBytes: number;
  /** What the user should know about the write (carried-over appends). */
  notes: string[];
  /** Why nothing was written, when repair had nothing it can fix (RepairOutlook.reason). */
  notRepaired: string | null;
  changes: RepairChange[];
  converted: RepairConversion[];
  skipped: RepairPlan['skipped'];
  before: DoctorReport;
  after: DoctorReport;
}

const CHUNK = 1 << 20;

/**
 * The file up to `size` in chunks of about 1 MiB, with the changed lines' text substituted: one handle, and the
 * copied bytes and new lines gathered before each write, since a read and a write per gap between changed lines made
 * the repair of a file with thousands of changes wait on the file system most of the time. Each chunk is valid until
 * the next is asked for (writeTemp writes it first).
 */
async function* patched(
  fh: FileHandle,
  lines: Map<number, { start: number; end: number; text: string }>,
  size: number,
): AsyncGenerator<Buffer> {
  const out = Buffer.allocUnsafe(CHUNK);
  let used = 0;
  async function* copy(from: number, to: number): AsyncGenerator<Buffer> {
    for (let pos = from; pos < to;) {
      if (used === out.length) {
        yield out;
        used = 0;
      }
      const { bytesRead } = await fh.read(out, used, Math.min(out.length - used, to - pos), pos);
      if (bytesRead === 0)
        throw new CompactError(
          'changed-on-disk',
          'the transcript shrank while it was being repaired; nothing was written.',
        );
      pos += bytesRead;
      used += bytesRead;
    }
  }
  function* put(text: string): Generator<Buffer> {
    const bytes = Buffer.from(text, 'utf8');
    if (used + bytes.length > out.length) {
      yield out.subarray(0, used);
      used = 0;
    }
    if (bytes.length > out.length) yield bytes;
    else used += bytes.copy(out, used);
  }
  let pos = 0;
  for (const r of [...lines.values()].sort((a, b) => a.start - b.start)) {
    yield* copy(pos, r.start);
    yield* put(r.text);
    pos = r.end;
  }
  yield* copy(pos, size);
  if (used > 0) yield out.subarray(0, used);
}

/** Reads byte ranges of a file through a window of about 1 MiB (changed lines come mostly in file order). */
function rangeReader(fh: FileHandle, file: string): (start: number, end: number) => Promise<string> {
  let window = Buffer.alloc(0);
  let at = 0;
  return async (start, end) => {
    if (start < at || end > at + window.length) {
      const buf = Buffer.allocUnsafe(Math.max(CHUNK, end - start));
      let got = 0;
      while (got < end - start) {
        const { bytesRead } = await fh.read(buf, got, buf.length - got, start + got);
        if (bytesRead === 0)
          throw new CompactError(
            'changed-on-disk',
            `${basename(file)} shrank while it was being read; nothing was written.`,
          );
        got += bytesRead;
      }
      window = buf.subarray(0, got);
      at = start;
    }
    return window.toString('utf8', start - at, end - at);
  };
}

/** What repair would change in a transcript, what resume would load before and after, and whether repair can help. */
export interface RepairOutlook {
  plan: RepairPlan;
  before: DoctorReport;
  after: DoctorReport;
  /** Repair would write a change that leaves resume no worse off. */
  canRepair: boolean;
  /** Why it cannot, when it cannot (one sentence, no file name). */
  reason: string | null;
}

/**
 * What repair can fix in `index`: the one capability check behind doctor's advice, repair's refusal and exit status,
 * and the extension's offer. Repair mends broken parent links and orphan tool results; a problem it cannot change
 * (a uuid written twice, a dead-end leaf) is not offered for repair.
 */
export function repairOutlook(index: TranscriptIndex, known?: DoctorReport): RepairOutlook {
  // One chain of the file as it is, for the diagnosis and the plan (each built its own).
  const loader = chainLoaderOf(index.format);
  const built = buildChainWithTables(index.entries, loader);
  const before = known ?? diagnose(index, built);
  const plan = planRepair(index.entries, loader, built);
  if (plan.changes.length === 0 && plan.converted.length === 0)
    return {
      plan,
      before,
      after: before,
      canRepair: false,
      reason: 'no broken parent links or orphan tool results in the active context',
    };
  const after = diagnose(applyPlan(index, plan));
  // Never a repair that makes resume load less than it does now (Claude Code's loader bridges some gaps itself),
  // unless it turns a request the API would reject into a valid one.
  if (after.reachableMessages < before.reachableMessages && (before.apiValid || !after.apiValid)) {
    return {
      plan,
      before,
      after,
      canRepair: false,
      reason: `repairing would make resume load fewer messages (${after.reachableMessages} instead of ${before.reachableMessages} of ${before.totalMessages})`,
    };
  }
  return { plan, before, after, canRepair: true, reason: null };
}

/** Whether resume of a transcript so diagnosed still loses or breaks something (an error, or a request the API rejects). */
export function resumeStillBroken(r: DoctorReport): boolean {
  return !r.apiValid || r.problems.some((p) => p.severity === 'error');
}

/** Diagnoses `file`, repairs its broken links into a fork (or `out`, or in place after a backup), and reports what changed. */
export async function repairFile(file: string, options: RepairOptions = {}): Promise<RepairResult> {
  file = resolve(file);
  const index = await readSessionIndex(file);
  requireCapability(index.format, 'repair', basename(file));
  const { plan, before, after, canRepair, reason } = repairOutlook(index);
  const mode: RepairResult['mode'] = options.inPlace ? 'in-place' : options.out !== undefined ? 'out' : 'fork';
  const none: RepairResult = {
    output: null,
    mode,
    sessionId: null,
    resumeCommand: null,
    backup: null,
    carriedOverBytes: 0,
    notes: [],
    notRepaired: reason,
    changes: plan.changes,
    converted: plan.converted,
    skipped: plan.skipped,
    before,
    after,
  };
  if (plan.changes.length === 0 && plan.converted.length === 0) return none;
  if (!canRepair) throw new CompactError('invalid-output', `${basename(file)}: ${reason}, so nothing was written.`);
  if (index.unterminatedTail && index.malformed.some((m) => m.line === index.lineCount)) {
    throw new CompactError(
      'changed-on-disk',
      `${basename(file)} ends in the middle of a line (is an agent still writing to it?). Nothing was written; repair it when the session is idle.`,
    );
  }
  const reader = await open(file, 'r');
  try {
    const lines = await changedLines(reader, file, index, plan);
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
      if (await sameFile(out, file))
        throw new CompactError(
          'unsafe-path',
          'The output would overwrite the original; use in-place mode (it keeps a backup) or another output path.',
        );
      if (await lstat(out).catch(() => null))
        throw new CompactError('exists', `${out} already exists; nothing was written.`);
      sessionId = sessionIdFromFile(out);
    }
    const lock = options.inPlace ? await acquireLock(file) : null;
    const notes: string[] = [];
    let committed: { backup: string | null; carriedOverBytes: number };
    try {
      const tmp = await writeTemp(out, patched(reader, lines, index.size));
      try {
        await chmod(tmp, (await stat(file)).mode & 0o777);
        // The one commit of every in-place write: refuses a file changed since it was read, backs it up, and carries
        // over in order what a live agent appends while it is replaced; a fork or --out must not appear meanwhile.
        committed = await commitOutput(
          {
            file,
            tmp,
            mode: options.inPlace ? 'in-place' : 'fork',
            out,
            readSize: index.size,
            readMtime: index.mtimeMs,
            writer: 'an agent',
            task: 'repair',
            progress: () => undefined,
          },
          notes,
        );
      } catch (err) {
        await unlink(tmp).catch(() => undefined);
        throw err;
      }
    } finally {
      await lock?.release();
    }
    const { cwd } = await readSessionInfo(file, { projectFolder: basename(dirname(file)) });
    return {
      ...none,
      output: out,
      sessionId,
      resumeCommand: resumeCommand(cwd, sessionId, undefined, index.format.id),
      backup: committed.backup,
      carriedOverBytes: committed.carriedOverBytes,
      notes,
    };
  } finally {
    await reader.close();
  }
}

/** The new text of each line the plan changes, with where it is in the file. */
async function changedLines(
  reader: FileHandle,
  file: string,
  index: TranscriptIndex,
  plan: RepairPlan,
): Promise<Map<number, { start: number; end: number; text: string }>> {
  const lines = new Map<number, { start: number; end: number; text: string }>();
  const entryAt = new Map<string, (typeof index.entries)[number]>();
  for (const e of index.entries) if (!entryAt.has(`${e.line} ${e.uuid}`)) entryAt.set(`${e.line} ${e.uuid}`, e); // the first object of a line
  const relinks = new Map(plan.changes.map((c) => [c.line, c]));
  const readRange = rangeReader(reader, file);
  for (const c of plan.converted) {
    const e = entryAt.get(`${c.line} ${c.uuid}`)!;
    const text = convertLine(await readRange(e.start, e.end), new Set(c.toolIds), relinks.get(c.line)?.to);
    if (text === null)
      throw new CompactError(
        'invalid-output',
        `line ${c.line}: its tool results could not be converted; nothing was written.`,
      );
    lines.set(c.line, { start: e.start, end: e.end, text });
  }
  for (const c of plan.changes) {
    if (lines.has(c.line)) continue;
    const e = entryAt.get(`${c.line} ${c.uuid}`)!;
    const text = relinkLine(await readRange(e.start, e.end), c.from, c.to);
    if (text === null)
      throw new CompactError(
        'invalid-output',
        `line ${c.line}: its parentUuid could not be changed without touching anything else; nothing was written.`,
      );
    lines.set(c.line, { start: e.start, end: e.end, text });
  }
  return lines;
}
