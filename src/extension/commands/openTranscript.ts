// Open Transcript: shows a transcript's rounds (a file picked in a dialog, a Uri from the
// explorer, or `{ file }`), and opens it in an editor when picked interactively.
import * as vscode from 'vscode';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Services } from '../services';
import { EDITOR_LIMIT } from '../views/roundDocuments';
import { bool, options, str } from '../../webview/validate';
import { fileFromArg, pickTranscript } from './args';
import { CommandFailure, CommandInputError, optionsOf, type Call } from './call';

/** `{ file, open }`: the transcript to show, and whether to open it in a text editor too (default: only when picked). */
export const OPEN_TRANSCRIPT_OPTIONS = options({ file: str(4_096, { min: 1 }), open: bool });

export interface OpenTranscriptResult {
  file: string;
  rounds: number;
  contextTokens: number;
  /** Whether it was opened in a text editor (false when asked but too large for one). */
  opened: boolean;
}

/** Shows the rounds of `file` (and opens it in an editor when `open` and it is not too large); throws when unreadable. */
export async function openTranscript(s: Services, file: string, open: boolean): Promise<OpenTranscriptResult> {
  const analysis = await s.store.load(file);
  if (!analysis) {
    const st = s.store.state;
    const why = st.status === 'error' ? st.message : 'it could not be read';
    throw new CommandFailure(`Cannot show ${basename(file)}: ${why}`, new Error(`Open Transcript: ${why}`));
  }
  const opened = open && (await stat(file)).size <= EDITOR_LIMIT;
  if (opened) await vscode.commands.executeCommand('vscode.open', vscode.Uri.file(file), { preview: true });
  return {
    file,
    rounds: analysis.report.totals.rounds,
    contextTokens: analysis.report.totals.currentContextTokens,
    opened,
  };
}

export async function openTranscriptCommand(
  s: Services,
  arg: unknown,
  call: Call,
): Promise<OpenTranscriptResult | undefined> {
  const o = optionsOf(OPEN_TRANSCRIPT_OPTIONS, 'Open Transcript', arg);
  const given = fileFromArg(arg);
  const file =
    given ??
    (await call.ui.ask(
      () => pickTranscript('Open Agent Session', 'Show Rounds'),
      () => {
        throw new CommandInputError('Open Transcript: { file } is required');
      },
    ));
  if (!file) return undefined;
  // A transcript picked in the dialog opens in an editor too, unless asked otherwise.
  const open = o.open ?? given === undefined;
  const result = await openTranscript(s, file, open);
  if (open && !result.opened)
    await call.ui.present(
      () =>
        void vscode.window.showInformationMessage(
          `${basename(file)} is too large to open in an editor; its rounds are in the Agent Compactor view.`,
        ),
    );
  await call.ui.present(() => vscode.commands.executeCommand('agentCompactor.rounds.focus'));
  return result;
}
