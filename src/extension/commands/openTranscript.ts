// Open Transcript: shows a transcript's rounds (a file picked in a dialog, a Uri from the
// explorer, or `{ file }`), and opens it in an editor when picked interactively.
import * as vscode from 'vscode';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Services } from '../services';
import { EDITOR_LIMIT } from '../views/roundDocuments';
import { CommandInputError, fileFromArg, isProgrammatic, options, pickTranscript } from './args';

export interface OpenTranscriptArgs {
  file?: string;
  /** Also open it in a text editor (default: only when picked in the dialog). */
  open?: boolean;
}

export interface OpenTranscriptResult {
  file: string;
  rounds: number;
  contextTokens: number;
}

export async function openTranscriptCommand(s: Services, arg?: unknown): Promise<OpenTranscriptResult | undefined> {
  const programmatic = isProgrammatic(arg);
  const o = options<OpenTranscriptArgs>(arg);
  let file = fileFromArg(arg);
  let open = o.open;
  if (!file) {
    if (programmatic) throw new CommandInputError('openTranscript: { file } is required');
    file = await pickTranscript('Open Agent Session', 'Show Rounds');
    if (!file) return undefined;
    open ??= true;
  }
  const analysis = await s.store.load(file);
  if (!analysis) {
    const st = s.store.state;
    const why = st.status === 'error' ? st.message : 'it could not be read';
    if (programmatic) throw new Error(`openTranscript: ${why}`);
    void vscode.window.showErrorMessage(`Cannot show ${basename(file)}: ${why}`);
    return undefined;
  }
  if (open) {
    const size = (await stat(file)).size;
    if (size <= EDITOR_LIMIT)
      await vscode.commands.executeCommand('vscode.open', vscode.Uri.file(file), { preview: true });
    else if (!programmatic)
      void vscode.window.showInformationMessage(
        `${basename(file)} is too large to open in an editor; its rounds are in the Agent Compactor view.`,
      );
  }
  if (!programmatic) await vscode.commands.executeCommand('agentCompactor.rounds.focus');
  return { file, rounds: analysis.report.totals.rounds, contextTokens: analysis.report.totals.currentContextTokens };
}
