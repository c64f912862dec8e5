// Writing a file so that it is whole or absent: a temporary file beside the target, fsynced, renamed over it (and
// the folder fsynced); the reasons a write fails, in words; checks that a path stays in its folder and that a folder
// we write into is a real one. Every write of a transcript, backup or sidecar goes through here (core/io/commit.ts
// for a transcript replaced in place).
import { lstat, mkdir, open, realpath, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { createHash, randomBytes, type Hash } from 'node:crypto';
import { CompactError } from '../errors';
import { fitName } from './sidecarFiles';

/** Why a file-system call failed, in words, for the errors a user can act on; null for the others. */
export function errnoReason(err: unknown): string | null {
  switch ((err as NodeJS.ErrnoException | null)?.code) {
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EROFS':
      return 'the file system is read-only';
    case 'ENOSPC':
      return 'no space left on the device';
    case 'EDQUOT':
      return 'the disk quota is exceeded';
    case 'ENOENT':
      return 'no such folder';
    case 'ENOTDIR':
      return 'a part of the path is not a folder';
    case 'EISDIR':
      return 'it is a folder';
    case 'ELOOP':
      return 'too many symbolic links';
    case 'ENAMETOOLONG':
      return 'the name is too long';
    default:
      return null;
  }
}

/**
 * A failed write as CompactError('write-failed') naming `path` and the reason, so callers (the CLI's exit code and
 * message, the extension's advice) tell it from a failed read. Errors that are not the file system's pass through.
 */
export function writeFailure(err: unknown, path: string): unknown {
  const e = err as NodeJS.ErrnoException | null;
  if (err instanceof CompactError || typeof e?.code !== 'string') return err;
  return new CompactError('write-failed', `cannot write ${path}: ${errnoReason(err) ?? e.message}`, err);
}

export async function fsyncPath(path: string): Promise<void> {
  const fh = await open(path, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

export async function fsyncDir(dir: string): Promise<void> {
  try {
    await fsyncPath(dir);
  } catch {
    /* not supported everywhere; the rename is still atomic */
  }
}

export function tempPathFor(target: string): string {
  return join(
    dirname(target),
    fitName(`.${basename(target)}`, `.tmp-${process.pid}-${randomBytes(4).toString('hex')}`),
  );
}

/** What `tallied` counted of the bytes that went through it. */
export interface Tally {
  hash: Hash;
  bytes: number;
}

/**
 * `chunks` as bytes, each added to `tally` on the way (a chunk may be a reused buffer: it is counted before the next
 * is asked for). What a write hashes as it goes: a backup, a restored file, a compaction's output.
 */
export async function* tallied(
  chunks: AsyncIterable<Buffer | string> | Iterable<Buffer | string>,
  tally: Tally,
): AsyncGenerator<Buffer> {
  for await (const c of chunks) {
    const bytes = typeof c === 'string' ? Buffer.from(c, 'utf8') : c;
    tally.hash.update(bytes);
    tally.bytes += bytes.length;
    yield bytes;
  }
}

/** A new tally: sha256, nothing counted yet. */
export const newTally = (): Tally => ({ hash: createHash('sha256'), bytes: 0 });

/** Writes chunks to a temp file beside `target`, fsyncs it, and returns its path (not yet renamed). */
export async function writeTemp(
  target: string,
  chunks: AsyncIterable<Buffer | string> | Iterable<Buffer | string>,
): Promise<string> {
  const tmp = tempPathFor(target);
  const fh = await open(tmp, 'wx', 0o600).catch((err: unknown) => {
    throw writeFailure(err, target);
  });
  try {
    for await (const c of chunks as AsyncIterable<Buffer | string>) {
      await fh.write(typeof c === 'string' ? Buffer.from(c, 'utf8') : c).catch((err: unknown) => {
        throw writeFailure(err, target);
      });
    }
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
  await rename(tmp, target).catch((err: unknown) => {
    throw writeFailure(err, target);
  });
  await fsyncDir(dirname(target));
}

export async function writeFileAtomic(target: string, data: string | Buffer): Promise<void> {
  const tmp = await writeTemp(target, [data]);
  try {
    await commitTemp(tmp, target);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
}

/** Ensures `child` resolves inside `dir` (no `..`, no absolute escape). */
export function assertInside(dir: string, child: string): string {
  const full = resolve(dir, child);
  const root = resolve(dir);
  if (full !== root && !full.startsWith(root + sep))
    throw new CompactError('unsafe-path', `refusing to write ${full}: outside ${root}`);
  return full;
}

/** Creates a folder for sidecar files; refuses one that is a symlink (it could point anywhere). */
export async function ensureRealDir(dir: string): Promise<void> {
  try {
    const st = await lstat(dir);
    if (st.isSymbolicLink())
      throw new CompactError('unsafe-path', `refusing to write into ${dir}: it is a symbolic link`);
    if (!st.isDirectory()) throw new CompactError('unsafe-path', `refusing to write into ${dir}: it is not a folder`);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    await mkdir(dir, { recursive: false, mode: 0o700 }).catch((e: unknown) => {
      throw writeFailure(e, dir);
    });
  }
}

/** True when `a` and `b` name the same file (through links; by path when either does not exist). */
export async function sameFile(a: string, b: string): Promise<boolean> {
  try {
    return (await realpath(a)) === (await realpath(b));
  } catch {
    return resolve(a) === resolve(b);
  }
}

export async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}
