// Backups made by in-place compaction, and restoring one (itself undoable: the current
// file is backed up first).
import { copyFile, readdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { acquireLock, commitTemp, fsyncPath, makeBackup, tempPathFor } from './fsutil';

export async function listBackups(file: string): Promise<string[]> {
  const prefix = `${basename(file)}.bak-`;
  const names = await readdir(dirname(file));
  return names.filter((n) => n.startsWith(prefix)).sort().reverse().map((n) => join(dirname(file), n));
}

/** Restores `backup` over `file` atomically; returns the backup made of the replaced file. */
export async function restoreBackup(file: string, backup: string): Promise<string> {
  if (dirname(backup) !== dirname(file) || !basename(backup).startsWith(`${basename(file)}.bak-`)) {
    throw new Error(`${backup} is not a backup of ${file}`);
  }
  const lock = await acquireLock(file);
  try {
    const safety = await makeBackup(file);
    const tmp = tempPathFor(file);
    await copyFile(backup, tmp);
    await fsyncPath(tmp);
    await commitTemp(tmp, file);
    return safety;
  } finally {
    await lock.release();
  }
}
