// The one commit every in-place write goes through (compact, repair, restore, undo, each agent's writer): refuse a
// file that changed since it was read; back it up whole (core/io/backups.ts), its manifest written last; replace it by
// the new content, carrying over in the agent's order what a live agent appended meanwhile; remove the backup again
// when the file was not replaced. A new file (a fork, --out) is renamed into place, never over one that appeared.
import { chmod, open, stat, unlink, type FileHandle } from 'node:fs/promises';
import { basename } from 'node:path';
import { CompactError } from '../errors';
import { commitTemp, exists, writeFileAtomic, writeTemp } from './atomic';
import { backupName, makeBackup, removeBackup, writeBackupManifest, type SidecarRecord } from './backups';

/** What a commit wrote: the file, and its size and modification time right after (its own, until someone appends). */
export interface CommittedFile {
  file: string;
  size: number;
  mtimeMs: number;
}

const committedListeners = new Set<(written: CommittedFile) => void>();

/**
 * Calls `listener` with every file a commit writes in this process, so that a host can tell a file it wrote itself
 * (a fork, a restored or compacted session) from one an agent is writing; returns the function that stops it.
 */
export function onCommitted(listener: (written: CommittedFile) => void): () => void {
  committedListeners.add(listener);
  return () => committedListeners.delete(listener);
}

async function tellCommitted(file: string): Promise<void> {
  if (!committedListeners.size) return;
  const st = await stat(file).catch(() => null);
  if (!st) return;
  for (const listener of committedListeners) listener({ file, size: st.size, mtimeMs: st.mtimeMs });
}

/** At most this many replacements of the file in one commit: each later one only places bytes an agent appended during the one before. */
const MAX_COMMIT_ROUNDS = 8;

/** The bytes of `fh` from `from` to its end now. */
async function readTail(fh: FileHandle, from: number): Promise<Buffer> {
  const size = (await fh.stat()).size;
  const buf = Buffer.alloc(Math.max(0, size - from));
  let got = 0;
  while (got < buf.length) {
    const { bytesRead } = await fh.read(buf, got, buf.length - got, from + got);
    if (bytesRead === 0) break;
    got += bytesRead;
  }
  return buf.subarray(0, got);
}

async function appendDurably(path: string, data: Buffer): Promise<void> {
  if (data.length === 0) return;
  const fh = await open(path, 'a');
  try {
    await fh.write(data);
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/**
 * Replaces `file` by `tmp` (the original's first `readSize` bytes, transformed) and carries over, in the order the
 * agent wrote them, whatever a live agent appended meanwhile. An agent appends by path: an append that opens the path
 * before a rename lands in the file replaced, a later one in the new file, so everything the replaced file gained
 * comes before everything the new file gained. Hence: the bytes the original gained after `readSize` are copied into
 * `tmp` just before the rename; those that land in it between that copy and the rename are found after it, and then
 * the new file is replaced once more, by our bytes + those late bytes + what the agent appended to the new file since
 * (appending the late bytes to the new file would put them after lines that continue from them). Each round checks
 * every replaced file again. Never throws once the file is replaced (the caller would undo sidecars of a committed
 * file); when the agent keeps racing every round, the bytes not yet placed are saved beside it and `unplaced` names
 * that file, rather than written out of order.
 */
export async function commitInPlace(
  file: string,
  tmp: string,
  readSize: number,
): Promise<{ carriedOverBytes: number; unplaced: string | null }> {
  let current = await open(file, 'r');
  /** Replaced files still open, and how many of their bytes are in the file now. */
  const replaced: { fh: FileHandle; taken: number }[] = [];
  let known = readSize;
  let carried = 0;
  let committed = false;
  try {
    for (let round = 0; ; round++) {
      if (round > 0) {
        try {
          tmp = await copyPrefix(file, current, known);
        } catch {
          // The file is already replaced: what is not placed yet is kept beside it rather than lost or thrown about.
          return { carriedOverBytes: carried, unplaced: await saveUnplaced(file, replaced).catch(() => null) };
        }
      }
      const late: Buffer[] = [];
      for (const r of replaced) {
        const more = await readTail(r.fh, r.taken);
        r.taken += more.length;
        late.push(more);
      }
      const tail = await readTail(current, known);
      const moved = Buffer.concat([...late, tail]);
      try {
        await appendDurably(tmp, moved);
      } catch (err) {
        if (!committed) throw err;
        await unlink(tmp).catch(() => undefined);
        for (const [k, r] of replaced.entries()) r.taken -= late[k].length; // not placed after all
        return { carriedOverBytes: carried, unplaced: await saveUnplaced(file, replaced).catch(() => null) };
      }
      const [atPath, mine] = await Promise.all([stat(file), current.stat()]);
      if (atPath.ino !== mine.ino || atPath.dev !== mine.dev) {
        // Another program put a file at the path: it is never replaced.
        await unlink(tmp).catch(() => undefined);
        if (!committed)
          throw new CompactError(
            'changed-on-disk',
            `${basename(file)} was replaced by another program while it was being written; nothing was written.`,
          );
        return { carriedOverBytes: carried, unplaced: await saveUnplaced(file, replaced).catch(() => null) };
      }
      // Opened before the rename: what the next round copies from and checks the path against is our file, never one
      // another program may put at the path meanwhile.
      const next = await open(tmp, 'r');
      const written = (await next.stat()).size;
      try {
        await commitTemp(tmp, file);
      } catch (err) {
        await next.close();
        if (!committed) throw err;
        await unlink(tmp).catch(() => undefined);
        for (const [k, r] of replaced.entries()) r.taken -= late[k].length;
        return { carriedOverBytes: carried, unplaced: await saveUnplaced(file, replaced).catch(() => null) };
      }
      committed = true;
      carried += moved.length;
      replaced.push({ fh: current, taken: known + tail.length });
      current = next;
      known = written;
      let grew = false;
      for (const r of replaced) if ((await r.fh.stat()).size > r.taken) grew = true;
      if (!grew) return { carriedOverBytes: carried, unplaced: null };
      if (round + 1 >= MAX_COMMIT_ROUNDS)
        return { carriedOverBytes: carried, unplaced: await saveUnplaced(file, replaced).catch(() => null) };
    }
  } finally {
    await current.close().catch(() => undefined);
    for (const r of replaced) await r.fh.close().catch(() => undefined);
  }
}

/** A new temporary file beside `file` holding the first `size` bytes of `fh`, with its mode. */
async function copyPrefix(file: string, fh: FileHandle, size: number): Promise<string> {
  const tmp = await writeTemp(
    file,
    (async function* () {
      const buf = Buffer.allocUnsafe(Math.min(1 << 20, Math.max(1, size)));
      for (let pos = 0; pos < size;) {
        const { bytesRead } = await fh.read(buf, 0, Math.min(buf.length, size - pos), pos);
        if (bytesRead === 0)
          throw new CompactError(
            'changed-on-disk',
            `${basename(file)} shrank while late appends were being carried over`,
          );
        pos += bytesRead;
        yield buf.subarray(0, bytesRead);
      }
    })(),
  );
  try {
    await chmod(tmp, (await fh.stat()).mode & 0o777);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
  return tmp;
}

/** Saves the bytes replaced files gained that are not in `file` yet beside it; returns its path. */
async function saveUnplaced(file: string, replaced: { fh: FileHandle; taken: number }[]): Promise<string | null> {
  const parts: Buffer[] = [];
  for (const r of replaced) parts.push(await readTail(r.fh, r.taken));
  const bytes = Buffer.concat(parts);
  if (bytes.length === 0) return null;
  const path = backupName(file).replace(/\.bak-/, '.unplaced-appends-');
  await writeFileAtomic(path, bytes);
  return path;
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
  /** What is being committed, for the messages: 'compaction' (the default), 'repair', 'restore' or 'undo'. */
  task?: CommitTask;
  /**
   * Runs after the backup is made and before the original is replaced: records the sidecars with it, for its
   * manifest (none: a restore of the backup leaves the sidecars alone).
   */
  afterBackup?: (backup: string) => Promise<SidecarRecord>;
  progress: (message: string) => void;
}

/**
 * Commits a compaction's temporary file, the one rule for every format: refuse if the original changed since it
 * was read; in place, back it up and replace it, carrying over bytes appended meanwhile (said in `notes`); else
 * create the new file, refusing one that appeared meanwhile. The caller removes `tmp` when this throws.
 */
export async function commitOutput(
  t: CommitTarget,
  notes: string[],
): Promise<{ backup: string | null; carriedOverBytes: number }> {
  const now = await stat(t.file);
  if (now.size !== t.readSize || now.mtimeMs !== t.readMtime) {
    const task = t.task ?? 'compaction';
    throw new CompactError(
      'changed-on-disk',
      `${basename(t.file)} changed while it was being ${TASK_DOING[task]} (${now.size - t.readSize >= 0 ? `${now.size - t.readSize} bytes appended` : 'it shrank'}; is ${t.writer} still writing to it?). Nothing was written; run the ${task} again when the session is idle.`,
    );
  }
  if (t.mode !== 'in-place') {
    if (t.mode === 'fork' && (await exists(t.out)))
      throw new CompactError(
        'exists',
        `${t.out} appeared while it was being ${TASK_DOING[t.task ?? 'compaction']}; nothing was written.`,
      );
    await commitTemp(t.tmp, t.out);
    await tellCommitted(t.out);
    return { backup: null, carriedOverBytes: 0 };
  }
  t.progress('Backing up the original…');
  const backup = await makeBackup(t.file);
  let placed: Awaited<ReturnType<typeof commitInPlace>>;
  try {
    const sidecars = t.afterBackup ? await t.afterBackup(backup.path) : null;
    // Last: a backup with its manifest is whole.
    await writeBackupManifest(backup, sidecars);
    placed = await commitInPlace(t.file, t.tmp, t.readSize);
  } catch (err) {
    // The file was not replaced (commitInPlace throws only before): the backup of it goes too, or a retry would
    // take it for the newest and restore the content this operation meant to replace.
    await removeBackup(backup.path);
    throw err;
  }
  const { carriedOverBytes, unplaced } = placed;
  await tellCommitted(t.file);
  if (carriedOverBytes)
    notes.push(
      `${carriedOverBytes} bytes ${t.writer} appended while the result was being committed were carried over after it, in the order written (they continue the history before this ${t.task ?? 'compaction'}; run it again when the session is idle)`,
    );
  if (unplaced)
    notes.push(
      `${t.writer} kept appending while the file was being replaced; the last bytes it appended to the old file could not be placed in order and were saved to ${unplaced} instead (they come just before the last lines it appended to the file; nothing was lost)`,
    );
  return { backup: backup.path, carriedOverBytes };
}

export type CommitTask = 'compaction' | 'repair' | 'restore' | 'undo';

const TASK_DOING: Record<CommitTask, string> = {
  compaction: 'compacted',
  repair: 'repaired',
  restore: 'restored',
  undo: 'undone',
};
