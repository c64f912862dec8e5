// What the last compaction of a session wrote, kept beside it (`<session>.compactor-undo.json`) so that a later
// process (the CLI's `undo`) can undo it as the extension's Undo Last Compaction does from memory (undo.ts).
// The record is read like every file beside a transcript: untrusted. It names files only by their name in the
// session's own folder, and a fork is removed only while its bytes are still the ones the compaction wrote (a fork
// that was resumed and written to since is the user's work, and stays).
import { createHash } from 'node:crypto';
import { unlink } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { fileChunks, fitName, openSidecar, readSidecar } from '../sidecarFiles';
import { listBackups } from './backup';
import { writeFileAtomic } from './fsutil';
import type { CompactResult } from './types';

/** The fields of a result that undoing it needs (undo.ts). */
export type UndoableResult = Pick<CompactResult, 'mode' | 'output' | 'backup' | 'toolResultsDir' | 'sidecarsWritten'>;

interface UndoRecord {
  version: 1;
  mode: CompactResult['mode'];
  /** Names in the session's folder. */
  output: string;
  backup: string | null;
  toolResultsDir: string | null;
  toolResults: string[];
  toolResultsDirCreated: boolean;
  stateCreated: boolean;
  /** sha256 of the output as written (fork and --out). */
  outputSha256: string | null;
}

const MAX_RECORD_BYTES = 16 << 20;

export function undoRecordPath(original: string): string {
  return join(dirname(original), fitName(basename(original).replace(/\.jsonl$/i, ''), '.compactor-undo.json'));
}

async function sha256Of(file: string): Promise<string | null> {
  const src = await openSidecar(file);
  if (!src) return null;
  try {
    const hash = createHash('sha256');
    for await (const chunk of fileChunks(src.fh)) hash.update(chunk);
    return hash.digest('hex');
  } finally {
    await src.fh.close();
  }
}

/** Records `result`, a compaction of `original`, for `undo` (only a result whose files all sit beside `original`). */
export async function writeUndoRecord(given: string, result: CompactResult): Promise<void> {
  // The result names absolute paths; the transcript may have been named relative to the working folder.
  const original = resolve(given);
  const dir = dirname(original);
  const inFolder = (p: string | null) => p === null || dirname(p) === dir;
  const written = result.sidecarsWritten;
  const toolResults = written?.toolResults ?? [];
  if (!inFolder(result.output) || !inFolder(result.backup) || !inFolder(result.toolResultsDir)) {
    await unlink(undoRecordPath(original)).catch(() => undefined);
    return;
  }
  const record: UndoRecord = {
    version: 1,
    mode: result.mode,
    output: basename(result.output),
    backup: result.backup && basename(result.backup),
    toolResultsDir: result.toolResultsDir && basename(result.toolResultsDir),
    toolResults: toolResults.map((f) => basename(f)),
    toolResultsDirCreated: written?.toolResultsDirCreated ?? false,
    stateCreated: written?.stateCreated ?? false,
    outputSha256: result.mode === 'in-place' ? null : await sha256Of(result.output),
  };
  await writeFileAtomic(undoRecordPath(original), JSON.stringify(record, null, 2) + '\n');
}

/** A plain file name, nothing that leaves the folder. */
const isName = (v: unknown): v is string =>
  typeof v === 'string' && v.length > 0 && v !== '.' && v !== '..' && !/[\\/\0]/.test(v);

/**
 * The last compaction of `original` as its record names it, checked: what undoing it touches is in the session's
 * folder, an in-place backup is one of the session's backups, and a fork is still byte for byte what was written.
 * Throws with the reason when there is nothing to undo or the record cannot be trusted.
 */
export async function readUndoRecord(original: string): Promise<UndoableResult> {
  const path = undoRecordPath(original);
  const bytes = await readSidecar(path, MAX_RECORD_BYTES);
  if (bytes === null)
    throw new Error(
      `${basename(original)} has no record of a compaction to undo (${basename(path)} is written by \`agent-compactor compact\`)`,
    );
  let r: Partial<UndoRecord>;
  try {
    r = JSON.parse(bytes.toString('utf8')) as Partial<UndoRecord>;
  } catch {
    throw new Error(`${path}: not valid JSON; nothing was changed`);
  }
  const bad = (what: string) => new Error(`${path}: ${what}; nothing was changed`);
  if (r?.version !== 1 || (r.mode !== 'in-place' && r.mode !== 'fork' && r.mode !== 'out'))
    throw bad('not an undo record (version 1)');
  if (
    !isName(r.output) ||
    (r.backup !== null && !isName(r.backup)) ||
    (r.toolResultsDir !== null && !isName(r.toolResultsDir))
  )
    throw bad("a file it names is not a plain name in the session's folder");
  if (!Array.isArray(r.toolResults) || !r.toolResults.every(isName))
    throw bad('its saved tool results are not plain names');
  const dir = dirname(original);
  const at = (name: string) => join(dir, name);
  const result: UndoableResult = {
    mode: r.mode,
    output: at(r.output),
    backup: r.backup ? at(r.backup) : null,
    toolResultsDir: r.toolResultsDir ? at(r.toolResultsDir) : null,
    sidecarsWritten: {
      toolResults: r.toolResultsDir ? r.toolResults.map((n) => join(at(r.toolResultsDir as string), n)) : [],
      toolResultsDirCreated: r.toolResultsDirCreated === true,
      stateCreated: r.stateCreated === true,
    },
  };
  if (r.mode === 'in-place') {
    if (r.output !== basename(original)) throw bad('an in-place compaction that wrote another file');
    if (!result.backup || !(await listBackups(original)).includes(result.backup))
      throw new Error(
        `the backup of the last compaction of ${basename(original)} is gone; see \`agent-compactor restore\` for the backups there are`,
      );
    return result;
  }
  if (r.output === basename(original)) throw bad('a fork that is the session itself');
  const now = await sha256Of(result.output);
  if (now === null)
    throw new Error(
      `${r.output}, written by the last compaction of ${basename(original)}, is gone (or not a regular file): nothing to undo`,
    );
  if (now !== r.outputSha256)
    throw new Error(
      `${r.output} changed since the compaction wrote it (it was resumed, perhaps): it is left as it is; delete it yourself if you no longer want it`,
    );
  return result;
}

/** After an undo: the record is spent. */
export async function removeUndoRecord(original: string): Promise<void> {
  await unlink(undoRecordPath(original)).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENOENT') throw err;
  });
}
