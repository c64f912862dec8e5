// Restore From Backup: picks one of the transcript's backups (written by in-place compactions,
// newest first) and puts it back, with the sidecars recorded beside it.
import * as vscode from 'vscode';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { backupStates, newestWhole, restoreBackup } from '../../core/compact/backup';
import { formatBytes } from '../model/format';
import { timeAgo } from '../model/sessions';
import type { Services } from '../services';
import { bool, options, str } from '../../webview/validate';
import { resolveTranscript } from './args';
import { CommandFailure, CommandInputError, optionsOf, type Call } from './call';
import { BACKUP_ORIGIN } from '../model/repairText';

/** `{ file, backup, confirm }`: the transcript, the backup to put back (default: a person picks; code: the newest whole one), and `confirm: false` for no dialog. */
export const RESTORE_OPTIONS = options({
  file: str(4_096, { min: 1 }),
  backup: str(4_096, { min: 1 }),
  confirm: bool,
});

/** Refused in Restricted Mode: restoring writes files. */
function assertTrusted(): void {
  if (!vscode.workspace.isTrusted)
    throw new CommandInputError('Restoring a backup writes files, so it is disabled in Restricted Mode.');
}

export async function restoreBackupCommand(s: Services, arg: unknown, call: Call): Promise<string | undefined> {
  const o = optionsOf(RESTORE_OPTIONS, 'Restore From Backup', arg);
  assertTrusted();
  const file = await resolveTranscript(s, arg, call.ui, {
    title: 'Restore From Backup',
    openLabel: 'Choose Transcript',
  });
  if (!file) return undefined;
  const states = await backupStates(file);
  const backups = states.map((b) => b.backup);
  if (!backups.length)
    throw new CommandInputError(`${basename(file)} has no backups (they are ${BACKUP_ORIGIN}).`, {
      severity: 'info',
    });
  // A backup not known to be whole (no manifest: cut short by a crash, or an older version's) is shown, with the
  // reason, but never offered as the newest nor restored.
  const newest = newestWhole(states).backup;
  const backup =
    o.backup ??
    (await call.ui.ask(
      async () => {
        const items = await Promise.all(
          states.map(async ({ backup: b, fault }) => {
            const st = await stat(b).catch(() => undefined);
            return {
              label: basename(b),
              description: st ? `${timeAgo(st.mtimeMs)} · ${formatBytes(st.size)}` : undefined,
              detail: fault !== null ? `not restorable: ${fault}` : b === newest ? 'newest' : undefined,
              backup: b,
            };
          }),
        );
        const picked = await vscode.window.showQuickPick(items, {
          title: `Restore ${basename(file)} From Backup`,
          placeHolder: `Backup to restore (each ${BACKUP_ORIGIN}; newest first)`,
        });
        return picked?.backup;
      },
      () => newest ?? backups[0],
    ));
  if (!backup) return undefined;
  if (!backups.includes(backup))
    throw new CommandInputError(`${backup} is not a backup of ${file}`, { severity: 'error' });
  if (o.confirm !== false) {
    const choice = await vscode.window.showWarningMessage(
      `Replace ${basename(file)} with ${basename(backup)}?`,
      {
        modal: true,
        detail: `The current content of the transcript is replaced by the backup (${BACKUP_ORIGIN}), and its compactor state file and saved tool results go back to how they were then. The current content is itself backed up first, so this can be undone.`,
      },
      'Restore',
    );
    if (choice !== 'Restore') return undefined;
  }
  await restoreFrom(s, file, backup);
  return backup;
}

/** Puts `backup` back as `file` (the replaced content backed up first) and shows it; returns the safety backup. */
export async function restoreFrom(s: Services, file: string, backup: string): Promise<string> {
  assertTrusted();
  let safety: string;
  try {
    ({ safety } = await restoreBackup(file, backup));
  } catch (err) {
    throw new CommandFailure(
      `Could not restore ${basename(file)}: ${err instanceof Error ? err.message : String(err)}`,
      err,
    );
  }
  s.log.info(`Restored ${file} from ${backup}; the replaced content was backed up to ${safety}`);
  s.store.invalidate(file);
  if (s.store.file === file) await s.store.refresh(true);
  void vscode.window.showInformationMessage(
    `Restored ${basename(file)} from ${basename(backup)} (the replaced content is in ${basename(safety)}).`,
  );
  return safety;
}
