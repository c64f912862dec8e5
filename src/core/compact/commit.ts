// Writing a compaction's files: the full originals of replaced tool results, the state file, the output streamed
// after the original's bytes, and the in-place commit that carries over what a live agent appended meanwhile.
import { appendFile, lstat, open, readFile, rmdir, stat, unlink } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { existsSync } from 'node:fs';
import type { PlanDetails } from './plan';
import { CompactError, type WrittenSidecars } from './types';
import { assertInside, commitTemp, ensureRealDir, makeBackup, writeFileAtomic } from './fsutil';
import { MAX_STATE_BYTES, statePath, safeToolResultName, toolResultsDir, type BudgetState } from './state';
import { readSidecar } from '../sidecarFiles';

/**
 * Writes the full original of every result this run replaces by a preview, at the absolute path its preview names.
 * A saved original is never overwritten or shrunk: an identical one is left alone, a different one is refused.
 * Frozen decisions re-apply their stored preview and leave their stored original alone.
 */
export async function saveOriginals(file: string, details: PlanDetails, undo: (() => Promise<unknown>)[], record: WrittenSidecars): Promise<string | null> {
  const fresh = details.budget.decisions.filter((d) => d.action === 'replaced');
  if (fresh.length === 0) return null;
  const toolDir = toolResultsDir(file);
  const created = !(await exists(toolDir));
  await ensureRealDir(toolDir);
  if (created) undo.push(() => rmdir(toolDir));
  record.toolResultsDirCreated = created;
  for (const d of fresh) {
    const rep = details.budget.replacements.get(d.toolUseId);
    if (!rep) continue;
    const target = assertInside(toolDir, safeToolResultName(d.toolUseId));
    // Only a regular file can be a saved original; a planted link is replaced by a file, never followed.
    const priorStat = await lstat(target).catch(() => null);
    const prior = priorStat?.isFile() ? await readFile(target) : null;
    const original = Buffer.from(rep.original, 'utf8');
    if (prior !== null) {
      if (prior.equals(original)) continue;
      throw new CompactError('unsafe-path', `${target} already holds a different saved tool result; it is never overwritten. Nothing was written; move it aside to compact again.`);
    }
    undo.push(() => unlink(target));
    await writeFileAtomic(target, original);
    record.toolResults.push(target);
    const written = await stat(target);
    if (written.size !== original.length) throw new CompactError('invalid-output', `${target} was not written whole; nothing was written.`);
  }
  return toolDir;
}

/** Notes for previews (new or frozen) whose saved original cannot be found where the preview says it is. */
export function missingSavedOriginals(file: string, details: PlanDetails): string[] {
  const notes: string[] = [];
  for (const d of details.budget.decisions) {
    if (!d.fullTextPath || (d.action !== 'replaced' && d.preview === null)) continue;
    const path = isAbsolute(d.fullTextPath) ? d.fullTextPath : join(dirname(file), d.fullTextPath);
    if (!existsSync(path)) notes.push(`the saved original of tool result ${d.toolUseId} is missing at ${path}; its preview is kept as it was`);
  }
  return notes;
}

/**
 * Replaces `file` by `tmp` (the original's first `readSize` bytes plus the compaction) and carries over whatever a
 * live agent appended to the old file between the last check (before the backup) and the rename: those bytes are
 * whole lines after the original's end, and an agent that appends by path writes to the new file from the rename on.
 */
export async function commitInPlace(file: string, tmp: string, readSize: number): Promise<{ carriedOverBytes: number }> {
  const old = await open(file, 'r');
  try {
    await commitTemp(tmp, file);
    const after = await old.stat();
    const extra = after.size - readSize;
    if (extra <= 0) return { carriedOverBytes: 0 };
    const buf = Buffer.alloc(extra);
    let got = 0;
    while (got < extra) {
      const { bytesRead } = await old.read(buf, got, extra - got, readSize + got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    await appendFile(file, buf.subarray(0, got));
    return { carriedOverBytes: got };
  } finally {
    await old.close();
  }
}

/** Where a compaction's written temporary file goes, and what the original looked like when it was read. */
export interface CommitTarget {
  file: string;
  tmp: string;
  /**
   * In place (the original is replaced, after a backup); a fork (a new file that must not exist yet); or `--out`
   * (checked before the compaction began: a new file, or one `--force` may replace).
   */
  mode: 'in-place' | 'fork' | 'out';
  out: string;
  readSize: number;
  readMtime: number;
  /** Which agent may be writing the session, for the messages ("a live agent", "Codex"). */
  writer: string;
  /** Runs after the backup is made and before the original is replaced (records the sidecars with it). */
  afterBackup?: (backup: string) => Promise<void>;
  progress: (message: string) => void;
}

/**
 * Commits a compaction's temporary file, the one rule for every format: refuse if the original changed since it
 * was read; in place, back it up and replace it, carrying over bytes appended meanwhile (said in `notes`); else
 * create the new file, refusing one that appeared meanwhile. The caller removes `tmp` when this throws.
 */
export async function commitOutput(t: CommitTarget, notes: string[]): Promise<{ backup: string | null; carriedOverBytes: number }> {
  const now = await stat(t.file);
  if (now.size !== t.readSize || now.mtimeMs !== t.readMtime) {
    throw new CompactError('changed-on-disk', `${basename(t.file)} changed while it was being compacted (${now.size - t.readSize >= 0 ? `${now.size - t.readSize} bytes appended` : 'it shrank'}; is ${t.writer} still writing to it?). Nothing was written; run the compaction again when the session is idle.`);
  }
  if (t.mode !== 'in-place') {
    if (t.mode === 'fork' && (await exists(t.out))) throw new CompactError('exists', `${t.out} appeared while compacting; nothing was written.`);
    await commitTemp(t.tmp, t.out);
    return { backup: null, carriedOverBytes: 0 };
  }
  t.progress('Backing up the original…');
  const backup = await makeBackup(t.file);
  await t.afterBackup?.(backup);
  const { carriedOverBytes } = await commitInPlace(t.file, t.tmp, t.readSize);
  if (carriedOverBytes) notes.push(`${carriedOverBytes} bytes ${t.writer} appended while the result was being committed were carried over after it (they continue the history before this compaction; compact again when the session is idle)`);
  return { backup, carriedOverBytes };
}

export async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}

/** Undoes a write to `path`: restores its previous bytes, or removes it if it did not exist. */
export async function restorer(path: string): Promise<() => Promise<unknown>> {
  // Read like every file beside a transcript: a planted link is refused, never read (nor written back as a copy).
  const prior = await readSidecar(path, MAX_STATE_BYTES);
  return prior === null ? () => unlink(path) : () => writeFileAtomic(path, prior);
}


export async function* streamOutput(file: string, size: number, appended: Buffer, fresh: boolean): AsyncGenerator<Buffer | string> {
  if (!fresh) {
    let lastByte = -1;
    // One reused 1 MB buffer: fresh chunk buffers pile up tens of MB before the GC runs. Each chunk is valid until
    // the next one is requested (writeTemp writes it before asking for more).
    const fh = await open(file, 'r');
    try {
      const buf = Buffer.allocUnsafe(Math.min(1 << 20, Math.max(1, size)));
      for (let pos = 0; pos < size; ) {
        const { bytesRead } = await fh.read(buf, 0, Math.min(buf.length, size - pos), pos);
        if (bytesRead === 0) break;
        pos += bytesRead;
        lastByte = buf[bytesRead - 1];
        yield buf.subarray(0, bytesRead);
      }
    } finally {
      await fh.close();
    }
    if (lastByte !== -1 && lastByte !== 10) yield '\n';
  }
  yield appended;
}

export async function saveState(out: string, details: PlanDetails): Promise<void> {
  const state: BudgetState = { version: 1, decisions: { ...details.state.decisions } };
  for (const d of details.budget.decisions) {
    if (state.decisions[d.toolUseId]) continue;
    state.decisions[d.toolUseId] = d.action === 'replaced' ? { action: 'replaced', originalChars: d.originalChars, preview: d.preview!, fullTextPath: d.fullTextPath! } : { action: 'kept', originalChars: d.originalChars };
  }
  await writeFileAtomic(statePath(out), JSON.stringify(state, null, 1) + '\n');
}
