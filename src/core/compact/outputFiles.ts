// A compaction's own files: the full originals of replaced tool results, the state file, and the output streamed
// after the original's bytes (committed through core/io/commit.ts like every in-place write).
import { lstat, open, rmdir, stat, unlink } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { existsSync } from 'node:fs';
import { createHash } from 'node:crypto';
import type { PlanDetails } from './plan';
import { CompactError, type WrittenSidecars } from './types';
import { assertInside, ensureRealDir, exists, writeFileAtomic } from '../io/atomic';
import { MAX_STATE_BYTES, statePath, safeToolResultName, toolResultsDir, type BudgetState } from './state';
import { ownValue, setOwn } from '../json';
import { readSidecar } from '../io/sidecarFiles';

/**
 * Writes the full original of every result this run replaces by a preview, at the absolute path its preview names.
 * A saved original is never overwritten or shrunk: an identical one is left alone, a different one is refused.
 * Frozen decisions re-apply their stored preview and leave their stored original alone.
 */
export async function saveOriginals(
  file: string,
  details: PlanDetails,
  undo: (() => Promise<unknown>)[],
  record: WrittenSidecars,
): Promise<string | null> {
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
    // Only a regular file can be a saved original; a planted link is replaced by a file, never followed. One of
    // another size differs without being read (a planted one may be gigabytes); one of the same size is read within it.
    const original = Buffer.from(rep.original, 'utf8');
    const priorStat = await lstat(target).catch(() => null);
    if (priorStat?.isFile()) {
      const same =
        priorStat.size === original.length &&
        (await readSidecar(target, original.length).catch(() => null))?.equals(original) === true;
      if (same) continue;
      throw new CompactError(
        'unsafe-path',
        `${target} already holds a different saved tool result; it is never overwritten. Nothing was written; move it aside to compact again.`,
      );
    }
    undo.push(() => unlink(target));
    await writeFileAtomic(target, original);
    record.toolResults.push(target);
    record.toolResultSha256[basename(target)] = createHash('sha256').update(original).digest('hex');
    const written = await stat(target);
    if (written.size !== original.length)
      throw new CompactError('invalid-output', `${target} was not written whole; nothing was written.`);
  }
  return toolDir;
}

/** Notes for previews (new or frozen) whose saved original cannot be found where the preview says it is. */
export function missingSavedOriginals(file: string, details: PlanDetails): string[] {
  const notes: string[] = [];
  for (const d of details.budget.decisions) {
    if (!d.fullTextPath || (d.action !== 'replaced' && d.preview === null)) continue;
    const path = isAbsolute(d.fullTextPath) ? d.fullTextPath : join(dirname(file), d.fullTextPath);
    if (!existsSync(path))
      notes.push(
        `the saved original of tool result ${d.toolUseId} is missing at ${path}; its preview is kept as it was`,
      );
  }
  return notes;
}

/** Undoes a write to `path`: restores its previous bytes, or removes it if it did not exist. */
export async function restorer(path: string): Promise<() => Promise<unknown>> {
  // Read like every file beside a transcript: a planted link is refused, never read (nor written back as a copy).
  const prior = await readSidecar(path, MAX_STATE_BYTES);
  return prior === null ? () => unlink(path) : () => writeFileAtomic(path, prior);
}

export async function* streamOutput(
  file: string,
  size: number,
  appended: Buffer,
  fresh: boolean,
): AsyncGenerator<Buffer | string> {
  if (!fresh) {
    let lastByte = -1;
    // One reused 1 MB buffer: fresh chunk buffers pile up tens of MB before the GC runs. Each chunk is valid until
    // the next one is requested (writeTemp writes it before asking for more).
    const fh = await open(file, 'r');
    try {
      const buf = Buffer.allocUnsafe(Math.min(1 << 20, Math.max(1, size)));
      for (let pos = 0; pos < size;) {
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
    if (ownValue(state.decisions, d.toolUseId)) continue;
    setOwn(
      state.decisions,
      d.toolUseId,
      d.action === 'replaced'
        ? { action: 'replaced', originalChars: d.originalChars, preview: d.preview!, fullTextPath: d.fullTextPath! }
        : { action: 'kept', originalChars: d.originalChars },
    );
  }
  await writeFileAtomic(statePath(out), JSON.stringify(state, null, 1) + '\n');
}
