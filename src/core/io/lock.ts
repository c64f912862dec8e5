// One writer per transcript: `<file>.compactor.lock`, created atomically and taken over only when its owner is
// surely gone, so two compactions, repairs, restores or undos of one file cannot both write.
import { constants } from 'node:fs';
import { link, lstat, open, readFile, readlink, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { CompactError } from '../errors';
import { tempPathFor, writeFailure } from './atomic';
import { fitName } from './sidecarFiles';

export interface Lock {
  path: string;
  release(): Promise<void>;
}

/** What a lock (or a takeover claim) records about its owner. */
interface LockOwner {
  pid: number;
  host: string;
  started: string;
  /** Random: makes every lock's content unique, so "still the same lock" is a string compare. */
  token: string;
  /** Linux: /proc/sys/kernel/random/boot_id, to recognize an owner from before a reboot. */
  boot?: string;
  /** Linux: start time of the owner process (clock ticks since boot), to recognize a reused pid. */
  procStart?: string;
}

/** A lock younger than this without parseable content may still be being written by its owner. */
export const HALF_WRITTEN_LOCK_STALE_MS = 10_000;

async function readProc(path: string): Promise<string | undefined> {
  if (process.platform !== 'linux') return undefined;
  try {
    return (await readFile(path, 'utf8')).trim();
  } catch {
    return undefined;
  }
}

/** Field 22 of /proc/<pid>/stat (starttime); the command name before it may contain spaces and ')'. */
async function procStartOf(pid: number): Promise<string | undefined> {
  const stat = await readProc(`/proc/${pid}/stat`);
  return stat?.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
}

let selfIdentity: Promise<Omit<LockOwner, 'token' | 'started'>> | undefined;
async function newOwner(): Promise<LockOwner> {
  selfIdentity ??= (async () => ({
    pid: process.pid,
    host: hostname(),
    boot: await readProc('/proc/sys/kernel/random/boot_id'),
    procStart: await procStartOf(process.pid),
  }))();
  return { ...(await selfIdentity), started: new Date().toISOString(), token: randomBytes(8).toString('hex') };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** What sits at a lock path: `raw` identifies it exactly (content, or a symlink's target). */
interface LockEntry {
  kind: 'file' | 'symlink' | 'other';
  raw: string;
  mtimeMs: number;
}

const MAX_LOCK_BYTES = 64 << 10;

async function readEntry(path: string): Promise<LockEntry | null> {
  try {
    const st = await lstat(path);
    if (st.isSymbolicLink()) return { kind: 'symlink', raw: `symlink:${await readlink(path)}`, mtimeMs: st.mtimeMs };
    if (!st.isFile()) return { kind: 'other', raw: `other:${st.ino}`, mtimeMs: st.mtimeMs };
    // O_NOFOLLOW: never read through a symlink swapped in after the lstat.
    const fh = await open(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
    try {
      const fst = await fh.stat();
      // A lock holds a line of JSON: anything far larger was not written by us, and is not read whole.
      if (fst.size > MAX_LOCK_BYTES) return { kind: 'other', raw: `other:${fst.ino}`, mtimeMs: fst.mtimeMs };
      return { kind: 'file', raw: await fh.readFile('utf8'), mtimeMs: fst.mtimeMs };
    } finally {
      await fh.close();
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    if (code === 'ELOOP') return readEntry(path);
    throw err;
  }
}

function parseOwner(raw: string): Partial<LockOwner> | null {
  try {
    const o = JSON.parse(raw) as Partial<LockOwner>;
    return o && typeof o === 'object' && Number.isSafeInteger(o.pid) && (o.pid as number) > 0 ? o : null;
  } catch {
    return null;
  }
}

type Verdict = { stale: true } | { stale: false; owner: Partial<LockOwner> | null };

/**
 * Whether a lock's owner is surely gone. Detected: a dead pid on this host; on Linux, a pid
 * reused by another process (start time differs) and an owner from before a reboot (boot id
 * differs); a symlink (never written by us); unparseable content older than
 * HALF_WRITTEN_LOCK_STALE_MS. Not detected, so left 'locked' (the safe side, the message names
 * the file to delete): a reused pid outside Linux, and any owner on another host (a shared or
 * network folder, a container with its own pid space), whose pid means nothing here.
 */
async function judge(entry: LockEntry, now = Date.now()): Promise<Verdict> {
  if (entry.kind === 'symlink') return { stale: true };
  const owner = entry.kind === 'file' ? parseOwner(entry.raw) : null;
  if (!owner)
    return entry.kind === 'file' && now - entry.mtimeMs >= HALF_WRITTEN_LOCK_STALE_MS
      ? { stale: true }
      : { stale: false, owner: null };
  const self = await newOwner();
  if (owner.host !== undefined && owner.host !== self.host) return { stale: false, owner };
  if (owner.boot && self.boot && owner.boot !== self.boot) return { stale: true };
  if (!alive(owner.pid!)) return { stale: true };
  if (owner.procStart && self.procStart) {
    const current = await procStartOf(owner.pid!);
    if (current !== undefined && current !== owner.procStart) return { stale: true };
  }
  return { stale: false, owner };
}

/** Creates `path` with `content` only if nothing is there; never leaves it half-written. */
async function createExclusive(path: string, content: string): Promise<boolean> {
  const tmp = tempPathFor(path);
  await writeFile(tmp, content, { flag: 'wx', mode: 0o600 }).catch((err: unknown) => {
    throw writeFailure(err, path);
  });
  try {
    await link(tmp, path);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS')
      throw writeFailure(err, path);
    // No hard links on this file system: still exclusive, only not atomic in content.
    try {
      await writeFile(path, content, { flag: 'wx', mode: 0o600 });
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw writeFailure(e, path);
    }
  } finally {
    await unlink(tmp).catch(() => undefined);
  }
}

/**
 * Deletes `path` only if it still is exactly `raw`. The deleter first creates a claim named after
 * `raw` (exclusively, so one process per lock); since nobody else removes that lock while the
 * claim exists, finding `raw` still there after claiming means the unlink hits that lock and no
 * newer one. A claim left by a dead process is removed the same way, one level up.
 */
async function removeIfStill(path: string, raw: string, depth = 0): Promise<boolean> {
  const claim = join(
    dirname(path),
    fitName(`.${basename(path)}`, `.takeover-${createHash('sha256').update(raw).digest('hex').slice(0, 16)}`),
  );
  if (!(await createExclusive(claim, JSON.stringify(await newOwner())))) {
    const held = depth < 2 ? await readEntry(claim) : null;
    if (held && (await judge(held)).stale) await removeIfStill(claim, held.raw, depth + 1);
    return false;
  }
  try {
    const current = await readEntry(path);
    if (current?.raw !== raw) return false;
    await unlink(path);
    return true;
  } finally {
    await unlink(claim).catch(() => undefined);
  }
}

export function lockPath(file: string): string {
  return join(dirname(file), fitName(basename(file), '.compactor.lock'));
}

/**
 * One compaction per file at a time: `<file>.compactor.lock`, created atomically (temp file +
 * link) and taken over only when its owner is surely gone (see `judge`), through `removeIfStill`,
 * so of several processes taking over one stale lock exactly one ends up holding it.
 */
export async function acquireLock(file: string): Promise<Lock> {
  const path = lockPath(file);
  const mine = JSON.stringify(await newOwner());
  for (let attempt = 0; attempt < 20; attempt++) {
    if (await createExclusive(path, mine))
      return {
        path,
        release: () =>
          removeIfStill(path, mine).then(
            () => undefined,
            // No room for the claim (a full disk): our own lock is removed directly while it is still ours. Only a
            // lock judged stale is ever taken over, and ours is not while this process lives.
            async () => {
              if ((await readEntry(path).catch(() => null))?.raw === mine) await unlink(path).catch(() => undefined);
            },
          ),
      };
    const entry = await readEntry(path);
    if (!entry) continue; // released meanwhile
    // Not a file we ever write there (a folder, a FIFO, a device): bad input, not a compaction in progress.
    if (entry.kind === 'other')
      throw new CompactError(
        'unsafe-path',
        `Cannot lock ${basename(file)}: ${path} exists and is not a lock file; remove it if no compaction is running.`,
      );
    const verdict = await judge(entry);
    if (!verdict.stale) {
      const o = verdict.owner;
      if (!o)
        throw new CompactError(
          'locked',
          `Another compaction of ${basename(file)} is starting (its lock file is still being written); try again in a few seconds.`,
        );
      if (o.host !== undefined && o.host !== hostname()) {
        throw new CompactError(
          'locked',
          `Another compaction of ${basename(file)} may be running (process ${o.pid} on ${o.host}, started ${o.started ?? '?'}); this machine cannot tell whether it still is. Try again when it has finished, or delete ${path} if it is not running.`,
        );
      }
      throw new CompactError(
        'locked',
        `Another compaction of ${basename(file)} is running (process ${o.pid}, started ${o.started ?? '?'}); try again when it has finished.`,
      );
    }
    // Stale: one process removes it; the others (and the remover) then race to create theirs.
    if (!(await removeIfStill(path, entry.raw))) await new Promise((r) => setTimeout(r, 5 + Math.random() * 20));
  }
  throw new CompactError(
    'locked',
    `Could not lock ${basename(file)} for compaction (other processes kept taking over its stale lock); try again.`,
  );
}
