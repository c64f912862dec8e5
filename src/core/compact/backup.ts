// Backups made by in-place compaction, and restoring one (itself undoable: the current
// file is backed up first). A backup is restored only whole: as the manifest written last with it says (size, sha256). The sidecars recorded with a backup (sidecars.ts) come back with it.
// A backup is read like every file beside a transcript (sidecarFiles.ts): only a regular file, never
// through a link (a planted `<file>.bak-…` link must not copy, say, a private key over the transcript).
import { chmod, readdir, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { createHash } from 'node:crypto';
import { fileChunks, openSidecar } from '../io/sidecarFiles';
import { commitOutput } from '../io/commit';
import { acquireLock } from '../io/lock';
import { newTally, tallied, writeTemp } from '../io/atomic';
import { applySidecarRestore, planSidecarRestore, recordSidecars, snapshotSidecars } from './sidecars';
import { backupFault, backupPrefix, isBackupSideFile, wholeManifest } from '../io/backups';
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

/** A backup of a transcript, and why it cannot be restored (null: it can). */
export interface BackupState {
  backup: string;
  fault: string | null;
}

/**
 * The backups of `file`, newest first, each with why it cannot be restored (null: it can; read from its manifest and
 * size, its bytes are checked as a restore copies them). The newest whole one is what a restore takes by default
 * (`newestWhole`), in the CLI and the extension alike.
 */
export async function backupStates(file: string): Promise<BackupState[]> {
  const backups = await listBackups(file);
  return Promise.all(backups.map(async (backup) => ({ backup, fault: await backupFault(backup) })));
}

/** The backup a restore takes by default: the newest whole one, and the newer ones passed over (with why). */
export function newestWhole(states: BackupState[]): { backup: string | undefined; skipped: BackupState[] } {
  const at = states.findIndex((s) => s.fault === null);
  return at === -1
    ? { backup: undefined, skipped: states }
    : { backup: states[at].backup, skipped: states.slice(0, at) };
}

/** What a restore did. */
export interface Restored {
  /** The backup made of the replaced content (whole, with its manifest): restoring it undoes the restore. */
  safety: string;
  /** Bytes an agent appended while the restore was being committed, carried over after the restored content. */
  carriedOverBytes: number;
  notes: string[];
}

/** What the file must be for an undo: the bytes the compaction wrote, nothing added since. */
export interface ExpectedContent {
  size: number;
  sha256: string;
  /** Why it must be, for the refusal. */
  what: string;
}

/**
 * Restores `backup` over `file` through the one commit (core/io/commit.ts): the backup is copied to a temporary file and
 * checked against its manifest on the way (a backup not known to be whole is refused, 'bad-backup'); the current
 * content is backed up whole first; a file that changed while this ran is refused ('changed-on-disk', nothing
 * changed) and bytes appended in the last instant are carried over. A failure removes what it made. `expect`
 * (undo): the file must be exactly those bytes, or the restore is refused before anything is written.
 */
export async function restoreBackup(
  file: string,
  backup: string,
  options: { task?: 'restore' | 'undo'; expect?: ExpectedContent } = {},
): Promise<Restored> {
  if (dirname(backup) !== dirname(file) || !isBackupName(file, basename(backup))) {
    throw new Error(`${backup} is not a backup of ${file}`);
  }
  const task = options.task ?? 'restore';
  const lock = await acquireLock(file);
  try {
    const read = await stat(file);
    if (options.expect) await checkContent(file, read.size, options.expect);
    // Everything read and checked first, so a refused backup, manifest or sidecar changes nothing. The backup is
    // opened first: a planted link is refused as such, never followed.
    const source = await openSidecar(backup);
    if (!source) throw new CompactError('bad-backup', `${backup} is gone; nothing was changed`);
    const copied = newTally();
    let tmp: string;
    let want: { size: number; sha256: string };
    let sidecars: Awaited<ReturnType<typeof planSidecarRestore>>;
    let before: Awaited<ReturnType<typeof snapshotSidecars>>;
    try {
      const manifest = await wholeManifest(backup);
      want = manifest.whole;
      const newer = (await listBackups(file)).filter((b) => basename(b) > basename(backup));
      sidecars = await planSidecarRestore(file, backup, manifest.sidecars, newer);
      before = await snapshotSidecars(file);
      tmp = await writeTemp(file, tallied(fileChunks(source.fh), copied));
      // As a copy would: the restored file has the backup's permissions.
      await chmod(tmp, source.mode & 0o777).catch(() => undefined);
    } finally {
      await source.fh.close();
    }
    const notes: string[] = [];
    let committed: { backup: string | null; carriedOverBytes: number };
    try {
      if (copied.bytes !== want.size || copied.hash.digest('hex') !== want.sha256)
        throw new CompactError(
          'bad-backup',
          `${basename(backup)} is not the backup its manifest describes (${copied.bytes === want.size ? 'its sha256 differs' : `${copied.bytes} bytes, not ${want.size}`}): it was cut short or changed since it was made; nothing was changed`,
        );
      committed = await commitOutput(
        {
          file,
          tmp,
          mode: 'in-place',
          out: file,
          readSize: read.size,
          readMtime: read.mtimeMs,
          writer: 'an agent',
          task,
          // So that undoing the restore (restoring the safety backup) brings back today's sidecars too.
          afterBackup: (made) => recordSidecars(file, made, before),
          progress: () => undefined,
        },
        notes,
      );
    } catch (err) {
      await unlink(tmp).catch(() => undefined);
      throw err;
    }
    if (sidecars) await applySidecarRestore(file, sidecars);
    return { safety: committed.backup!, carriedOverBytes: committed.carriedOverBytes, notes };
  } finally {
    await lock.release();
  }
}

/**
 * Refuses (nothing changed) unless `file`, `size` bytes now, is exactly `expect`. Turns an agent added since are
 * named as such: an undo would take them out of the session.
 */
async function checkContent(file: string, size: number, expect: ExpectedContent): Promise<void> {
  const hash = createHash('sha256');
  const opened = await openSidecar(file);
  if (!opened) throw new CompactError('changed-on-disk', `${basename(file)} is gone; nothing was changed`);
  try {
    let got = 0;
    for await (const chunk of fileChunks(opened.fh)) {
      const room = expect.size - got;
      if (room <= 0) break;
      hash.update(room < chunk.length ? chunk.subarray(0, room) : chunk);
      got += Math.min(room, chunk.length);
    }
    const samePrefix = got === expect.size && hash.digest('hex') === expect.sha256;
    if (samePrefix && size === expect.size) return;
    if (samePrefix)
      throw new CompactError(
        'changed-on-disk',
        `${basename(file)} went on after ${expect.what}: ${size - expect.size} bytes were added since (new turns, most likely). Undoing would take them out of the session, so nothing was changed. To keep them, leave it as it is (compact it again if it is too long); to go back anyway, restore the backup explicitly (the current content, new turns included, is kept as a backup).`,
      );
    throw new CompactError(
      'changed-on-disk',
      `${basename(file)} is no longer what ${expect.what} wrote (it was changed or replaced since); nothing was changed. To go back anyway, restore the backup explicitly (the current content is kept as a backup).`,
    );
  } finally {
    await opened.fh.close();
  }
}
