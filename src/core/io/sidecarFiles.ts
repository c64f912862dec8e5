// Files and folders beside a transcript that we read, copy or delete without the user naming them: the state
// file, backups and the manifests recorded with them, saved tool results, subagent transcripts, Cline's
// ui_messages.json. They travel with the transcript between people (shared repos, checkpoints, bug reports; git
// stores symlinks and any name), so each must be what we would have written: a regular file or a real folder,
// never a link (it could point at a private key or at files to delete), a FIFO or a device (reading one blocks
// or never ends), and of bounded size. Every such access goes through this module.
//
// No time cap is needed on top: a regular file opened without following links, after fstat says it is one,
// is read to its end at disk speed, and the size cap bounds how much there is.
import { constants, type Stats } from 'node:fs';
import { lstat, open, readdir, type FileHandle } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { CompactError } from '../errors';

/** Longest file name (bytes) on the file systems transcripts live on (ext4, APFS, NTFS in UTF-16 units). */
export const NAME_MAX = 255;

/**
 * `base + suffix` as one file name within NAME_MAX bytes, leaving `reserve` bytes for a part appended later (a
 * backup's time stamp). A name that would be too long keeps the head of `base` and replaces its tail by a hash of
 * the whole `base`: the same transcript always gets the same derived names, for reading and writing alike.
 */
export function fitName(base: string, suffix: string, reserve = 0): string {
  const room = NAME_MAX - reserve - Buffer.byteLength(suffix);
  if (Buffer.byteLength(base) <= room) return base + suffix;
  const tag = `~${createHash('sha256').update(base).digest('hex').slice(0, 16)}`;
  let head = '';
  let bytes = 0;
  for (const ch of base) {
    const n = Buffer.byteLength(ch);
    if (bytes + n + tag.length > room) break;
    head += ch;
    bytes += n;
  }
  return head + tag + suffix;
}

function kindOf(st: Stats): string {
  if (st.isSymbolicLink()) return 'a symbolic link';
  if (st.isDirectory()) return 'a folder';
  if (st.isFIFO()) return 'a named pipe (FIFO)';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  if (st.isSocket()) return 'a socket';
  if (st.isFile()) return 'a file';
  return 'something else';
}

function refuse(path: string, what: string, expected = 'a regular file'): never {
  throw new CompactError(
    'unsafe-path',
    `refusing to use ${path}: it is ${what}, not ${expected} (files beside a transcript may come from someone else); move it aside`,
  );
}

// O_NOFOLLOW: a link is refused, never followed. O_NONBLOCK: opening a FIFO returns at once instead of waiting
// for a writer (fstat then refuses it); it changes nothing for a regular file.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** Opens the regular file at `path` for reading; null when nothing is there; refuses anything else (see above). */
export async function openSidecar(path: string): Promise<{ fh: FileHandle; size: number; mode: number } | null> {
  let fh: FileHandle;
  try {
    fh = await open(path, OPEN_FLAGS);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    // ELOOP (EMLINK on BSD): O_NOFOLLOW met a link. ENXIO: a socket.
    if (code === 'ELOOP' || code === 'EMLINK' || code === 'ENXIO') refuse(path, kindOf(await lstat(path)));
    throw err;
  }
  const st = await fh.stat();
  if (!st.isFile()) {
    await fh.close();
    refuse(path, kindOf(st));
  }
  return { fh, size: st.size, mode: st.mode };
}

/** The bytes of the regular file at `path`, at most `maxBytes` (more is refused); null when nothing is there. */
export async function readSidecar(path: string, maxBytes: number): Promise<Buffer | null> {
  const opened = await openSidecar(path);
  if (!opened) return null;
  const { fh, size } = opened;
  try {
    const tooBig = () =>
      new CompactError(
        'unsafe-path',
        `refusing to read ${path}: more than ${maxBytes} bytes, larger than such a file can be; move it aside`,
      );
    if (size > maxBytes) throw tooBig();
    // Read to the end, not to the size fstat gave: the file may grow meanwhile, and must still stay in bounds.
    const buf = Buffer.allocUnsafe(Math.min(maxBytes, size) + 1);
    let got = 0;
    for (;;) {
      if (got === buf.length) throw tooBig();
      const { bytesRead } = await fh.read(buf, got, buf.length - got, got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    return buf.subarray(0, got);
  } finally {
    await fh.close();
  }
}

/** True when `path` is a regular file (not a link to one); false when absent or anything else. */
export async function isPlainFile(path: string): Promise<boolean> {
  const st = await lstat(path).catch(() => null);
  return st?.isFile() ?? false;
}

/**
 * The entries of the real folder `dir` (files and folders as they are, links not followed); null when nothing is
 * there; refuses a link or anything else that is not a folder.
 */
export async function listSidecarDir(dir: string): Promise<{ name: string; isFile: boolean }[] | null> {
  if (!(await isRealDir(dir))) return null;
  return (await readdir(dir, { withFileTypes: true })).map((d) => ({ name: d.name, isFile: d.isFile() }));
}

/** True when `dir` is a real folder, false when nothing is there; refuses a link or anything else. */
export async function isRealDir(dir: string): Promise<boolean> {
  let st: Stats;
  try {
    st = await lstat(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
  if (!st.isDirectory()) refuse(dir, kindOf(st), 'a folder');
  return true;
}

/** The bytes of an opened file from its start, in chunks of one reused buffer (each valid until the next is asked for). */
export async function* fileChunks(fh: FileHandle, chunkSize = 1 << 20): AsyncGenerator<Buffer> {
  const buf = Buffer.allocUnsafe(chunkSize);
  for (let pos = 0; ;) {
    const { bytesRead } = await fh.read(buf, 0, chunkSize, pos);
    if (bytesRead === 0) return;
    pos += bytesRead;
    yield buf.subarray(0, bytesRead);
  }
}

/** sha256 (hex) of the regular file at `path`, streamed; null when nothing is there; refuses anything else (see above). */
export async function hashSidecar(path: string): Promise<string | null> {
  const opened = await openSidecar(path);
  if (!opened) return null;
  try {
    const hash = createHash('sha256');
    for await (const chunk of fileChunks(opened.fh)) hash.update(chunk);
    return hash.digest('hex');
  } finally {
    await opened.fh.close();
  }
}
