// Undo Last Compaction: puts the session and its sidecars back exactly as they were before a
// compaction. In place: the backup it made comes back over the file, with the state file and the
// saved tool results recorded beside it (backup.ts, sidecars.ts); the compacted version is kept as
// a backup in turn. A fork (or an output file): the file it wrote goes, with its state file and the
// saved tool results it created; the original was never touched.
//
// What to undo comes from memory (the extension's last result) or from a record beside the session (the CLI,
// undoRecord.ts), which may have been planted by whoever shared the folder. Either way nothing is deleted on its
// word alone: the output only while it is a regular file holding our compaction and hashing to what we wrote, a
// saved result only in the tool-results folder a compaction of this session uses, under a name we give, while it
// hashes to what we wrote and neither the session nor its state mentions it. So a planted record can at most
// delete files that are byte for byte what it names and that we could have written; a fork resumed since, or a
// saved result changed since, is the user's and stays.
import { lstat, rmdir, unlink } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { restoreBackup } from './backup';
import { isOurOutput } from './outputPath';
import { acquireLock } from '../io/lock';
import { mentioned } from './sidecars';
import { isSavedResultName, MAX_STATE_BYTES, statePath, toolResultsDir } from './state';
import { CompactError } from './types';
import {
  fileChunks,
  hashSidecar,
  isPlainFile,
  isRealDir,
  listSidecarDir,
  openSidecar,
  readSidecar,
} from '../io/sidecarFiles';
import type { UndoableResult } from './undoRecord';

export interface UndoPlan {
  /** One line per change, for a confirmation: what is restored, what is removed. */
  changes: string[];
}

/** What undoing `result` would change, in words (nothing is touched). */
export function describeUndo(original: string, result: UndoableResult): UndoPlan {
  const written = result.sidecarsWritten;
  const results = written?.toolResults.length ?? 0;
  if (result.mode === 'in-place') {
    return {
      changes: [
        `${basename(original)} is restored from ${basename(result.backup ?? '?')}, byte for byte, with its state file and saved tool results as they were`,
        `the compacted version is kept as a new backup beside it`,
      ],
    };
  }
  return {
    changes: [
      `${basename(result.output)} (the ${result.mode === 'fork' ? 'fork' : 'output file'} written by the compaction) is deleted${written?.stateCreated ? ', with its state file' : ''}`,
      ...(results
        ? [
            `${results} saved tool result${results === 1 ? '' : 's'} it created ${results === 1 ? 'is' : 'are'} deleted (any changed since, or still named by ${basename(original)}, stay)`,
          ]
        : []),
      `${basename(original)} stays as it is (a fork never changes it)`,
    ],
  };
}

/** What undoing a fork (or output file) deletes, every file checked first. */
interface ForkRemoval {
  output: string;
  /** The output's state file, when the compaction created it and it is a regular file. */
  state: string | null;
  /** Saved results that are still what the compaction wrote and that nothing left behind names. */
  results: string[];
  dir: string | null;
  removeDirIfEmpty: boolean;
}

const refuse = (message: string) => new CompactError('unsafe-path', `${message}; nothing was changed`);

/**
 * Checks what undoing `result`, a fork or output file of `original`, would delete (see the top of this file) and
 * returns it. Throws (nothing deleted) when the output is not what the compaction wrote, or the record names a
 * folder or file no compaction of `original` writes.
 */
async function planForkUndo(original: string, result: UndoableResult): Promise<ForkRemoval> {
  const output = resolve(result.output);
  if (output === original)
    throw refuse(`the record of the last compaction names ${basename(original)} itself as its fork`);
  const name = basename(output);
  const now = await hashSidecar(output);
  if (now === null)
    throw new CompactError(
      'changed-on-disk',
      `${name}, written by the last compaction of ${basename(original)}, is gone (or not a regular file): nothing to undo`,
    );
  if (!result.outputSha256 || now !== result.outputSha256 || !(await isOurOutput(output)))
    throw new CompactError(
      'changed-on-disk',
      `${name} changed since the compaction wrote it (it was resumed, perhaps): it is left as it is; delete it yourself if you no longer want it`,
    );
  const written = result.sidecarsWritten;
  let state: string | null = null;
  if (written?.stateCreated) {
    const st = await lstat(statePath(output)).catch(() => null);
    if (st?.isFile()) state = statePath(output);
  }
  const dir = result.toolResultsDir && resolve(result.toolResultsDir);
  const saved = written?.toolResults ?? [];
  if (dir === null) {
    if (saved.length) throw refuse('the record names saved tool results without their folder');
    return { output, state, results: [], dir: null, removeDirIfEmpty: false };
  }
  if (dir !== toolResultsDir(original))
    throw refuse(
      `${basename(dir)} is not the folder a compaction of ${basename(original)} saves tool results in (${basename(toolResultsDir(original))})`,
    );
  // A folder swapped for a link since (to one outside) is left alone with everything in it.
  const realDir = await isRealDir(dir).catch(() => false);
  const candidates: string[] = [];
  for (const f of saved) {
    const n = basename(f);
    if (resolve(f) !== resolve(dir, n) || !isSavedResultName(n))
      throw refuse(`${n} is not the name of a saved tool result in ${basename(dir)}`);
    const recorded = written?.toolResultSha256?.[n];
    // A name without the hash of what was written, or a file that is not a regular one now, is never removed.
    const current = await hashSidecar(resolve(dir, n)).catch(() => null);
    if (realDir && recorded && current === recorded) candidates.push(n);
  }
  // A saved result the session or its state still names is in use (an earlier compaction of it wrote the same one).
  const keep = new Set<string>();
  const source = await openSidecar(original);
  if (source)
    try {
      for (const n of await mentioned(fileChunks(source.fh), candidates)) keep.add(n);
    } finally {
      await source.fh.close();
    }
  const originalState = await readSidecar(statePath(original), MAX_STATE_BYTES).catch(() => null);
  if (originalState) for (const n of await mentioned([originalState], candidates)) keep.add(n);
  return {
    output,
    state,
    results: candidates.filter((n) => !keep.has(n)).map((n) => resolve(dir, n)),
    dir: realDir ? dir : null,
    removeDirIfEmpty: written?.toolResultsDirCreated === true,
  };
}

/** Undoes `result`, a compaction of `original`. Returns the safety backup made (in place) or null. */
export async function undoCompaction(given: string, result: UndoableResult): Promise<string | null> {
  const original = resolve(given);
  if (result.mode === 'in-place') {
    if (!result.backup) throw new Error(`the compaction of ${basename(original)} left no backup to restore`);
    if (!result.outputSha256 || typeof result.outputSize !== 'number')
      throw new CompactError(
        'changed-on-disk',
        `the record of the last compaction of ${basename(original)} was written by an older version, which did not record what it wrote, so whether the session went on since cannot be told; nothing was changed. To go back anyway, restore ${basename(result.backup)} explicitly (the current content is kept as a backup)`,
      );
    const done = await restoreBackup(original, result.backup, {
      task: 'undo',
      expect: { size: result.outputSize, sha256: result.outputSha256, what: 'the compaction' },
    });
    return done.safety;
  }
  const lock = await acquireLock(original);
  try {
    // Everything is checked before anything is deleted: a refusal changes nothing.
    const plan = await planForkUndo(original, result);
    const gone = (err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    };
    await unlink(plan.output).catch(gone);
    if (plan.state) await unlink(plan.state).catch(gone);
    if (plan.dir && (await isRealDir(plan.dir).catch(() => false))) {
      for (const f of plan.results) if (await isPlainFile(f)) await unlink(f).catch(gone);
      if (plan.removeDirIfEmpty && (await listSidecarDir(plan.dir).catch(() => null))?.length === 0)
        await rmdir(plan.dir);
    }
    return null;
  } finally {
    await lock.release();
  }
}
