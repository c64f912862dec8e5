// Compact with a reviewed summary, in two steps (Compact Transcript's default): Review Summary
// writes the summary first (the offline one at once, or the Anthropic one streamed into its editor
// as it arrives; cancellable) and opens it in an editor beside the transcript; the user edits it, then Apply Summary compacts with exactly
// the text in that editor, or Discard Summary drops it. Nothing is written before Apply.
import * as vscode from 'vscode';
import { basename } from 'node:path';
import { draftSummary } from '../../core/compact/compact';
import { contextNow } from '../../core/context';
import { inspectFile } from '../../core/inspect';
import { CompactError } from '../../core/compact/types';
import { planSummary } from '../model/planText';
import { anthropicBaseUrl } from '../model/settings';
import { getSettings } from '../settings';
import type { Services } from '../services';
import { CommandInputError, isProgrammatic, options, resolveTranscript } from './args';
import type { CompactArgs } from './compactArgs';
import { CommandId } from '../commandIds';

export interface Pending {
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
  return reviewAndOffer(s, file, o, programmatic);
}

/** Review Summary for a settled transcript; failures are notified (thrown back only to programmatic callers). */
export async function reviewAndOffer(s: Services, file: string, o: Partial<CompactArgs>, programmatic: boolean): Promise<DraftResult | undefined> {
  try {
    return await reviewSummary(s, file, o, programmatic);
  } catch (err) {
    if (programmatic) throw err;
    const cancelled = err instanceof CompactError && err.code === 'cancelled';
    if (cancelled) void vscode.window.showInformationMessage(`Summary of ${basename(file)} cancelled; nothing was written.`);
    else {
      s.log.error(`Could not write the summary of ${file}`, err);
      void vscode.window.showErrorMessage(`Cannot write the summary of ${basename(file)}: ${err instanceof Error ? err.message : String(err)}`);
    }
    return undefined;
  }
}

/** Writes the summary (streamed into its editor when the Anthropic API writes it) and opens it for review. */
async function reviewSummary(s: Services, file: string, o: Partial<CompactArgs>, programmatic: boolean): Promise<DraftResult> {
  const config = getSettings(vscode.Uri.file(file));
  const settings = { ...s.store.compactSettings(file), ...(o.targetTokens ? { targetTokens: o.targetTokens } : {}), ...(o.settings ?? {}) };
  const anthropic = o.summarizer !== 'extractive' && config.summarizer === 'anthropic';
  const apiKey = anthropic ? await s.secrets.getApiKey() : undefined;
  const streamed = anthropic && apiKey ? await openStreamedDraft() : undefined;
  const draft = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Writing the summary of ${basename(file)}`, cancellable: true },
    async (progress, token) => {
      const abort = new AbortController();
      const sub = token.onCancellationRequested(() => abort.abort());
      try {
        return await draftSummary(file, {
          settings,
          summarizer: anthropic && apiKey ? 'anthropic' : 'extractive',
          anthropic: anthropic && apiKey ? { apiKey, model: config.model, baseURL: anthropicBaseUrl(config.baseUrl, process.env.ANTHROPIC_BASE_URL) } : undefined,
          instructions: o.instructions,
          signal: abort.signal,
          onProgress: (message) => progress.report({ message }),
          onSummaryText: streamed?.show,
        });
      } finally {
        sub.dispose();
        await streamed?.settle();
      }
    },
  );
  const previous = pending.get(file);
  if (previous) pending.delete(file);
  // The streamed editor gets the summary taken from the finished reply (or a new one if the user closed it).
  const reuse = streamed && !streamed.document.isClosed ? streamed.document : undefined;
  const document = reuse ?? (await vscode.workspace.openTextDocument({ language: 'markdown', content: draft.summary }));
  if (reuse) await replaceText(reuse, draft.summary);
  // The streamed editor stays where it is; a new one opens beside the transcript.
  const column = reuse ? vscode.window.visibleTextEditors.find((e) => e.document === reuse)?.viewColumn : undefined;
  await vscode.window.showTextDocument(document, { viewColumn: column ?? vscode.ViewColumn.Beside, preview: false });
  pending.set(file, { document, args: { ...o, file, confirm: false } });
  s.log.info(`Summary of ${file} drafted (${draft.summarizer}, ${draft.summary.length} characters); ${draft.plan.keptTokens} tokens kept verbatim`);
  if (!programmatic) {
    const analysis = s.store.file === file && s.store.analysis ? s.store.analysis : await inspectFile(file, { subagents: false });
    void offerApply(s, file, planSummary(draft.plan, contextNow(analysis.report)));
  }
  return { file, summary: draft.summary, document: document.uri.toString() };
}

/** Replaces the whole text of a document. */
async function replaceText(document: vscode.TextDocument, text: string): Promise<boolean> {
  if (document.isClosed || document.getText() === text) return true;
  const edit = new vscode.WorkspaceEdit();
  edit.replace(document.uri, new vscode.Range(document.positionAt(0), document.positionAt(document.getText().length)), text);
  return vscode.workspace.applyEdit(edit);
}

/**
 * An editor beside the transcript that shows the reply as it streams. Edits are chained one
 * after another and coalesced (only the newest text is written), so a fast stream never queues up.
 */
async function openStreamedDraft(): Promise<{ document: vscode.TextDocument; show: (text: string) => void; settle: () => Promise<void> }> {
  const document = await vscode.workspace.openTextDocument({ language: 'markdown', content: '' });
  await vscode.window.showTextDocument(document, { viewColumn: vscode.ViewColumn.Beside, preview: false, preserveFocus: true });
  let latest: string | undefined;
  let writing: Promise<void> = Promise.resolve();
  const flush = async (): Promise<void> => {
    while (latest !== undefined) {
      const text = latest;
      latest = undefined;
      await replaceText(document, text);
    }
  };
  return {
    document,
    show: (text) => {
      const idle = latest === undefined;
      latest = text;
      if (idle) writing = writing.then(flush, flush);
    },
    settle: () => writing,
  };
}

async function offerApply(s: Services, file: string, figures: string): Promise<void> {
  const choice = await vscode.window.showInformationMessage(`Summary of ${basename(file)} written (${figures}). Edit it if you like, then apply it: exactly that text is written.`, 'Apply Summary', 'Discard');
  // The compaction's own notification already told the user about a failure; keep it in the log.
  // Through the command, as the palette runs it (Apply Summary lives with Compact Transcript, which it runs).
  if (choice === 'Apply Summary') await Promise.resolve(vscode.commands.executeCommand(CommandId.applySummary, { file })).catch((err: unknown) => s.log.warn(`Apply Summary failed: ${err instanceof Error ? err.message : String(err)}`));
  else if (choice === 'Discard') discardSummaryCommand(s, { file });
}

/** The review in progress for a transcript (Apply Summary compacts with its text). */
export function reviewOf(file: string): Pending | undefined {
  return pending.get(file);
}

/** The review of `file` is over (applied). */
export function endReview(file: string): void {
  pending.delete(file);
}

export function discardSummaryCommand(s: Services, arg?: unknown): boolean {
  const file = options<{ file: string }>(arg).file ?? s.store.file;
  const had = file ? pending.delete(file) : false;
  if (had) s.log.info(`Summary of ${file} discarded; nothing was written`);
  return had;
}
