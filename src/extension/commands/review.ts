// Compact with a reviewed summary, in two steps: Review Summary writes the summary first (the
// offline one at once, or the Anthropic one when that summarizer is chosen; cancellable) and opens
// it in an editor beside the transcript; the user edits it, then Apply Summary compacts with exactly
// the text in that editor, or Discard Summary drops it. Nothing is written before Apply.
import * as vscode from 'vscode';
import { basename } from 'node:path';
import { draftSummary } from '../../core/compact/compact';
import type { CompactResult } from '../../core/compact/types';
import { getSettings } from '../settings';
import type { Services } from '../services';
import { CommandInputError, isProgrammatic, options, resolveTranscript } from './args';
import { compactCommand, type CompactArgs } from './compact';

interface Pending {
  document: vscode.TextDocument;
  args: CompactArgs;
}

/** Reviews in progress, by transcript. */
const pending = new Map<string, Pending>();

export interface DraftResult {
  file: string;
  summary: string;
  /** The editor's document holding the summary (edit it, then Apply Summary). */
  document: string;
}

export async function reviewSummaryCommand(s: Services, arg?: unknown): Promise<DraftResult | undefined> {
  const programmatic = isProgrammatic(arg);
  const o = options<CompactArgs>(arg);
  const file = await resolveTranscript(s, arg, { title: 'Review Summary', openLabel: 'Review' });
  if (!file) {
    if (programmatic) throw new CommandInputError('reviewSummary: no transcript given and none is shown');
    return undefined;
  }
  const config = getSettings(vscode.Uri.file(file));
  const settings = { ...s.store.compactSettings(file), ...(o.targetTokens ? { targetTokens: o.targetTokens } : {}), ...(o.settings ?? {}) };
  const anthropic = o.summarizer !== 'extractive' && config.summarizer === 'anthropic';
  const apiKey = anthropic ? await s.secrets.getApiKey() : undefined;
  const draft = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Writing the summary of ${basename(file)}`, cancellable: true },
    async (progress, token) => {
      const abort = new AbortController();
      const sub = token.onCancellationRequested(() => abort.abort());
      try {
        return await draftSummary(file, {
          settings,
          summarizer: anthropic && apiKey ? 'anthropic' : 'extractive',
          anthropic: anthropic && apiKey ? { apiKey, model: config.model, baseURL: config.baseUrl } : undefined,
          instructions: o.instructions,
          signal: abort.signal,
          onProgress: (message) => progress.report({ message }),
        });
      } finally {
        sub.dispose();
      }
    },
  );
  const previous = pending.get(file);
  if (previous) pending.delete(file);
  const document = await vscode.workspace.openTextDocument({ language: 'markdown', content: draft.summary });
  await vscode.window.showTextDocument(document, { viewColumn: vscode.ViewColumn.Beside, preview: false });
  pending.set(file, { document, args: { ...o, file, confirm: false } });
  s.log.info(`Summary of ${file} drafted (${draft.summarizer}, ${draft.summary.length} characters); ${draft.plan.keptTokens} tokens kept verbatim`);
  if (!programmatic) void offerApply(s, file);
  return { file, summary: draft.summary, document: document.uri.toString() };
}

async function offerApply(s: Services, file: string): Promise<void> {
  const choice = await vscode.window.showInformationMessage(`Edit the summary of ${basename(file)} if you like, then apply it: exactly that text is written.`, 'Apply Summary', 'Discard');
  if (choice === 'Apply Summary') await applySummaryCommand(s, { file });
  else if (choice === 'Discard') discardSummaryCommand(s, { file });
}

/** Compacts with the reviewed summary, exactly as it now reads in its editor. */
export async function applySummaryCommand(s: Services, arg?: unknown): Promise<CompactResult | undefined> {
  const file = options<{ file: string }>(arg).file ?? s.store.file;
  const review = file ? pending.get(file) : undefined;
  if (!file || !review) {
    if (isProgrammatic(arg)) throw new CommandInputError('applySummary: no summary is being reviewed for this transcript (run Review Summary first)');
    void vscode.window.showWarningMessage('No summary is being reviewed; run Compact Transcript: Review Summary first.');
    return undefined;
  }
  const summaryText = review.document.getText();
  const result = await compactCommand(s, { ...review.args, ...options<CompactArgs>(arg), file, confirm: false, summaryText });
  if (result) pending.delete(file);
  return result;
}

export function discardSummaryCommand(s: Services, arg?: unknown): boolean {
  const file = options<{ file: string }>(arg).file ?? s.store.file;
  const had = file ? pending.delete(file) : false;
  if (had) s.log.info(`Summary of ${file} discarded; nothing was written`);
  return had;
}
