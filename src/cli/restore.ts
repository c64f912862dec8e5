// `agent-compactor restore <file> [--backup FILE] [--json]`: Restore From Backup, as the extension's command does it
// (core/compact/backup.ts): puts a backup written by an in-place compaction back over the transcript, with the state
// file and saved tool results recorded beside it; the replaced content is itself backed up first, so this is undoable.
import { resolve } from 'node:path';
import { listBackups, restoreBackup } from '../core/compact/backup';
import { EXIT_OK, onePositional, readableTranscript, refuseUnsupported, UsageError } from './args';
import { printJson, printOut, sanitizeForTerminal } from './format';
import { bool, HELP_OPTION, JSON_OPTION, str, type Values, type VerbSpec } from './options';

export const restoreVerb: VerbSpec = {
  name: 'restore',
  args: '<file>',
  summary:
    'Puts back a backup an in-place compaction (or repair) wrote beside the transcript, byte for byte, with its state file and saved tool results as they were; the current content is backed up first, so a restore can itself be restored.',
  options: [
    {
      flag: 'backup',
      type: 'string',
      value: 'FILE',
      help: 'the backup to restore (one of <file>.bak-<time> beside it)',
      default: 'the newest',
    },
    JSON_OPTION,
    HELP_OPTION,
  ],
  notes: [
    'Exit 0 when restored, 2 when the transcript has no backup (only in-place compactions of Claude Code and Codex sessions write them) or FILE is not one of its backups, 1 when a file could not be written.',
  ],
  run: runRestore,
};

export async function runRestore(values: Values, positionals: string[]): Promise<number> {
  const file = await readableTranscript(onePositional(positionals, 'restore'));
  await refuseUnsupported(file, 'restore', 'restore');
  const backups = await listBackups(file);
  if (!backups.length)
    throw new UsageError(
      `restore: ${sanitizeForTerminal(file)} has no backups (they are written by in-place compactions and repairs, which Claude Code and Codex sessions support)`,
    );
  const wanted = str(values, 'backup');
  const backup = wanted === undefined ? backups[0] : backups.find((b) => resolve(b) === resolve(wanted));
  if (!backup)
    throw new UsageError(
      `restore: ${sanitizeForTerminal(wanted ?? '')} is not a backup of ${sanitizeForTerminal(file)} (its backups: ${backups.map(sanitizeForTerminal).join(', ')})`,
    );
  const safety = await restoreBackup(file, backup);
  if (bool(values, 'json'))
    printJson(JSON.stringify({ file, restored: backup, replacedBackup: safety }, null, 2) + '\n');
  else
    printOut(
      `restored ${sanitizeForTerminal(file)} from ${sanitizeForTerminal(backup)}; the replaced content is in ${sanitizeForTerminal(safety)}\n`,
    );
  return EXIT_OK;
}
