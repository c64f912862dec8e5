// The sidecars an in-place compaction changes beside the transcript (its state file, its saved
// tool results), recorded with the backup it makes, so that restoring that backup brings them
// back as they were instead of leaving decisions about content that is no longer there.
//
//   <file>.bak-<stamp>                        the transcript before the compaction
//   <file>.bak-<stamp>.compactor-state.json   the state file before it (statePath of the backup)
//   <file>.bak-<stamp>.manifest.json          whether there was one, and the saved results it created
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
import { basename, dirname, join } from 'node:path';
import {
  fileChunks,
  fitName,
  hashSidecar,
  isPlainFile,
  listSidecarDir,
  openSidecar,
  readSidecar,
} from '../sidecarFiles';
import { writeFileAtomic } from './fsutil';
import { isSavedResultName, MAX_STATE_BYTES, statePath, toolResultsDir } from './state';
import { CompactError } from './types';

export interface SidecarSnapshot {
  state: Buffer | null;
  toolDirExisted: boolean;
  toolResults: Set<string>;
}

interface Manifest {
  version: 1;
  /** 'saved': the prior state file is at statePath(backup); 'none': there was none. */
  state: 'saved' | 'none';
  toolResultsDirCreated: boolean;
  /** File names (in the tool-results folder) this compaction created. */
  toolResults: string[];
  /** sha256 (hex) of each of them as written; a name without one is never removed. */
  sha256?: Record<string, string>;
}

/** A manifest names a few hundred files at most. */
const MAX_MANIFEST_BYTES = 16 << 20;

const SIDE_SUFFIXES = ['.manifest.json', '.compactor-state.json'];

/** True for the files recorded beside a backup (not backups themselves). */
export function isBackupSideFile(name: string): boolean {
  return SIDE_SUFFIXES.some((s) => name.endsWith(s));
}

export function manifestPath(backup: string): string {
  return join(dirname(backup), fitName(basename(backup), '.manifest.json'));
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

/** Records, beside `backup`, the sidecars `before` and which saved results appeared since (with their hashes). */
export async function recordSidecars(file: string, backup: string, before: SidecarSnapshot): Promise<void> {
  if (before.state) await writeFileAtomic(statePath(backup), before.state);
  const dir = toolResultsDir(file);
  const current = await fileNames(dir);
  const created = [...(current ?? [])].filter((n) => !before.toolResults.has(n) && isSavedResultName(n)).sort();
  const sha256: Record<string, string> = {};
  for (const n of created) {
    const h = await hashSidecar(join(dir, n));
    if (h) sha256[n] = h;
  }
  const manifest: Manifest = {
    version: 1,
    state: before.state ? 'saved' : 'none',
    toolResultsDirCreated: !before.toolDirExisted && current !== null,
    toolResults: created,
    sha256,
  };
  await writeFileAtomic(manifestPath(backup), JSON.stringify(manifest, null, 1) + '\n');
}

async function readManifest(backup: string): Promise<Manifest | null> {
  const path = manifestPath(backup);
  const bytes = await readSidecar(path, MAX_MANIFEST_BYTES);
  if (!bytes) return null;
  const bad = () =>
    new CompactError(
      'unsafe-path',
      `${path}: not a backup manifest Agent Compactor wrote (version 1); move it aside to restore the backup without its sidecars`,
    );
  let m: Manifest;
  try {
    m = JSON.parse(bytes.toString('utf8')) as Manifest;
  } catch {
    throw bad();
  }
  if (
    m?.version !== 1 ||
    (m.state !== 'saved' && m.state !== 'none') ||
    typeof m.toolResultsDirCreated !== 'boolean' ||
    !Array.isArray(m.toolResults)
  )
    throw bad();
  if (!m.toolResults.every((n) => typeof n === 'string' && isSavedResultName(n))) throw bad();
  const hashes = m.sha256 ?? {};
  if (
    typeof hashes !== 'object' ||
    hashes === null ||
    !Object.values(hashes).every((h) => typeof h === 'string' && /^[0-9a-f]{64}$/.test(h))
  )
    throw bad();
  return m;
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
 * can do). A file no manifest lists is never removed. Null for a backup without a manifest (an older version):
 * what the sidecars were is unknown, so they are left alone. Nothing is written.
 */
export async function planSidecarRestore(
  file: string,
  backup: string,
  newer: string[],
): Promise<SidecarRestore | null> {
  const own = await readManifest(backup);
  if (!own) return null;
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
  const note = (m: Manifest | null) => {
    for (const n of m?.toolResults ?? []) if (m?.sha256?.[n]) recorded.set(n, m.sha256[n]);
  };
  note(own);
  for (const b of newer) note(await readManifest(b).catch(() => null));
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
