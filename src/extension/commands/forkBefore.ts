// Fork From Before This Compaction (the Rounds tree's compact boundary, context menu): a new session holding the
// conversation as it was just before a compaction the agent made by itself (core/repair/forkBefore.ts), for an idle or auto
// compaction that discarded working context. The original is never written. Shows the fork in the Rounds tree and
// offers to resume it in Claude Code.
import * as vscode from 'vscode';
import { basename } from 'node:path';
import { forkBeforeCompaction, type ForkBeforeResult } from '../../core/repair/forkBefore';
import type { Services } from '../services';
import { CommandInputError, isProgrammatic, options } from './args';
import { resumeSession } from './resume';

export interface ForkBeforeArgs {
  file: string;
  /** The compaction's number (1-based, in file order); a boundary node of the Rounds tree carries it. */
  compaction: number;
  /** false: no confirmation dialog (programmatic use). */
  confirm?: boolean;
}

const FORK = 'Write the Fork';
const RESUME = 'Resume in Claude Code';

export async function forkBeforeCompactionCommand(s: Services, arg?: unknown): Promise<ForkBeforeResult | undefined> {
  const programmatic = isProgrammatic(arg);
  const o = options<ForkBeforeArgs>(arg);
  if (!vscode.workspace.isTrusted) {
    const msg = 'Fork From Before This Compaction writes a file, so it is disabled in Restricted Mode.';
    if (programmatic) throw new CommandInputError(msg);
    void vscode.window.showWarningMessage(msg);
    return undefined;
  }
  // A boundary node of the Rounds tree (its context menu) or the options of a programmatic call: both name the file
  // and the compaction's number.
  const given = arg && typeof arg === 'object' ? (arg as { file?: unknown; compaction?: unknown }) : {};
  const file = typeof given.file === 'string' ? given.file : undefined;
  const number = typeof given.compaction === 'number' ? given.compaction : undefined;
  if (!file || number === undefined) {
    const msg = 'Fork From Before This Compaction: run it on a compact boundary of the Rounds view.';
    if (programmatic) throw new CommandInputError(msg);
    void vscode.window.showInformationMessage(msg);
    return undefined;
  }
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
  let result: ForkBeforeResult;
  try {
    result = await forkBeforeCompaction(file, number);
  } catch (err) {
    const msg = `Fork From Before This Compaction: ${err instanceof Error ? err.message : String(err)}`;
    s.log.error(msg);
    if (programmatic) throw err;
    void vscode.window.showErrorMessage(msg);
    return undefined;
  }
  s.log.info(`Forked ${file} from before compaction ${number}: ${result.output}`);
  await s.store.load(result.output, { force: true });
  const text = `Wrote ${basename(result.output)}: ${basename(file)} as it was before compaction ${number} (${result.messages} messages on resume).`;
  const shown = vscode.window.showInformationMessage(text, ...(result.resumeCommand ? [RESUME] : []));
  const follow = shown.then(async (choice) => {
    // A refusal (no program, Restricted Mode) is said by resumeSession itself.
    if (choice === RESUME)
      await resumeSession(s, { file: result.output, sessionId: result.sessionId }).catch((err: unknown) =>
        s.log.warn(`Resume failed: ${err instanceof Error ? err.message : String(err)}`),
      );
  });
  if (!programmatic) await follow;
  return result;
}
