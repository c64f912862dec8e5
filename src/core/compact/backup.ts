// Backups made by in-place compaction, and restoring one (itself undoable: the current
// file is backed up first). The sidecars recorded with a backup (sidecars.ts) come back with it.
// A backup is read like every file beside a transcript (sidecarFiles.ts): only a regular file, never
// through a link (a planted `<file>.bak-…` link must not copy, say, a private key over the transcript).
import { chmod, readdir, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fileChunks, openSidecar } from '../sidecarFiles';
import { acquireLock, backupPrefix, commitTemp, makeBackup, writeTemp } from './fsutil';
import {
  applySidecarRestore,
  isBackupSideFile,
  planSidecarRestore,
  recordSidecars,
  snapshotSidecars,
} from './sidecars';
import { CompactError } from './types';

function isBackupName(file: string, name: string): boolean {
  return name.startsWith(backupPrefix(file)) && !isBackupSideFile(name);
}

/**
 * The transcript a backup belongs to (`<dir>/<name>.bak-<time>` → `<dir>/<name>`), or undefined for any other file
 * (and for backups of transcripts whose name is too long to keep whole in a backup's, see `backupPrefix`).
 */
export function transcriptOfBackup(path: string): string | undefined {
  const at = path.lastIndexOf('.bak-');
  if (at <= 0) return undefined;
  const file = path.slice(0, at);
  return isBackupName(file, basename(path)) ? file : undefined;
}

/** Backups of `file`, newest first (only transcript backups that are regular files, not the files recorded beside them). */
export async function listBackups(file: string): Promise<string[]> {
  // The transcript's own folder is the user's (it may well be reached through a link); what is in it is checked.
  const entries = await readdir(dirname(file), { withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && isBackupName(file, e.name))
    .map((e) => e.name)
    .sort()
    .reverse()
    .map((n) => join(dirname(file), n));
}

/** Restores `backup` over `file` atomically; returns the backup made of the replaced file. */
export async function restoreBackup(file: string, backup: string): Promise<string> {
  if (dirname(backup) !== dirname(file) || !isBackupName(file, basename(backup))) {
    throw new Error(`${backup} is not a backup of ${file}`);
  }
  const lock = await acquireLock(file);
  try {
    // Everything read and checked first, so a refused backup, manifest or sidecar changes nothing.
    const newer = (await listBackups(file)).filter((b) => basename(b) > basename(backup));
    const sidecars = await planSidecarRestore(file, backup, newer);
    const before = await snapshotSidecars(file);
    const source = await openSidecar(backup);
    if (!source) throw new CompactError('unsafe-path', `${backup} is gone; nothing was changed`);
    let safety: string;
    try {
      safety = await makeBackup(file);
      // So that undoing the restore (restoring `safety`) brings back today's state file too.
      await recordSidecars(file, safety, before);
      const tmp = await writeTemp(file, fileChunks(source.fh));
      try {
        // As a copy would: the restored file has the backup's permissions.
        await chmod(tmp, source.mode & 0o777);
        await commitTemp(tmp, file);
      } catch (err) {
        await unlink(tmp).catch(() => undefined);
        throw err;
      }
    } finally {
      await source.fh.close();
    }
    if (sidecars) await applySidecarRestore(file, sidecars);
    return safety;
  } finally {
    await lock.release();
  }
}
