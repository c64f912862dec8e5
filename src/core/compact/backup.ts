// Backups made by in-place compaction, and restoring one (itself undoable: the current
// file is backed up first). The sidecars recorded with a backup (sidecars.ts) come back with it.
import { copyFile, readdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { acquireLock, commitTemp, fsyncPath, makeBackup, tempPathFor } from './fsutil';
import { isBackupSideFile, recordSidecars, restoreSidecars, snapshotSidecars } from './sidecars';

function isBackupName(file: string, name: string): boolean {
  return name.startsWith(`${basename(file)}.bak-`) && !isBackupSideFile(name);
}

/** The transcript a backup belongs to (`<dir>/<name>.bak-<time>` → `<dir>/<name>`), or undefined for any other file. */
export function transcriptOfBackup(path: string): string | undefined {
  const at = path.lastIndexOf('.bak-');
  if (at <= 0) return undefined;
  const file = path.slice(0, at);
  return isBackupName(file, basename(path)) ? file : undefined;
}

/** Backups of `file`, newest first (only transcript backups, not the files recorded beside them). */
export async function listBackups(file: string): Promise<string[]> {
  const names = await readdir(dirname(file));
  return names.filter((n) => isBackupName(file, n)).sort().reverse().map((n) => join(dirname(file), n));
}

/** Restores `backup` over `file` atomically; returns the backup made of the replaced file. */
export async function restoreBackup(file: string, backup: string): Promise<string> {
  if (dirname(backup) !== dirname(file) || !isBackupName(file, basename(backup))) {
    throw new Error(`${backup} is not a backup of ${file}`);
  }
  const lock = await acquireLock(file);
  try {
    const before = await snapshotSidecars(file);
    const safety = await makeBackup(file);
    // So that undoing the restore (restoring `safety`) brings back today's state file too.
    await recordSidecars(file, safety, before);
    const newer = (await listBackups(file)).filter((b) => basename(b) > basename(backup) && b !== safety);
    const tmp = tempPathFor(file);
    await copyFile(backup, tmp);
    await fsyncPath(tmp);
    await commitTemp(tmp, file);
    await restoreSidecars(file, backup, newer);
    return safety;
  } finally {
    await lock.release();
  }
}
