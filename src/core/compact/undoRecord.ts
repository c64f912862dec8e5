// What the last compaction of a session wrote, kept beside it (`<session>.compactor-undo.json`) so that a later
// process (the CLI's `undo`) can undo it as the extension's Undo Last Compaction does from memory (undo.ts).
// The record is read like every file beside a transcript: untrusted (whoever shared the folder may have planted
// it). Reading it only checks its shape: names files only by their name in the session's own folder, saved results
// only by names we give in the folder a compaction of this session uses, with the sha256 of what was written. What
// may then be deleted is decided by undo.ts, which checks every file against the record (and the record against
// what a compaction of the session writes) before it deletes anything.
import { unlink } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { fitName, readSidecar } from '../io/sidecarFiles';
import { listBackups } from './backup';
import { writeFileAtomic } from '../io/atomic';
import { isSavedResultName, toolResultsDir } from './state';
import type { CompactResult } from './types';

/** The fields of a result that undoing it needs (undo.ts). */
export type UndoableResult = Pick<
  CompactResult,
  'mode' | 'output' | 'backup' | 'toolResultsDir' | 'sidecarsWritten' | 'outputSha256' | 'outputSize'
>;

interface UndoRecord {
  version: 1;
  mode: CompactResult['mode'];
  /** Names in the session's folder. */
  output: string;
  backup: string | null;
  toolResultsDir: string | null;
  toolResults: string[];
  /** sha256 (hex) of each saved result as written, by name; one without is never deleted. */
  toolResultSha256: Record<string, string>;
  toolResultsDirCreated: boolean;
  stateCreated: boolean;
  /** sha256 of the output as written (in place: of the compacted session, before any bytes carried over after it). */
  outputSha256: string | null;
  /** Its size in bytes. */
  outputSize?: number | null;
}

const MAX_RECORD_BYTES = 16 << 20;

export function undoRecordPath(original: string): string {
  return join(dirname(original), fitName(basename(original).replace(/\.jsonl$/i, ''), '.compactor-undo.json'));
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
    toolResultSha256: written?.toolResultSha256 ?? {},
    toolResultsDirCreated: written?.toolResultsDirCreated ?? false,
    stateCreated: written?.stateCreated ?? false,
    outputSha256: result.outputSha256 ?? null,
    outputSize: result.outputSize ?? null,
  };
  await writeFileAtomic(undoRecordPath(original), JSON.stringify(record, null, 2) + '\n');
}

/** A plain file name, nothing that leaves the folder. */
const isName = (v: unknown): v is string =>
  typeof v === 'string' && v.length > 0 && v !== '.' && v !== '..' && !/[\\/\0]/.test(v);

const isSha256 = (v: unknown): v is string => typeof v === 'string' && /^[0-9a-f]{64}$/.test(v);

/**
 * The last compaction of `given` as its record names it, its shape checked: what undoing it touches is in the
 * session's folder, saved results are names we give in the session's own tool-results folder, with the sha256 of
 * what was written, and an in-place backup is one of the session's backups. Throws with the reason when there is
 * nothing to undo or the record is not one we write. Whether the files are still what was written is for undo.ts.
 */
export async function readUndoRecord(given: string): Promise<UndoableResult> {
  const original = resolve(given);
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
  const ownDir = basename(toolResultsDir(original));
  if (r.toolResultsDir !== null && r.toolResultsDir !== ownDir)
    throw bad(
      `${r.toolResultsDir} is not the folder a compaction of ${basename(original)} saves tool results in (${ownDir})`,
    );
  if (!Array.isArray(r.toolResults) || !r.toolResults.every((n) => typeof n === 'string' && isSavedResultName(n)))
    throw bad('its saved tool results are not names Agent Compactor gives them');
  if (r.toolResults.length && r.toolResultsDir === null) throw bad('it names saved tool results without their folder');
  const hashes = r.toolResultSha256 ?? {};
  if (typeof hashes !== 'object' || hashes === null || Array.isArray(hashes) || !Object.values(hashes).every(isSha256))
    throw bad('its saved tool results have no sha256 of what was written');
  if (r.mode !== 'in-place' && !isSha256(r.outputSha256)) throw bad('it has no sha256 of the file it wrote');
  const dir = dirname(original);
  const at = (name: string) => join(dir, name);
  const toolSha256: Record<string, string> = {};
  for (const n of r.toolResults) if (Object.hasOwn(hashes, n)) toolSha256[n] = hashes[n];
  const result: UndoableResult = {
    mode: r.mode,
    output: at(r.output),
    backup: r.backup ? at(r.backup) : null,
    toolResultsDir: r.toolResultsDir ? at(r.toolResultsDir) : null,
    sidecarsWritten: {
      toolResults: r.toolResultsDir ? r.toolResults.map((n) => join(at(ownDir), n)) : [],
      toolResultSha256: toolSha256,
      toolResultsDirCreated: r.toolResultsDirCreated === true,
      stateCreated: r.stateCreated === true,
    },
    outputSha256: isSha256(r.outputSha256) ? r.outputSha256 : null,
    // A record without them (an older version's) is refused by undo for an in-place compaction, with the reason.
    outputSize: Number.isSafeInteger(r.outputSize) && (r.outputSize as number) >= 0 ? r.outputSize : null,
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
  return result;
}

/** After an undo: the record is spent. */
export async function removeUndoRecord(original: string): Promise<void> {
  await unlink(undoRecordPath(original)).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENOENT') throw err;
  });
}
