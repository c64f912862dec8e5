// Repair Session: links every broken parent of a transcript so that resume loads the whole active context again.
// Says what resume loads now and would load after, asks (fork by default, or in place with a backup), writes, shows
// the result in the Rounds tree and offers to resume it in Claude Code. Refuses while the file is still being written.
import * as vscode from 'vscode';
import { basename } from 'node:path';
import { readSessionIndex } from '../../core/inspect';
import { unsupported } from '../../core/formats/registry';
import { repairFile, repairOutlook, type RepairResult } from '../../core/repair/repair';
import type { Services } from '../services';
import { CommandInputError, isProgrammatic, options, resolveTranscript } from './args';
import { resumeSession } from './resume';

export interface RepairSessionArgs {
  file?: string;
  /** false: no confirmation dialog (programmatic use). */
  confirm?: boolean;
  /** Replace the original after a backup instead of writing a fork. */
  inPlace?: boolean;
  /** Write to this path instead of a fork. */
  out?: string;
}

const FORK = 'Repair as Fork';
const IN_PLACE = 'Repair in Place';
const RESUME = 'Resume in Claude Code';

const pct = (x: number) => `${Math.floor(x * 1000) / 10}%`;

export async function repairSessionCommand(s: Services, arg?: unknown): Promise<RepairResult | undefined> {
  const programmatic = isProgrammatic(arg);
  const o = options<RepairSessionArgs>(arg);
  if (!vscode.workspace.isTrusted) {
    const msg = 'Repair writes files, so it is disabled in Restricted Mode.';
    if (programmatic) throw new CommandInputError(msg);
    void vscode.window.showWarningMessage(msg);
    return undefined;
  }
  const file = await resolveTranscript(s, arg, { title: 'Repair Session', openLabel: 'Repair' });
  if (!file) {
    if (programmatic) throw new CommandInputError('Repair Session: no transcript given and none is shown');
    return undefined;
  }
  const index = await readSessionIndex(file);
  // Repair mends Claude Code's parent links: for another agent's session it says why it is not offered.
  const refusal = unsupported(index.format, 'repair');
  if (refusal) {
    if (programmatic) throw new CommandInputError(`Repair Session: ${refusal}`);
    void vscode.window.showInformationMessage(`${basename(file)}: ${refusal}`);
    return undefined;
  }
  let inPlace = o.inPlace === true;
  if (o.confirm !== false) {
    const { plan, before, after, canRepair, reason } = repairOutlook(index);
    if (!canRepair) {
      void vscode.window.showInformationMessage(
        `${basename(file)}: nothing Repair can fix (${reason}). Resume loads ${before.reachableMessages} of ${before.totalMessages} messages (${pct(before.reachability)}).`,
      );
      return undefined;
    }
    const choice = await vscode.window.showWarningMessage(
      `Repair ${basename(file)}? Resume loads ${before.reachableMessages} of ${before.totalMessages} messages now, ${after.reachableMessages} of ${after.totalMessages} after.`,
      {
        modal: true,
        detail: `${plan.changes.length} line${plan.changes.length === 1 ? '' : 's'} get a new parentUuid${plan.converted.length ? `; ${plan.converted.length} tool result${plan.converted.length === 1 ? '' : 's'} whose call is gone become text blocks saying so (lines ${plan.converted.map((c) => c.line).join(', ')})` : ''}; every other line stays byte-identical.${plan.skipped.length ? ` ${plan.skipped.length} line(s) are left as they are.` : ''} A fork is a new session beside the original, which stays untouched; in place keeps a backup.`,
      },
      FORK,
      IN_PLACE,
    );
    if (choice !== FORK && choice !== IN_PLACE) return undefined;
    inPlace = choice === IN_PLACE;
  }
  let result: RepairResult;
  try {
    result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Repairing ${basename(file)}…` },
      () => repairFile(file, { inPlace, out: o.out }),
    );
  } catch (err) {
    const msg = `Repair failed: ${err instanceof Error ? err.message : String(err)}`;
    s.log.error(msg);
    if (programmatic) throw err;
    void vscode.window.showErrorMessage(msg);
    return undefined;
  }
  s.log.info(
    `Repaired ${file}: ${result.changes.length} relinked, ${result.converted.length} converted, written to ${result.output ?? '(nothing)'}`,
  );
  for (const n of result.notes) s.log.info(`Repair: ${n}`);
  if (!result.output) return result;
  if (inPlace) s.store.invalidate(file);
  await s.store.load(result.output, { force: true });
  const text = `Repaired ${basename(file)}: resume now loads ${result.after.reachableMessages} of ${result.after.totalMessages} messages (${pct(result.after.reachability)}), written to ${basename(result.output)}.${result.notes.map((n) => ` Note: ${n}.`).join('')}`;
  const offer = result.sessionId ? [RESUME] : [];
  const shown = vscode.window.showInformationMessage(text, ...offer);
  const follow = shown.then(async (choice) => {
    // A refusal (no folder here, no claude) is already said by resumeSession.
    if (choice === RESUME && result.output)
      await resumeSession(s, { file: result.output, sessionId: result.sessionId ?? undefined }).catch(() => undefined);
  });
  if (!programmatic) await follow;
  return result;
}
