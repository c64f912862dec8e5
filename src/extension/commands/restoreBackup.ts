// Restore From Backup: picks one of the transcript's backups (written by in-place compactions,
// newest first) and puts it back, with the sidecars recorded beside it.
import * as vscode from 'vscode';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { backupStates, newestWhole, restoreBackup } from '../../core/compact/backup';
import { formatBytes } from '../model/format';
import { timeAgo } from '../model/sessions';
import type { Services } from '../services';
import { CommandInputError, isProgrammatic, options, resolveTranscript } from './args';

export interface RestoreArgs {
  file?: string;
  /** Backup to restore (default: ask; programmatic default: the newest). */
  backup?: string;
  confirm?: boolean;
}

export async function restoreBackupCommand(s: Services, arg?: unknown): Promise<string | undefined> {
  const programmatic = isProgrammatic(arg);
  const o = options<RestoreArgs>(arg);
  if (!vscode.workspace.isTrusted) {
    const msg = 'Restoring a backup writes files, so it is disabled in Restricted Mode.';
    if (programmatic) throw new CommandInputError(msg);
    void vscode.window.showWarningMessage(msg);
    return undefined;
  }
  const file = await resolveTranscript(s, arg, { title: 'Restore From Backup', openLabel: 'Choose Transcript' });
  if (!file) {
    if (programmatic) throw new CommandInputError('restoreBackup: no transcript given and none is shown');
    return undefined;
  }
  const states = await backupStates(file);
  const backups = states.map((s) => s.backup);
  if (!backups.length) {
    if (programmatic) throw new CommandInputError(`restoreBackup: ${file} has no backups`);
    void vscode.window.showInformationMessage(
      `${basename(file)} has no backups (they are written by in-place compactions).`,
    );
    return undefined;
  }
  // A backup not known to be whole (no manifest: cut short by a crash, or an older version's) is shown, with the
  // reason, but never offered as the newest nor restored.
  const newest = newestWhole(states).backup;
  let backup = o.backup;
  if (!backup && programmatic) backup = newest ?? backups[0];
  if (!backup) {
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
      placeHolder:
        'Backup to restore (each written by an in-place compaction before it rewrote the file; newest first)',
    });
    if (!picked) return undefined;
    backup = picked.backup;
  }
  if (!backups.includes(backup)) {
    const msg = `${backup} is not a backup of ${file}`;
    if (programmatic) throw new CommandInputError(msg);
    void vscode.window.showErrorMessage(msg);
    return undefined;
  }
  if (o.confirm !== false) {
    const choice = await vscode.window.showWarningMessage(
      `Replace ${basename(file)} with ${basename(backup)}?`,
      {
        modal: true,
        detail:
          'The current content of the transcript is replaced by the backup (taken by an in-place compaction), and its compactor state file and saved tool results go back to how they were then. The current content is itself backed up first, so this can be undone.',
      },
      'Restore',
    );
    if (choice !== 'Restore') return undefined;
  }
  let safety: string;
  try {
    ({ safety } = await restoreBackup(file, backup));
  } catch (err) {
    s.log.error(`Could not restore ${file} from ${backup}`, err);
    if (programmatic) throw err;
    void vscode.window.showErrorMessage(
      `Could not restore ${basename(file)}: ${err instanceof Error ? err.message : String(err)}`,
    );
    return undefined;
  }
  s.log.info(`Restored ${file} from ${backup}; the replaced content was backed up to ${safety}`);
  s.store.invalidate(file);
  if (s.store.file === file) await s.store.refresh(true);
  if (!programmatic)
    void vscode.window.showInformationMessage(
      `Restored ${basename(file)} from ${basename(backup)} (the replaced content is in ${basename(safety)}).`,
    );
  return backup;
}
