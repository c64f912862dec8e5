// Backups: a copy of a transcript made whole before it is replaced (`<file>.bak-<time>`), and its manifest, written
// last (`<backup>.manifest.json`: the backup's size and sha256, and the sidecars recorded with it), so that a backup
// without one is known not to be whole and is never restored. Files recorded beside a backup are named
// `<backup><suffix>`; what they mean for a compaction's sidecars is core/compact/sidecars.ts's business.
import { chmod, link, lstat, open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { createHash } from 'node:crypto';
import { CompactError } from '../errors';
import { fsyncDir, newTally, tallied, writeFailure, writeFileAtomic, writeTemp } from './atomic';
import { fileChunks, fitName, openSidecar, readSidecar } from './sidecarFiles';

/** Room for a backup's time stamp and collision counter: `20260101-120000-000-50`. */
const BACKUP_STAMP_BYTES = 22;

/** Every backup of `file` is named this (a folder-less name) followed by its time stamp. */
export function backupPrefix(file: string): string {
  return fitName(basename(file), '.bak-', BACKUP_STAMP_BYTES);
}

export function backupName(file: string, now = new Date()): string {
  const stamp =
    now.toISOString().replace(/[-:]/g, '').replace('T', '-').replace(/\..*$/, '') +
    `-${String(now.getMilliseconds()).padStart(3, '0')}`;
  return join(dirname(file), `${backupPrefix(file)}${stamp}`);
}

/** A backup as it was made: where, and the size and sha256 of its bytes (what its manifest records). */
export interface BackupMade {
  path: string;
  size: number;
  sha256: string;
}

/**
 * Copies `file` to a new backup: written under a temporary name, hashed on the way and fsynced, and only then given
 * its backup name (a hard link, so an existing name is never replaced). A crash leaves at most a temporary file,
 * never a cut-short file under a backup's name. Its manifest (sidecars.ts, `writeBackupManifest`) is the caller's to
 * write, last: a backup without one is not known to be whole and is never restored.
 */
export async function makeBackup(file: string): Promise<BackupMade> {
  const copied = newTally();
  const source = await open(file, 'r');
  let tmp: string;
  try {
    const mode = (await source.stat()).mode & 0o777;
    tmp = await writeTemp(backupName(file), tallied(fileChunks(source), copied));
    // As a copy would: a backup has the transcript's permissions.
    await chmod(tmp, mode).catch(() => undefined);
  } finally {
    await source.close();
  }
  try {
    let target = backupName(file);
    for (let i = 1; ; i++) {
      try {
        await link(tmp, target);
        break;
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'EEXIST' && i <= 50) {
          target = `${backupName(file)}-${i}`;
          continue;
        }
        if (code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP' || code === 'ENOSYS') {
          // No hard links on this file system: a rename, after checking the name is free (the lock on the
          // transcript keeps our own processes from racing for it).
          if (
            await lstat(target).then(
              () => true,
              () => false,
            )
          ) {
            target = `${backupName(file)}-${i}`;
            continue;
          }
          await rename(tmp, target);
          break;
        }
        throw writeFailure(err, target);
      }
    }
    await fsyncDir(dirname(target));
    return { path: target, size: copied.bytes, sha256: copied.hash.digest('hex') };
  } finally {
    await unlink(tmp).catch(() => undefined);
  }
}

/** The sidecars an in-place compaction changed, as recorded with its backup. */
export interface SidecarRecord {
  /** 'saved': the prior state file is at statePath(backup); 'none': there was none. */
  state: 'saved' | 'none';
  toolResultsDirCreated: boolean;
  /** File names (in the tool-results folder) this compaction created. */
  toolResults: string[];
  /** sha256 (hex) of each of them as written; a name without one is never removed. */
  sha256?: Record<string, string>;
}

/**
 * Version 2, written last, once the backup is whole under its name: its size and sha256, and the sidecars recorded
 * with it (null: none were, as for a repair, so a restore leaves them alone). Version 1 (0.1) recorded only the
 * sidecars; such a backup is not known to be whole.
 */
interface Manifest {
  version: 2;
  backup: { size: number; sha256: string };
  sidecars: SidecarRecord | null;
}

/** A manifest as read: `whole` is undefined for a version 1 manifest (it did not record it). */
interface ReadManifest {
  whole?: { size: number; sha256: string };
  sidecars: SidecarRecord | null;
}

/** A manifest names a few hundred files at most. */
const MAX_MANIFEST_BYTES = 16 << 20;

const SIDE_SUFFIXES = ['.manifest.json', '.compactor-state.json'];

/** True for the files recorded beside a backup (not backups themselves). */
export function isBackupSideFile(name: string): boolean {
  return SIDE_SUFFIXES.some((s) => name.endsWith(s));
}

/** A file recorded beside `backup`: `<backup><suffix>` (a state file copy is `statePath(backup)`, the same name). */
function sideFilePath(backup: string, suffix: string): string {
  return join(dirname(backup), fitName(basename(backup), suffix));
}

export function manifestPath(backup: string): string {
  return sideFilePath(backup, '.manifest.json');
}

/** Writes the manifest of a whole backup: the last file of a backup, so that one without it is known not to be whole. */
export async function writeBackupManifest(made: BackupMade, sidecars: SidecarRecord | null): Promise<void> {
  const manifest: Manifest = { version: 2, backup: { size: made.size, sha256: made.sha256 }, sidecars };
  await writeFileAtomic(manifestPath(made.path), JSON.stringify(manifest, null, 1) + '\n');
}

/** Removes a backup and the files recorded beside it (a failed operation's own backup). */
export async function removeBackup(backup: string): Promise<void> {
  for (const p of [...SIDE_SUFFIXES.map((suffix) => sideFilePath(backup, suffix)), backup])
    await unlink(p).catch(() => undefined);
}

/** A file name that stays in its folder. */
const isPlainName = (n: string) => n.length > 0 && n !== '.' && n !== '..' && !/[\\/\0]/.test(n);

function checkSidecarRecord(m: Partial<SidecarRecord> | null | undefined): m is SidecarRecord {
  if (!m || typeof m !== 'object') return false;
  if ((m.state !== 'saved' && m.state !== 'none') || typeof m.toolResultsDirCreated !== 'boolean') return false;
  // Plain names only here; core/compact/sidecars.ts checks they are names a compaction gives its saved results.
  if (!Array.isArray(m.toolResults) || !m.toolResults.every((n) => typeof n === 'string' && isPlainName(n)))
    return false;
  const hashes = m.sha256 ?? {};
  return (
    typeof hashes === 'object' &&
    hashes !== null &&
    Object.values(hashes).every((h) => typeof h === 'string' && /^[0-9a-f]{64}$/.test(h))
  );
}

export async function readManifest(backup: string): Promise<ReadManifest | null> {
  const path = manifestPath(backup);
  const bytes = await readSidecar(path, MAX_MANIFEST_BYTES);
  if (!bytes) return null;
  const bad = () =>
    new CompactError(
      'bad-backup',
      `${path}: not a backup manifest Agent Compactor wrote, so ${basename(backup)} is not known to be whole; nothing was changed`,
    );
  let m: { version?: unknown; backup?: { size?: unknown; sha256?: unknown }; sidecars?: unknown };
  try {
    m = JSON.parse(bytes.toString('utf8')) as typeof m;
  } catch {
    throw bad();
  }
  if (m?.version === 1) {
    if (!checkSidecarRecord(m as Partial<SidecarRecord>)) throw bad();
    return { sidecars: m as unknown as SidecarRecord };
  }
  if (m?.version !== 2) throw bad();
  const size = m.backup?.size;
  const sha256 = m.backup?.sha256;
  if (
    !Number.isSafeInteger(size) ||
    (size as number) < 0 ||
    typeof sha256 !== 'string' ||
    !/^[0-9a-f]{64}$/.test(sha256)
  )
    throw bad();
  if (m.sidecars !== null && !checkSidecarRecord(m.sidecars)) throw bad();
  return { whole: { size: size as number, sha256 }, sidecars: m.sidecars };
}

/**
 * The manifest of a backup that can be restored: the size and sha256 it recorded when the backup was made whole, and
 * the sidecars recorded with it. Refuses ('bad-backup', with the reason) a backup without a manifest (cut short by a
 * crash, or made by 0.1) or one whose manifest does not say.
 */
export async function wholeManifest(
  backup: string,
): Promise<{ whole: { size: number; sha256: string }; sidecars: SidecarRecord | null }> {
  const m = await readManifest(backup);
  const name = basename(backup);
  if (!m)
    throw new CompactError(
      'bad-backup',
      `${name} has no manifest, so it is not known to be whole (a backup cut short by a crash, or one made by an older version); nothing was changed. If you know it is whole, copy it over the session yourself`,
    );
  if (!m.whole)
    throw new CompactError(
      'bad-backup',
      `${name} was made by an older version that did not record its size and hash, so it is not known to be whole; nothing was changed. If you know it is whole, copy it over the session yourself`,
    );
  return { whole: m.whole, sidecars: m.sidecars };
}

/**
 * Why `backup` cannot be restored, or null when it can: its manifest must say it is whole and its size must be the
 * one recorded; `hash` also reads it whole to compare its sha256 (a restore does that as it copies).
 */
export async function backupFault(backup: string, hash = false): Promise<string | null> {
  try {
    const want = (await wholeManifest(backup)).whole;
    const opened = await openSidecar(backup);
    if (!opened) return `${basename(backup)} is gone`;
    try {
      if (opened.size !== want.size)
        return `${basename(backup)} holds ${opened.size} bytes, not the ${want.size} its manifest recorded (cut short or changed since)`;
      if (!hash) return null;
      const h = createHash('sha256');
      for await (const chunk of fileChunks(opened.fh)) h.update(chunk);
      if (h.digest('hex') !== want.sha256) return `${basename(backup)} changed since it was made (its sha256 differs)`;
    } finally {
      await opened.fh.close();
    }
    return null;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}
