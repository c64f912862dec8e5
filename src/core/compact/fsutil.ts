// Careful file operations: atomic replace (temp, fsync, rename), backups, and a lock so two
// compactions of one file cannot both write.
import { open, rename, unlink, copyFile, lstat, mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { randomBytes } from 'node:crypto';
import { CompactError } from './types';

export async function fsyncPath(path: string): Promise<void> {
  const fh = await open(path, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

async function fsyncDir(dir: string): Promise<void> {
  try {
    await fsyncPath(dir);
  } catch {
    /* not supported everywhere; the rename is still atomic */
  }
}

export function tempPathFor(target: string): string {
  return join(dirname(target), `.${basename(target)}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
}

/** Writes chunks to a temp file beside `target`, fsyncs it, and returns its path (not yet renamed). */
export async function writeTemp(target: string, chunks: AsyncIterable<Buffer | string> | Iterable<Buffer | string>): Promise<string> {
  const tmp = tempPathFor(target);
  const fh = await open(tmp, 'wx', 0o600);
  try {
    for await (const c of chunks as AsyncIterable<Buffer | string>) await fh.write(typeof c === "string" ? Buffer.from(c, "utf8") : c);
    await fh.sync();
  } catch (err) {
    await fh.close().catch(() => undefined);
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
  await fh.close();
  return tmp;
}

export async function commitTemp(tmp: string, target: string): Promise<void> {
  await rename(tmp, target);
  await fsyncDir(dirname(target));
}

export async function writeFileAtomic(target: string, data: string | Buffer): Promise<void> {
  const tmp = await writeTemp(target, [data]);
  await commitTemp(tmp, target);
}

export function backupName(file: string, now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').replace(/\..*$/, '') + `-${String(now.getMilliseconds()).padStart(3, '0')}`;
  return `${file}.bak-${stamp}`;
}

/** Copies `file` to a new backup and fsyncs it. */
export async function makeBackup(file: string): Promise<string> {
  let target = backupName(file);
  for (let i = 1; ; i++) {
    try {
      await copyFile(file, target, 1 /* COPYFILE_EXCL */);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || i > 50) throw err;
      target = `${backupName(file)}-${i}`;
    }
  }
  await fsyncPath(target);
  return target;
}

/** Ensures `child` resolves inside `dir` (no `..`, no absolute escape). */
export function assertInside(dir: string, child: string): string {
  const full = resolve(dir, child);
  const root = resolve(dir);
  if (full !== root && !full.startsWith(root + sep)) throw new CompactError('unsafe-path', `refusing to write ${full}: outside ${root}`);
  return full;
}

/** Creates a folder for sidecar files; refuses one that is a symlink (it could point anywhere). */
export async function ensureRealDir(dir: string): Promise<void> {
  try {
    const st = await lstat(dir);
    if (st.isSymbolicLink()) throw new CompactError('unsafe-path', `refusing to write into ${dir}: it is a symbolic link`);
    if (!st.isDirectory()) throw new CompactError('unsafe-path', `refusing to write into ${dir}: it is not a folder`);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    await mkdir(dir, { recursive: false, mode: 0o700 });
  }
}

export interface Lock {
  path: string;
  release(): Promise<void>;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** One compaction per file at a time: `<file>.compactor.lock`, taken over only when its owner is gone. */
export async function acquireLock(file: string): Promise<Lock> {
  const path = `${file}.compactor.lock`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await writeFile(path, JSON.stringify({ pid: process.pid, started: new Date().toISOString() }), { flag: 'wx', mode: 0o600 });
      return { path, release: () => unlink(path).catch(() => undefined) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      let owner: { pid?: number; started?: string } = {};
      try {
        owner = JSON.parse(await readFile(path, 'utf8'));
      } catch {
        /* half-written lock: treat as stale below only if old */
      }
      if (owner.pid && alive(owner.pid)) {
        throw new CompactError('locked', `Another compaction of ${basename(file)} is running (process ${owner.pid}, started ${owner.started ?? '?'}); try again when it has finished.`);
      }
      await unlink(path).catch(() => undefined);
    }
  }
  throw new CompactError('locked', `Could not lock ${basename(file)} for compaction.`);
}
