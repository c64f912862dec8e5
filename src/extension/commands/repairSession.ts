// Repair Session: links every broken parent of a transcript so that resume loads the whole active context again.
// Says what resume loads now and would load after, asks (fork by default, or in place with a backup), writes, shows
// the result in the Rounds tree and offers to resume it in Claude Code. Refuses while the file is still being written.
import * as vscode from 'vscode';
import { basename } from 'node:path';
import { readSessionIndex } from '../../core/inspect';
import { unsupported } from '../../core/formats/registry';
import { repairFile, repairOutlook, type RepairResult } from '../../core/repair/repair';
import type { Services } from '../services';
import { bool, options, str } from '../../webview/validate';
import { resolveTranscript } from './args';
import { CommandFailure, CommandInputError, forPerson, optionsOf, type Call } from './call';
import { resumeSession } from './resume';
import { reachPercent, repairConfirmDetail, repairResultText } from '../model/repairText';

/** `{ file, confirm, inPlace, out }`: `confirm: false` for no dialog; in place (after a backup) or to `out` instead of a fork. */
export const REPAIR_OPTIONS = options({
  file: str(4_096, { min: 1 }),
  confirm: bool,
  inPlace: bool,
  out: str(4_096, { min: 1 }),
});

const FORK = 'Repair as Fork';
const IN_PLACE = 'Repair in Place';
const RESUME = 'Resume in Claude Code';

const pct = reachPercent;

/** Refused in Restricted Mode: repair writes files. */
function assertTrusted(): void {
  if (!vscode.workspace.isTrusted)
    throw new CommandInputError('Repair writes files, so it is disabled in Restricted Mode.');
}

export async function repairSessionCommand(s: Services, arg: unknown, call: Call): Promise<RepairResult | undefined> {
  const o = optionsOf(REPAIR_OPTIONS, 'Repair Session', arg);
  assertTrusted();
  const file = await resolveTranscript(s, arg, call.ui, { title: 'Repair Session', openLabel: 'Repair' });
  if (!file) return undefined;
  const index = await readSessionIndex(file);
  // Repair mends Claude Code's parent links: for another agent's session it says why it is not offered.
  const refusal = unsupported(index.format, 'repair');
  if (refusal) throw new CommandInputError(`${basename(file)}: ${refusal}`, { severity: 'info' });
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
        detail: repairConfirmDetail(plan),
      },
      FORK,
      IN_PLACE,
    );
    if (choice !== FORK && choice !== IN_PLACE) return undefined;
    inPlace = choice === IN_PLACE;
  }
  return repair(s, file, { inPlace, out: o.out });
}

/** Repairs `file` (a fork by default), shows the result and offers to resume it. */
export async function repair(
  s: Services,
  file: string,
  how: { inPlace: boolean; out?: string },
): Promise<RepairResult> {
  assertTrusted();
  const { inPlace } = how;
  let result: RepairResult;
  try {
    result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Repairing ${basename(file)}…` },
      () => repairFile(file, { inPlace, out: how.out }),
    );
  } catch (err) {
    throw new CommandFailure(`Repair failed: ${err instanceof Error ? err.message : String(err)}`, err);
  }
  s.log.info(
    `Repaired ${file}: ${result.changes.length} relinked, ${result.converted.length} converted, written to ${result.output ?? '(nothing)'}`,
  );
  for (const n of result.notes) s.log.info(`Repair: ${n}`);
  if (!result.output) return result;
  if (inPlace) s.store.invalidate(file);
  await s.store.load(result.output, { force: true });
  const text = repairResultText(file, { ...result, output: result.output });
  const offer = result.sessionId ? [RESUME] : [];
  const output = result.output;
  // The button resumes the repaired session; what stands in the way is said as Resume Session says it.
  void vscode.window.showInformationMessage(text, ...offer).then(async (choice) => {
    if (choice === RESUME)
      await forPerson(s, 'Resume Session', () =>
        resumeSession(s, { file: output, sessionId: result.sessionId ?? undefined }),
      );
  });
  return result;
}
