// The sidecars an in-place compaction changes beside the transcript (its state file, its saved
// tool results), recorded with the backup it makes, so that restoring that backup brings them
// back as they were instead of leaving decisions about content that is no longer there.
//
//   <file>.bak-<stamp>                        the transcript before the compaction
//   <file>.bak-<stamp>.compactor-state.json   the state file before it (statePath of the backup)
//   <file>.bak-<stamp>.manifest.json          the backup's size and sha256, whether there was a state file,
//                                             and the saved results the compaction created; written last
//
// A manifest, like the backup, may come from someone else (a shared folder, a checkpoint): restoring never
// trusts it further than this. It can only name saved results: plain names `safeToolResultName` gives, in
// the transcript's own tool-results folder, which must be a real folder. Such a file is removed only while it
// is a regular file whose bytes still hash to the sha256 the manifest recorded when we created it, and
// neither the restored transcript nor its state mentions it. So a planted manifest can at most remove saved
// results that are byte for byte what it names, in the folder it came with: never a file elsewhere, never a
// file someone changed, never one still in use. Every file is read through sidecarFiles (no links, no FIFOs or
// devices, bounded size).
import { rmdir, unlink } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fileChunks, hashSidecar, isPlainFile, listSidecarDir, openSidecar, readSidecar } from '../io/sidecarFiles';
import { writeFileAtomic } from '../io/atomic';
import { manifestPath, readManifest, type SidecarRecord } from '../io/backups';
import { isSavedResultName, MAX_STATE_BYTES, statePath, toolResultsDir } from './state';
import { CompactError } from './types';

export interface SidecarSnapshot {
  state: Buffer | null;
  toolDirExisted: boolean;
  toolResults: Set<string>;
}

/** Names of the regular files in the real folder `dir` (null when there is none). */
async function fileNames(dir: string): Promise<Set<string> | null> {
  const entries = await listSidecarDir(dir);
  return entries && new Set(entries.filter((e) => e.isFile).map((e) => e.name));
}

/** What the sidecars of `file` are now (taken before a compaction writes any). */
export async function snapshotSidecars(file: string): Promise<SidecarSnapshot> {
  const state = await readSidecar(statePath(file), MAX_STATE_BYTES);
  const existing = await fileNames(toolResultsDir(file));
  return { state, toolDirExisted: existing !== null, toolResults: existing ?? new Set() };
}

/**
 * Saves, beside `backup`, the state file `before` held, and returns the record of the sidecars for its manifest:
 * which saved results appeared since (with their hashes).
 */
export async function recordSidecars(file: string, backup: string, before: SidecarSnapshot): Promise<SidecarRecord> {
  if (before.state) await writeFileAtomic(statePath(backup), before.state);
  const dir = toolResultsDir(file);
  const current = await fileNames(dir);
  const created = [...(current ?? [])].filter((n) => !before.toolResults.has(n) && isSavedResultName(n)).sort();
  const sha256: Record<string, string> = {};
  for (const n of created) {
    const h = await hashSidecar(join(dir, n));
    if (h) sha256[n] = h;
  }
  return {
    state: before.state ? 'saved' : 'none',
    toolResultsDirCreated: !before.toolDirExisted && current !== null,
    toolResults: created,
    sha256,
  };
}

/** Which of `needles` occur in the bytes, read in chunks (transcripts can be large). */
export async function mentioned(
  chunks: AsyncIterable<Buffer> | Iterable<Buffer>,
  needles: string[],
): Promise<Set<string>> {
  const found = new Set<string>();
  if (!needles.length) return found;
  const overlap = Math.max(...needles.map((n) => Buffer.byteLength(n)));
  let tail = '';
  for await (const chunk of chunks) {
    // latin1 keeps one char per byte, so the ASCII names match whatever the encoding.
    const text = tail + chunk.toString('latin1');
    for (const n of needles) if (!found.has(n) && text.includes(n)) found.add(n);
    tail = text.slice(-overlap);
  }
  return found;
}

/** What restoring a backup does to the sidecars, read and checked before anything is written. */
export interface SidecarRestore {
  /** The state file to put back; null: remove it. */
  state: Buffer | null;
  /** Saved results to remove (each re-checked to be a regular file right before). */
  remove: string[];
  /** The tool-results folder, removed when empty and created by the restored backup's compaction. */
  dir: string;
  removeDirIfEmpty: boolean;
}

/**
 * What restoring `backup` over `file` does to the sidecars: the state file comes back as it was when the backup
 * was taken (or goes), and saved tool results created by that compaction or a later one (`newer`: the later
 * backups) go when neither the backup nor that state mentions them (see the top of this file for what a manifest
 * can do). A file no manifest lists is never removed. `own` is the sidecar record of the backup's manifest (read
 * once, by the restore); null when none was recorded (a repair's backup): the sidecars are left alone. Nothing is
 * written.
 */
export async function planSidecarRestore(
  file: string,
  backup: string,
  own: SidecarRecord | null,
  newer: string[],
): Promise<SidecarRestore | null> {
  if (!own) return null;
  if (!own.toolResults.every(isSavedResultName))
    throw new CompactError(
      'bad-backup',
      `${manifestPath(backup)}: not a backup manifest Agent Compactor wrote (it names saved tool results by names no compaction gives them); nothing was changed`,
    );
  let state: Buffer | null = null;
  if (own.state === 'saved') {
    state = await readSidecar(statePath(backup), MAX_STATE_BYTES);
    if (!state)
      throw new CompactError(
        'unsafe-path',
        `${statePath(backup)} is missing: the state file recorded with ${basename(backup)} is gone, so its sidecars cannot be restored; nothing was changed`,
      );
  }
  const recorded = new Map<string, string>();
  const note = (m: SidecarRecord | null | undefined) => {
    for (const n of m?.toolResults ?? []) if (m?.sha256?.[n] && isSavedResultName(n)) recorded.set(n, m.sha256[n]);
  };
  note(own);
  for (const b of newer) note((await readManifest(b).catch(() => null))?.sidecars);
  const dir = toolResultsDir(file);
  const present = (await fileNames(dir)) ?? new Set<string>();
  const candidates = [...recorded.keys()].filter((n) => present.has(n));
  const source = await openSidecar(backup);
  if (!source) throw new CompactError('unsafe-path', `${backup} is gone; nothing was changed`);
  let keep: Set<string>;
  try {
    keep = await mentioned(fileChunks(source.fh), candidates);
  } finally {
    await source.fh.close();
  }
  if (state) for (const n of await mentioned([state], candidates)) keep.add(n);
  const remove: string[] = [];
  for (const n of candidates) {
    if (keep.has(n)) continue;
    const path = join(dir, n);
    if ((await hashSidecar(path)) === recorded.get(n)) remove.push(path);
  }
  return { state, remove, dir, removeDirIfEmpty: own.toolResultsDirCreated };
}

/** Carries out `plan` (from planSidecarRestore) after the backup was copied over `file`. */
export async function applySidecarRestore(file: string, plan: SidecarRestore): Promise<void> {
  if (plan.state) await writeFileAtomic(statePath(file), plan.state);
  else
    await unlink(statePath(file)).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
  for (const path of plan.remove) if (await isPlainFile(path)) await unlink(path);
  if (plan.removeDirIfEmpty && (await listSidecarDir(plan.dir).catch(() => null))?.length === 0)
    await rmdir(plan.dir).catch(() => undefined);
}
