// Fork From Before This Compaction (the Rounds tree's compact boundary, context menu): a new session holding the
// conversation as it was just before a compaction the agent made by itself (core/repair/forkBefore.ts), for an idle or auto
// compaction that discarded working context. The original is never written. Shows the fork in the Rounds tree and
// offers to resume it in Claude Code.
import * as vscode from 'vscode';
import { basename } from 'node:path';
import { forkBeforeCompaction, type ForkBeforeResult } from '../../core/repair/forkBefore';
import type { Services } from '../services';
import { bool, int, options, str } from '../../webview/validate';
import { CommandFailure, CommandInputError, forPerson, optionsOf } from './call';
import { resumeSession } from './resume';

/** `{ file, compaction, confirm }`: the session, the compaction's number (1-based, in file order), `confirm: false` for no dialog. */
export const FORK_BEFORE_OPTIONS = options({
  file: str(4_096, { min: 1 }),
  compaction: int({ min: 1 }),
  confirm: bool,
});

const FORK = 'Write the Fork';
const RESUME = 'Resume in Claude Code';

/** Refused in Restricted Mode: the fork is a file written. */
function assertTrusted(): void {
  if (!vscode.workspace.isTrusted)
    throw new CommandInputError(
      'Fork From Before This Compaction writes a file, so it is disabled in Restricted Mode.',
    );
}

export async function forkBeforeCompactionCommand(s: Services, arg: unknown): Promise<ForkBeforeResult | undefined> {
  const o = optionsOf(FORK_BEFORE_OPTIONS, 'Fork From Before This Compaction', arg);
  assertTrusted();
  // A boundary node of the Rounds tree (its context menu) or the options of a call from code: both name the file
  // and the compaction's number.
  const given = arg && typeof arg === 'object' ? (arg as { file?: unknown; compaction?: unknown }) : {};
  const file = typeof given.file === 'string' ? given.file : undefined;
  const number = typeof given.compaction === 'number' ? given.compaction : undefined;
  if (!file || number === undefined)
    throw new CommandInputError('Fork From Before This Compaction: run it on a compact boundary of the Rounds view.', {
      severity: 'info',
    });
  if (o.confirm !== false) {
    const choice = await vscode.window.showWarningMessage(
      `Fork ${basename(file)} from before compaction ${number}?`,
      {
        modal: true,
        detail:
          'Writes a new session beside this one holding the conversation as it was just before that compaction (every line written before it, unchanged), so you can resume it with the context the compaction discarded. This session stays as it is.',
      },
      FORK,
    );
    if (choice !== FORK) return undefined;
  }
  return forkBefore(s, file, number);
}

/** Writes the fork of `file` from before compaction `number`, shows it and offers to resume it. */
export async function forkBefore(s: Services, file: string, number: number): Promise<ForkBeforeResult> {
  assertTrusted();
  let result: ForkBeforeResult;
  try {
    result = await forkBeforeCompaction(file, number);
  } catch (err) {
    throw new CommandFailure(
      `Fork From Before This Compaction: ${err instanceof Error ? err.message : String(err)}`,
      err,
    );
  }
  s.log.info(`Forked ${file} from before compaction ${number}: ${result.output}`);
  await s.store.load(result.output, { force: true });
  const text = `Wrote ${basename(result.output)}: ${basename(file)} as it was before compaction ${number} (${result.messages} messages on resume).`;
  // The button resumes the fork; what stands in the way is said as Resume Session says it.
  void vscode.window.showInformationMessage(text, ...(result.resumeCommand ? [RESUME] : [])).then(async (choice) => {
    if (choice === RESUME)
      await forPerson(s, 'Resume Session', () =>
        resumeSession(s, { file: result.output, sessionId: result.sessionId }),
      );
  });
  return result;
}
