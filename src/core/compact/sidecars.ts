// The sidecars an in-place compaction changes beside the transcript (its state file, its saved
// tool results), recorded with the backup it makes, so that restoring that backup brings them
// back as they were instead of leaving decisions about content that is no longer there.
//
//   <file>.bak-<stamp>                        the transcript before the compaction
//   <file>.bak-<stamp>.compactor-state.json   the state file before it (statePath of the backup)
//   <file>.bak-<stamp>.manifest.json          whether there was one, and the saved results it created
import { createReadStream } from 'node:fs';
import { readFile, readdir, rmdir, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from './fsutil';
import { statePath, toolResultsDir } from './state';

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
}

const SIDE_SUFFIXES = ['.manifest.json', '.compactor-state.json'];

/** True for the files recorded beside a backup (not backups themselves). */
export function isBackupSideFile(name: string): boolean {
  return SIDE_SUFFIXES.some((s) => name.endsWith(s));
}

export function manifestPath(backup: string): string {
  return `${backup}.manifest.json`;
}

async function names(dir: string): Promise<Set<string> | null> {
  try {
    return new Set(await readdir(dir));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return null;
    throw err;
  }
}

/** What the sidecars of `file` are now (taken before a compaction writes any). */
export async function snapshotSidecars(file: string): Promise<SidecarSnapshot> {
  const state = await readFile(statePath(file)).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return null;
    throw err;
  });
  const existing = await names(toolResultsDir(file));
  return { state, toolDirExisted: existing !== null, toolResults: existing ?? new Set() };
}

/** Records, beside `backup`, the sidecars `before` and which saved results appeared since. */
export async function recordSidecars(file: string, backup: string, before: SidecarSnapshot): Promise<void> {
  if (before.state) await writeFileAtomic(statePath(backup), before.state);
  const current = await names(toolResultsDir(file));
  const now = current ?? new Set<string>();
  const manifest: Manifest = {
    version: 1,
    state: before.state ? 'saved' : 'none',
    toolResultsDirCreated: !before.toolDirExisted && current !== null,
    toolResults: [...now].filter((n) => !before.toolResults.has(n)).sort(),
  };
  await writeFileAtomic(manifestPath(backup), JSON.stringify(manifest, null, 1) + '\n');
}

async function readManifest(backup: string): Promise<Manifest | null> {
  let text: string;
  try {
    text = await readFile(manifestPath(backup), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const m = JSON.parse(text) as Manifest;
  if (m?.version !== 1 || (m.state !== 'saved' && m.state !== 'none') || !Array.isArray(m.toolResults)) {
    throw new Error(`${manifestPath(backup)}: not a backup manifest (version 1)`);
  }
  return m;
}

/** Which of `needles` occur in the file, read in chunks (transcripts can be large). */
async function mentioned(path: string, needles: string[]): Promise<Set<string>> {
  const found = new Set<string>();
  if (!needles.length) return found;
  const overlap = Math.max(...needles.map((n) => Buffer.byteLength(n)));
  let tail = '';
  for await (const chunk of createReadStream(path, { encoding: 'latin1' })) {
    // latin1 keeps one char per byte, so the ASCII names match whatever the encoding.
    const text = tail + (chunk as string);
    for (const n of needles) if (!found.has(n) && text.includes(n)) found.add(n);
    tail = text.slice(-overlap);
  }
  return found;
}

/**
 * After `backup` was copied over `file`: puts the state file back as it was when the backup was
 * taken (or removes it), and removes saved tool results created by that compaction or a later
 * one (`newer`: the later backups) that neither the restored transcript nor its state names.
 * A file no manifest lists is never removed. Backups without a manifest (older versions) leave
 * the sidecars alone: what they were is unknown.
 */
export async function restoreSidecars(file: string, backup: string, newer: string[]): Promise<void> {
  const own = await readManifest(backup);
  if (!own) return;
  if (own.state === 'saved') await writeFileAtomic(statePath(file), await readFile(statePath(backup)));
  else await unlink(statePath(file)).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENOENT') throw err;
  });

  const listed = new Set(own.toolResults);
  for (const b of newer) for (const n of (await readManifest(b).catch(() => null))?.toolResults ?? []) listed.add(n);
  const dir = toolResultsDir(file);
  const present = (await names(dir)) ?? new Set<string>();
  const candidates = [...listed].filter((n) => present.has(n) && !n.includes('/') && !n.includes('\\'));
  const keep = await mentioned(file, candidates);
  if (own.state === 'saved') for (const n of await mentioned(statePath(file), candidates)) keep.add(n);
  for (const n of candidates) if (!keep.has(n)) await unlink(join(dir, n));
  if (own.toolResultsDirCreated && (await stat(dir).catch(() => null))?.isDirectory() && ((await names(dir))?.size ?? 1) === 0) {
    await rmdir(dir).catch(() => undefined);
  }
}
