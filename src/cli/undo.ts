// `agent-compactor undo <file> [--json]`: Undo Last Compaction, as the extension's command does it (core/compact/undo.ts),
// for the compaction `agent-compactor compact` recorded beside the session (core/compact/undoRecord.ts): in place, the
// backup comes back with its sidecars (the compacted version kept as a backup); a fork, the fork and what it wrote go.
import { describeUndo, undoCompaction } from '../core/compact/undo';
import { readUndoRecord, removeUndoRecord, type UndoableResult } from '../core/compact/undoRecord';
import { CompactError } from '../core/compact/types';
import { EXIT_OK, onePositional, readableTranscript, refuseUnsupported, UsageError } from './args';
import { printJson, printOut, sanitizeForTerminal } from './format';
import { bool, HELP_OPTION, JSON_OPTION, type Values, type VerbSpec } from './options';

export const undoVerb: VerbSpec = {
  name: 'undo',
  args: '<file>',
  summary:
    'Undoes the last compaction of the session that `agent-compactor compact` recorded: in place, the backup comes back byte for byte with its state file and saved tool results (the compacted version is kept as a backup); a fork (or output file) is deleted with the state file and saved tool results it created, while it is still as written.',
  options: [JSON_OPTION, HELP_OPTION],
  notes: [
    'An in-place compaction is undone only while the session is exactly what it wrote: when turns were added since, undo refuses and changes nothing (restore the backup explicitly to go back anyway; the current content is then kept as a backup).',
    'Exit 0 when undone, 2 when there is nothing to undo or it cannot be undone safely (no record, the backup gone or not whole, the session gone on since, a fork written to since), 1 when a file could not be written.',
  ],
  run: runUndo,
};

export async function runUndo(values: Values, positionals: string[]): Promise<number> {
  const file = await readableTranscript(onePositional(positionals, 'undo'));
  await refuseUnsupported(file, 'undo', 'undo');
  let result: UndoableResult;
  try {
    result = await readUndoRecord(file);
  } catch (err) {
    throw new UsageError(`undo: ${sanitizeForTerminal(err instanceof Error ? err.message : String(err))}`);
  }
  const { changes } = describeUndo(file, result);
  let safety: string | null;
  try {
    safety = await undoCompaction(file, result);
  } catch (err) {
    // A fork changed since, or a record naming what no compaction of this session writes: refused, nothing changed.
    if (
      err instanceof CompactError &&
      (err.code === 'changed-on-disk' || err.code === 'unsafe-path' || err.code === 'bad-backup')
    )
      throw new UsageError(`undo: ${sanitizeForTerminal(err.message)}`);
    throw err;
  }
  await removeUndoRecord(file);
  if (bool(values, 'json'))
    printJson(
      JSON.stringify(
        {
          file,
          mode: result.mode,
          removed: result.mode === 'in-place' ? null : result.output,
          restored: result.mode === 'in-place' ? result.backup : null,
          replacedBackup: safety,
          changes,
        },
        null,
        2,
      ) + '\n',
    );
  else
    printOut(
      changes.map((c) => `${sanitizeForTerminal(c)}\n`).join('') +
        (safety ? `the replaced content is in ${sanitizeForTerminal(safety)}\n` : ''),
    );
  return EXIT_OK;
}
