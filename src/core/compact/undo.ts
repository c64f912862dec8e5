// Undo Last Compaction: puts the session and its sidecars back exactly as they were before a
// compaction. In place: the backup it made comes back over the file, with the state file and the
// saved tool results recorded beside it (backup.ts, sidecars.ts); the compacted version is kept as
// a backup in turn. A fork (or an output file): the file it wrote goes, with its state file and the
// saved tool results it created; the original was never touched.
import { rmdir, unlink } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { restoreBackup } from './backup';
import { acquireLock } from './fsutil';
import { statePath } from './state';
import { isPlainFile, isRealDir, listSidecarDir } from '../sidecarFiles';
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
        ? [`${results} saved tool result${results === 1 ? '' : 's'} it created ${results === 1 ? 'is' : 'are'} deleted`]
        : []),
      `${basename(original)} stays as it is (a fork never changes it)`,
    ],
  };
}

/** Undoes `result`, a compaction of `original`. Returns the safety backup made (in place) or null. */
export async function undoCompaction(original: string, result: UndoableResult): Promise<string | null> {
  if (result.mode === 'in-place') {
    if (!result.backup) throw new Error(`the compaction of ${basename(original)} left no backup to restore`);
    return restoreBackup(original, result.backup);
  }
  const lock = await acquireLock(original);
  try {
    const gone = (err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    };
    await unlink(result.output).catch(gone);
    if (result.sidecarsWritten?.stateCreated) await unlink(statePath(result.output)).catch(gone);
    // Only the saved results this run wrote, in its tool-results folder, while that is still a real folder and
    // each still a regular file (sidecarFiles.ts): a folder swapped for a link since is left alone.
    const dir = result.toolResultsDir;
    if (dir && dirname(dir) === dirname(original) && (await isRealDir(dir).catch(() => false))) {
      for (const f of result.sidecarsWritten?.toolResults ?? [])
        if (dirname(f) === dir && (await isPlainFile(f))) await unlink(f).catch(gone);
      if (result.sidecarsWritten?.toolResultsDirCreated && (await listSidecarDir(dir))?.length === 0) await rmdir(dir);
    }
    return null;
  } finally {
    await lock.release();
  }
}
