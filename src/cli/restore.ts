// `agent-compactor restore <file> [--backup FILE] [--json]`: Restore From Backup, as the extension's command does it
// (core/compact/backup.ts): puts a backup written by an in-place compaction back over the transcript, with the state
// file and saved tool results recorded beside it; the replaced content is itself backed up first, so this is undoable.
import { resolve } from 'node:path';
import { backupStates, newestWhole, restoreBackup } from '../core/compact/backup';
import { CompactError } from '../core/compact/types';
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
      default: 'the newest whole one',
    },
    JSON_OPTION,
    HELP_OPTION,
  ],
  notes: [
    'A backup is restored only whole: as the manifest written last with it records it (size and sha256). One cut short by a crash, or made by an older version, is refused with the reason; by default the newest whole backup is restored.',
    'A session that changes while it is restored (a live agent) is refused and left as it was; bytes appended in the last instant are carried over after the restored content.',
    'Exit 0 when restored, 2 when the transcript has no backup (only in-place compactions and repairs of Claude Code and Codex sessions write them), FILE is not one of its backups, the backup is not whole, or the session changed meanwhile, 1 when a file could not be written.',
  ],
  run: runRestore,
};

export async function runRestore(values: Values, positionals: string[]): Promise<number> {
  const file = await readableTranscript(onePositional(positionals, 'restore'));
  await refuseUnsupported(file, 'restore', 'restore');
  const states = await backupStates(file);
  const backups = states.map((s) => s.backup);
  if (!backups.length)
    throw new UsageError(
      `restore: ${sanitizeForTerminal(file)} has no backups (they are written by in-place compactions and repairs, which Claude Code and Codex sessions support)`,
    );
  const wanted = str(values, 'backup');
  /** Newer backups passed over because they are not whole, with the reason. */
  let skipped: { backup: string; reason: string }[] = [];
  let backup: string | undefined;
  if (wanted === undefined) {
    const chosen = newestWhole(states);
    backup = chosen.backup;
    skipped = chosen.skipped.map((s) => ({ backup: s.backup, reason: s.fault! }));
    if (!backup)
      throw new UsageError(
        `restore: no backup of ${sanitizeForTerminal(file)} is known to be whole: ${skipped.map((s) => sanitizeForTerminal(s.reason)).join('; ')}`,
      );
  } else {
    backup = backups.find((b) => resolve(b) === resolve(wanted));
    if (!backup)
      throw new UsageError(
        `restore: ${sanitizeForTerminal(wanted)} is not a backup of ${sanitizeForTerminal(file)} (its backups: ${backups.map(sanitizeForTerminal).join(', ')})`,
      );
  }
  let done: Awaited<ReturnType<typeof restoreBackup>>;
  try {
    done = await restoreBackup(file, backup);
  } catch (err) {
    // Refused before anything was written: the backup is not whole, or the session changed meanwhile.
    if (err instanceof CompactError && (err.code === 'bad-backup' || err.code === 'changed-on-disk'))
      throw new UsageError(`restore: ${sanitizeForTerminal(err.message)}`);
    throw err;
  }
  if (bool(values, 'json'))
    printJson(
      JSON.stringify(
        {
          file,
          restored: backup,
          replacedBackup: done.safety,
          skipped,
          carriedOverBytes: done.carriedOverBytes,
          notes: done.notes,
        },
        null,
        2,
      ) + '\n',
    );
  else
    printOut(
      skipped.map((s) => `skipped ${sanitizeForTerminal(s.backup)}: ${sanitizeForTerminal(s.reason)}\n`).join('') +
        `restored ${sanitizeForTerminal(file)} from ${sanitizeForTerminal(backup)}; the replaced content is in ${sanitizeForTerminal(done.safety)}\n` +
        done.notes.map((n) => `note: ${sanitizeForTerminal(n)}\n`).join(''),
    );
  return EXIT_OK;
}
