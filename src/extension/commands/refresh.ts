// Refresh: re-reads the shown transcript (appended bytes only; `{ full: true }` re-parses).
import * as vscode from 'vscode';
import type { Services } from '../services';
import { fileFromArg, options } from './args';
import { isTranscriptEditor } from '../store';

export interface RefreshResult {
  file: string;
  rounds: number;
  contextTokens: number;
}

export async function refreshCommand(s: Services, arg?: unknown): Promise<RefreshResult | undefined> {
  const o = options<{ full?: boolean }>(arg);
  const named = fileFromArg(arg);
  const editor = vscode.window.activeTextEditor;
  const file = named ?? s.store.file ?? (isTranscriptEditor(editor) ? editor.document.uri.fsPath : undefined);
  if (!file) return undefined;
  const analysis =
    file === s.store.file ? await s.store.refresh(o.full === true) : await s.store.load(file, { force: true });
  if (!analysis) return undefined;
  return { file, rounds: analysis.report.totals.rounds, contextTokens: analysis.report.totals.currentContextTokens };
}
