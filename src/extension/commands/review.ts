// Compact with a reviewed summary, in two steps (Compact Transcript's default): Review Summary
// writes the summary first (the offline one at once, or the Anthropic one streamed into its editor
// as it arrives; cancellable) and opens it in an editor beside the transcript; the user edits it, then Apply Summary compacts with exactly
// the text in that editor, or Discard Summary drops it. Nothing is written before Apply.
// Beside the summary, CodeLenses: what it keeps of the summarized part's facts (re-measured as the user edits; the facts
// are found once, when the review starts), one "Add" per missing fact, and Apply / Discard (also the editor's title
// actions, shown while a review document is the active editor).
import * as vscode from 'vscode';
import { ContextKey } from '../contextKeys';
import { setContext } from '../setContext';
import { basename } from 'node:path';
import { draftSummary, type PlannedCompaction } from '../../core/compact/compact';
import { contextNow } from '../../core/context';
import { inspectFile } from '../../core/inspect';
import { CompactError, type CompactionPlan } from '../../core/compact/types';
import { planSummary } from '../model/planText';
import { formatNumber } from '../model/format';
import { promiseGap, promisedContext } from '../../core/compact/promise';
import { agentPrograms, anthropicBaseUrl } from '../model/settings';
import { getSettings } from '../settings';
import type { Services } from '../services';
import { resolveTranscript } from './args';
import { COMPACT_OPTIONS, writeTargetOf, type CompactArgs } from './compactArgs';
import { CommandFailure, isOptionsObject, optionsOf, type Call } from './call';
import { bool, int, options, str } from '../../webview/validate';
import { CommandId } from '../commandIds';
import type { Fact } from '../../core/compact/fidelity';
import { factInsertion, reviewChecklist, checklistTitle } from '../model/reviewChecklist';

export interface Pending {
  document: vscode.TextDocument;
  args: CompactArgs;
  /** The plan the summary was drafted for: Apply Summary writes it (core plans again, and says so, if the file changed). */
  planned: PlannedCompaction;
  /** The status bar item that says a summary is waiting (gone when the review ends). */
  hint: vscode.StatusBarItem;
  /** The summarized part's facts, found when the review started (the checklist measures the text against them). */
  facts: Fact[];
  /** The plan's figures (tokens before and after), when known. */
  figures?: string;
}

/** Reviews in progress, by transcript. */
const pending = new Map<string, Pending>();

export interface DraftResult {
  file: string;
  summary: string;
  /** The editor's document holding the summary (edit it, then Apply Summary). */
  document: string;
  /** The plan the summary was drafted for, which Apply Summary writes. */
  plan: CompactionPlan;
}

export async function reviewSummaryCommand(s: Services, arg: unknown, call: Call): Promise<DraftResult | undefined> {
  const o = optionsOf(COMPACT_OPTIONS, 'Review Summary', arg);
  const file = await resolveTranscript(s, arg, call.ui, { title: 'Review Summary', openLabel: 'Review' });
  return file ? reviewSummary(s, file, o) : undefined;
}

/**
 * Review Summary for a settled transcript (the use case: Compact's confirmation calls it too); a failure is said in
 * words for a person (a cancellation as such), the engine's error kept for code.
 */
export async function reviewSummary(s: Services, file: string, o: Partial<CompactArgs>): Promise<DraftResult> {
  try {
    return await draftForReview(s, file, o);
  } catch (err) {
    if (err instanceof CompactError && err.code === 'cancelled')
      throw new CommandFailure(`Summary of ${basename(file)} cancelled; nothing was written.`, err, {
        severity: 'info',
      });
    s.log.error(`Could not write the summary of ${file}`, err);
    throw new CommandFailure(
      `Cannot write the summary of ${basename(file)}: ${err instanceof Error ? err.message : String(err)}`,
      err,
    );
  }
}

/** Writes the summary (streamed into its editor when the Anthropic API writes it) and opens it for review. */
async function draftForReview(s: Services, file: string, o: Partial<CompactArgs>): Promise<DraftResult> {
  const config = getSettings(vscode.Uri.file(file));
  const target = writeTargetOf(o, config.writeMode);
  const settings = {
    ...s.store.compactSettings(file),
    ...(o.targetTokens ? { targetTokens: o.targetTokens } : {}),
    ...(o.settings ?? {}),
  };
  const anthropic = o.summarizer !== 'extractive' && config.summarizer === 'anthropic';
  // The user's agent CLI, when the setting chooses it (a caller can only opt out, as for the API).
  const agentCli =
    o.summarizer !== 'extractive' && (config.summarizer === 'claude-cli' || config.summarizer === 'codex-cli')
      ? config.summarizer
      : undefined;
  const apiKey = anthropic ? await s.secrets.getApiKey() : undefined;
  const streamed = anthropic && apiKey ? await openStreamedDraft(file) : undefined;
  // The decisions the store holds for the file (what its plan shows), the same ones Apply Summary plans with.
  const decisions = await s.store.decisions(file);
  const draft = await vscode.window.withProgress(
    {
      location: vscode.ProgressLocation.Notification,
      title: `Writing the summary of ${basename(file)}`,
      cancellable: true,
    },
    async (progress, token) => {
      const abort = new AbortController();
      const sub = token.onCancellationRequested(() => abort.abort());
      try {
        return await draftSummary(file, {
          settings,
          decisions,
          // Where Apply Summary writes, as Compact would: the plan is made for it (in place refuses a half-written tail).
          inPlace: target.mode === 'inPlace',
          out: target.out,
          force: target.force,
          summarizer: anthropic && apiKey ? 'anthropic' : (agentCli ?? 'extractive'),
          agentCli: agentCli ? agentPrograms(config) : undefined,
          anthropic:
            anthropic && apiKey
              ? {
                  apiKey,
                  model: config.model,
                  baseURL: anthropicBaseUrl(config.baseUrl, process.env.ANTHROPIC_BASE_URL),
                }
              : undefined,
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
  // The streamed editor stays where it is; a new one opens where there is room.
  const column = reuse ? vscode.window.visibleTextEditors.find((e) => e.document === reuse)?.viewColumn : undefined;
  await vscode.window.showTextDocument(document, { viewColumn: column ?? summaryColumn(file), preview: false });
  // The analysis the lens's figures are measured against: the shown one, else the file read for them.
  const analysis =
    s.store.file === file && s.store.analysis
      ? s.store.analysis
      : await inspectFile(file, { subagents: false }).catch(() => undefined);
  // The plan with this summary (its size, not the reserve), against what the confirmation promised.
  const promised = o.promised ?? draft.promised;
  const gap = promiseGap(promised, promisedContext(draft.plan), formatNumber);
  const figures = analysis
    ? `${planSummary(draft.plan, contextNow(analysis.report))}${gap ? ` (planned ${formatNumber(promised.tokens)}: ${gap})` : ''}`
    : undefined;
  previous?.hint.dispose();
  pending.set(file, {
    document,
    args: { ...o, file, confirm: false, promised },
    planned: draft.planned,
    hint: reviewHint(file, document),
    facts: draft.facts ?? [],
    figures,
  });
  reviewsChanged.fire();
  s.log.info(
    `Summary of ${file} drafted (${draft.summarizer}, ${draft.summary.length} characters); ${draft.plan.keptTokens} tokens kept verbatim`,
  );
  return { file, summary: draft.summary, document: document.uri.toString(), plan: draft.plan };
}

/**
 * The status bar item of a review: it says a summary is waiting and shows it when clicked, for as long as the review
 * is open (a timed message outlived Apply and Discard, and vanished while the summary still waited).
 */
function reviewHint(file: string, document: vscode.TextDocument): vscode.StatusBarItem {
  const item = vscode.window.createStatusBarItem(REVIEW_HINT_ID, vscode.StatusBarAlignment.Left, 100);
  item.name = 'Agent Compactor: summary under review';
  item.text = `$(edit) Summary of ${basename(file)}: Apply or Discard`;
  item.tooltip = `The summary of ${basename(file)} is written and nothing else yet: edit it, then Apply Summary or Discard (above it, or in its editor's title). Click to show it.`;
  item.command = { title: 'Show the summary', command: 'vscode.open', arguments: [document.uri] };
  item.show();
  return item;
}

/** The review hint's id (its element in the status bar). */
export const REVIEW_HINT_ID = 'agentCompactor.reviewHint';

/**
 * Where the summary opens: beside the transcript when it is alone; with two or more groups, never a new one (a third
 * group squeezed the Context Map to a sliver): a group that shows no webview and not the transcript, else the
 * transcript's own group.
 */
function summaryColumn(transcript: string): vscode.ViewColumn {
  const groups = vscode.window.tabGroups.all;
  if (groups.length < 2) return vscode.ViewColumn.Beside;
  const showsWebview = (g: vscode.TabGroup) => g.activeTab?.input instanceof vscode.TabInputWebview;
  const holdsTranscript = (g: vscode.TabGroup) =>
    g.tabs.some((t) => t.input instanceof vscode.TabInputText && t.input.uri.fsPath === transcript);
  const room =
    groups.find((g) => !showsWebview(g) && !holdsTranscript(g)) ??
    groups.find(holdsTranscript) ??
    groups.find((g) => !showsWebview(g));
  return room?.viewColumn ?? vscode.ViewColumn.Beside;
}

/** Replaces the whole text of a document. */
async function replaceText(document: vscode.TextDocument, text: string): Promise<boolean> {
  if (document.isClosed || document.getText() === text) return true;
  const edit = new vscode.WorkspaceEdit();
  edit.replace(
    document.uri,
    new vscode.Range(document.positionAt(0), document.positionAt(document.getText().length)),
    text,
  );
  return vscode.workspace.applyEdit(edit);
}

/**
 * An editor beside the transcript that shows the reply as it streams. Edits are chained one
 * after another and coalesced (only the newest text is written), so a fast stream never queues up.
 */
async function openStreamedDraft(
  file: string,
): Promise<{ document: vscode.TextDocument; show: (text: string) => void; settle: () => Promise<void> }> {
  const document = await vscode.workspace.openTextDocument({ language: 'markdown', content: '' });
  await vscode.window.showTextDocument(document, {
    viewColumn: summaryColumn(file),
    preview: false,
    preserveFocus: true,
  });
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

/** The review in progress for a transcript (Apply Summary compacts with its text). */
export function reviewOf(file: string): Pending | undefined {
  return pending.get(file);
}

/** `{ file }`: the transcript whose review Apply Summary or Discard Summary is for (a CodeLens passes it). */
export const REVIEW_FILE_OPTIONS = options({ file: str(4_096, { min: 1 }), open: bool });

/** `{ file, fact }`: the review, and the index of the missing fact to add (the CodeLens passes them). */
export const ADD_FACT_OPTIONS = options({ file: str(4_096, { min: 1 }), fact: int() });

/** The transcript whose review a command is for: `{ file }`, else the review document given (an editor title action passes its URI) or active, else the transcript shown. */
export function reviewFileOf(s: Services, arg: unknown): string | undefined {
  const given = isOptionsObject(arg) && typeof arg.file === 'string' ? arg.file : undefined;
  if (given) return given;
  const uri = arg instanceof vscode.Uri ? arg : vscode.window.activeTextEditor?.document.uri;
  const review = uri ? [...pending.entries()].find(([, p]) => p.document.uri.toString() === uri.toString()) : undefined;
  return review?.[0] ?? s.store.file;
}

/** The review of `file` is over (applied or discarded): its document closes without asking to save (it is untitled). */
export async function endReview(file: string): Promise<void> {
  const review = pending.get(file);
  review?.hint.dispose();
  pending.delete(file);
  reviewsChanged.fire();
  if (review && !review.document.isClosed) {
    await vscode.window.showTextDocument(review.document, { preview: false });
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  }
}

export async function discardSummaryCommand(s: Services, arg: unknown): Promise<boolean> {
  optionsOf(REVIEW_FILE_OPTIONS, 'Discard Summary', arg);
  const file = reviewFileOf(s, arg);
  const had = file !== undefined && pending.has(file);
  if (file && had) {
    await endReview(file);
    s.log.info(`Summary of ${file} discarded; nothing was written`);
  }
  return had;
}

/** Adds a missing fact (`{ file, fact }`: its index in the review's facts) to the end of the summary, under "Also:". */
export async function addSummaryFactCommand(_s: Services, arg: unknown): Promise<boolean> {
  const { file, fact } = optionsOf(ADD_FACT_OPTIONS, 'Add to Summary', arg);
  const review = file ? pending.get(file) : undefined;
  const added = review && typeof fact === 'number' ? review.facts[fact] : undefined;
  if (!review || !added || review.document.isClosed) return false;
  const at = factInsertion(review.document.getText(), added);
  const edit = new vscode.WorkspaceEdit();
  edit.insert(review.document.uri, review.document.positionAt(at.offset), at.text);
  const done = await vscode.workspace.applyEdit(edit);
  lensesChanged.fire();
  return done;
}

const reviewsChanged = new vscode.EventEmitter<void>();
const lensesChanged = new vscode.EventEmitter<void>();
const LENS_DEBOUNCE_MS = 250;
const MAX_LENS_LABEL = 100;
const MAX_ADD_LENSES = 6;

/** The checklist and the Apply / Discard lenses of a review document, as its text now reads. */
export function reviewLenses(document: vscode.TextDocument): vscode.CodeLens[] {
  const review = [...pending.entries()].find(([, p]) => p.document === document);
  if (!review) return [];
  const [file, { facts, figures }] = review;
  const top = new vscode.Range(0, 0, 0, 0);
  const { report, missing } = reviewChecklist(facts, document.getText());
  const lenses = [
    new vscode.CodeLens(top, {
      title: '$(check) Apply Summary',
      command: CommandId.applySummary,
      arguments: [{ file }],
    }),
    new vscode.CodeLens(top, { title: '$(close) Discard', command: CommandId.discardSummary, arguments: [{ file }] }),
    new vscode.CodeLens(top, { title: checklistTitle(report), command: '' }),
  ];
  if (figures) lenses.push(new vscode.CodeLens(top, { title: figures, command: '' }));
  // The missing facts on the line below, the first few (a row of fifty would hide the text), in the order spanFacts finds
  // them: requests, then errors and failed commands, then files.
  const second = new vscode.Range(Math.min(1, document.lineCount - 1), 0, Math.min(1, document.lineCount - 1), 0);
  for (const f of missing.slice(0, MAX_ADD_LENSES)) {
    const label = f.label.length > MAX_LENS_LABEL ? `${f.label.slice(0, MAX_LENS_LABEL - 1)}…` : f.label;
    lenses.push(
      new vscode.CodeLens(second, {
        title: `Add: ${label}`,
        command: CommandId.addSummaryFact,
        arguments: [{ file, fact: facts.indexOf(f) }],
      }),
    );
  }
  if (missing.length > MAX_ADD_LENSES)
    lenses.push(
      new vscode.CodeLens(second, { title: `and ${missing.length - MAX_ADD_LENSES} more missing`, command: '' }),
    );
  return lenses;
}

/** The review documents' CodeLenses (re-measured, debounced, as the user edits) and the context key of their editors. */
export function registerReviewUi(): vscode.Disposable[] {
  let timer: NodeJS.Timeout | undefined;
  const updateReviewingKey = () => {
    const doc = vscode.window.activeTextEditor?.document;
    const reviewing = doc !== undefined && [...pending.values()].some((p) => p.document === doc);
    void setContext(ContextKey.reviewingSummary, reviewing);
  };
  return [
    vscode.languages.registerCodeLensProvider(
      { scheme: 'untitled' },
      { onDidChangeCodeLenses: lensesChanged.event, provideCodeLenses: reviewLenses },
    ),
    vscode.workspace.onDidChangeTextDocument((e) => {
      if (![...pending.values()].some((p) => p.document === e.document)) return;
      clearTimeout(timer);
      timer = setTimeout(() => lensesChanged.fire(), LENS_DEBOUNCE_MS);
    }),
    vscode.workspace.onDidCloseTextDocument((doc) => {
      // A review whose document was closed cannot be applied (its text is gone): it is over.
      for (const [file, p] of pending)
        if (p.document === doc) {
          p.hint.dispose();
          pending.delete(file);
        }
      updateReviewingKey();
    }),
    vscode.window.onDidChangeActiveTextEditor(updateReviewingKey),
    reviewsChanged.event(() => {
      updateReviewingKey();
      lensesChanged.fire();
    }),
    {
      dispose: () => {
        clearTimeout(timer);
        for (const p of pending.values()) p.hint.dispose();
      },
    },
  ];
}
