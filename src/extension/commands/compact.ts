// Compact Transcript: plan, confirm with figures, run with a cancellable progress
// notification, open the result and offer a diff. Errors become notifications with an
// action that helps (set the key, use the offline summary, retry...).
import * as vscode from 'vscode';
import { basename } from 'node:path';
import { inspectFile } from '../../core/inspect';
import { planCompaction } from '../../core/compact/plan';
import { compactFile, type CompactOptions } from '../../core/compact/compact';
import type { CompactionPlan, CompactResult, CompactSettings } from '../../core/compact/types';
import { adviceFor, type ErrorAction } from '../model/errors';
import { confirmationText, planSummary, resultSummary } from '../model/planText';
import type { Summarizer, WriteMode } from '../model/settings';
import { getSettings } from '../settings';
import type { Services } from '../services';
import { CommandInputError, isProgrammatic, options, resolveTranscript } from './args';

export interface CompactArgs {
  file?: string;
  /** false: no confirmation dialog (programmatic use). */
  confirm?: boolean;
  summarizer?: Summarizer;
  writeMode?: WriteMode;
  /** Output path (newFile mode). */
  out?: string;
  targetTokens?: number;
  settings?: Partial<CompactSettings>;
  instructions?: string;
  /** Open the result in an editor (default true). */
  open?: boolean;
}

async function planFor(s: Services, file: string, settings: Partial<CompactSettings>): Promise<CompactionPlan> {
  if (s.store.file === file) {
    const analysis = await s.store.refresh();
    if (analysis) return planCompaction(analysis, settings);
  }
  const analysis = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Window, title: `Agent Compactor: reading ${basename(file)}` },
    () => inspectFile(file, { yieldEvery: 500 }),
  );
  return planCompaction(analysis, settings);
}

/** Asks for a key when the Anthropic summarizer is chosen and none is available. */
async function ensureKey(s: Services, summarizer: Summarizer): Promise<{ summarizer: Summarizer; apiKey?: string } | undefined> {
  if (summarizer !== 'anthropic') return { summarizer };
  const key = await s.secrets.getApiKey();
  if (key || process.env.ANTHROPIC_API_KEY) return { summarizer, apiKey: key };
  const choice = await vscode.window.showWarningMessage(
    'No Anthropic API key is set. Set one (kept in VS Code secret storage) or use the offline extractive summary.',
    'Set API Key',
    'Use Offline Summary',
  );
  if (choice === 'Use Offline Summary') return { summarizer: 'extractive' };
  if (choice === 'Set API Key') {
    const ok = await vscode.commands.executeCommand<boolean>('agentCompactor.setApiKey');
    const next = ok ? await s.secrets.getApiKey() : undefined;
    return next ? { summarizer, apiKey: next } : undefined;
  }
  return undefined;
}

export async function compactCommand(s: Services, arg?: unknown): Promise<CompactResult | undefined> {
  const programmatic = isProgrammatic(arg);
  const o = options<CompactArgs>(arg);
  if (!vscode.workspace.isTrusted) {
    const msg = 'Compaction writes files and may send transcript content to the Anthropic API, so it is disabled in Restricted Mode.';
    if (programmatic) throw new CommandInputError(msg);
    const choice = await vscode.window.showWarningMessage(msg, 'Manage Workspace Trust');
    if (choice) await vscode.commands.executeCommand('workbench.trust.manage');
    return undefined;
  }
  const file = await resolveTranscript(s, arg, { title: 'Compact Transcript', openLabel: 'Compact' });
  if (!file) {
    if (programmatic) throw new CommandInputError('compact: no transcript given and none is shown');
    return undefined;
  }
  const config = getSettings(vscode.Uri.file(file));
  const mode: WriteMode = o.writeMode ?? config.writeMode;
  let settings: Partial<CompactSettings> = s.store.file === file ? s.store.compactSettings() : config.compact;
  if (o.targetTokens) settings = { ...settings, targetTokens: o.targetTokens };
  if (o.settings) settings = { ...settings, ...o.settings };

  const keyed = programmatic
    ? { summarizer: o.summarizer ?? config.summarizer, apiKey: await s.secrets.getApiKey() }
    : await ensureKey(s, o.summarizer ?? config.summarizer);
  if (!keyed) return undefined;
  const summarizer = keyed.summarizer;

  let plan: CompactionPlan;
  try {
    plan = await planFor(s, file, settings);
  } catch (err) {
    s.log.error(`Could not plan a compaction of ${file}`, err);
    if (programmatic) throw err;
    void vscode.window.showErrorMessage(`Cannot compact ${basename(file)}: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  }
  s.log.info(`Plan for ${file}: ${planSummary(plan)}`);

  if (!programmatic && plan.nothingToDo) {
    const choice = await vscode.window.showInformationMessage(`${basename(file)}: ${planSummary(plan)}.`, 'Open Settings');
    if (choice) await vscode.commands.executeCommand('workbench.action.openSettings', 'agentCompactor.targetTokens');
    return undefined;
  }
  if (o.confirm !== false) {
    const { message, detail } = confirmationText(plan, { mode, summarizer, model: config.model });
    const choice = await vscode.window.showWarningMessage(message, { modal: true, detail }, 'Compact', 'Open Budget Preview');
    if (choice === 'Open Budget Preview') {
      await vscode.commands.executeCommand('agentCompactor.openBudget', { file });
      return undefined;
    }
    if (choice !== 'Compact') return undefined;
  }

  const compactOptions: CompactOptions = {
    settings,
    summarizer,
    inPlace: mode === 'inPlace',
    instructions: o.instructions,
  };
  if (o.out && mode === 'newFile') compactOptions.out = o.out;
  if (summarizer === 'anthropic') {
    compactOptions.anthropic = { apiKey: keyed.apiKey, model: config.model, baseURL: config.baseUrl };
  }

  let result: CompactResult;
  try {
    result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Compacting ${basename(file)}`, cancellable: true },
      async (progress, token) => {
        const abort = new AbortController();
        const sub = token.onCancellationRequested(() => abort.abort());
        try {
          progress.report({ message: summarizer === 'anthropic' ? 'summarizing with the Anthropic API…' : 'writing an offline summary…' });
          return await compactFile(file, {
            ...compactOptions,
            signal: abort.signal,
            onProgress: (message) => {
              progress.report({ message });
              s.log.info(`[compact ${basename(file)}] ${message}`);
            },
          });
        } finally {
          sub.dispose();
        }
      },
    );
  } catch (err) {
    return handleFailure(s, err, arg, summarizer, programmatic);
  }

  s.store.lastResult = result;
  s.log.info(`${resultSummary(result)} Output: ${result.output}${result.backup ? `; backup ${result.backup}` : ''}`);
  for (const a of result.attempts) s.log.info(`  attempt ${a.attempt}: ${a.strategy} → ${a.outcome}${a.detail ? ` (${a.detail})` : ''}`);
  if (mode === 'inPlace') {
    s.store.invalidate(file);
    if (s.store.file === file) await s.store.refresh(true);
  }
  if (o.open !== false) {
    try {
      await vscode.commands.executeCommand('vscode.open', vscode.Uri.file(result.output), { preview: false });
    } catch (err) {
      s.log.warn(`Could not open ${result.output}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  const left = result.backup ?? file;
  const last = result.attempts[result.attempts.length - 1];
  const fellBack = summarizer === 'anthropic' && last?.strategy === 'extractive';
  const notify = fellBack
    ? vscode.window.showWarningMessage(`${resultSummary(result)} The Anthropic summary was not used: ${last.detail}`, 'Show Diff', 'Reveal in Explorer')
    : vscode.window.showInformationMessage(resultSummary(result), 'Show Diff', 'Reveal in Explorer');
  void notify.then(async (choice) => {
    if (choice === 'Show Diff') {
      await vscode.commands.executeCommand('vscode.diff', vscode.Uri.file(left), vscode.Uri.file(result.output), `${basename(left)} ↔ ${basename(result.output)}`);
    } else if (choice === 'Reveal in Explorer') {
      await vscode.commands.executeCommand('revealFileInOS', vscode.Uri.file(result.output));
    }
  });
  return result;
}

async function handleFailure(s: Services, err: unknown, arg: unknown, summarizer: Summarizer, programmatic: boolean): Promise<CompactResult | undefined> {
  const advice = adviceFor(err, summarizer);
  if (advice.severity === 'info') s.log.info(advice.message);
  else s.log.error('Compaction failed', err);
  const show = advice.severity === 'error' ? vscode.window.showErrorMessage : advice.severity === 'warning' ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
  const pending = show(advice.message, ...advice.actions);
  if (programmatic) {
    void pending.then((choice) => act(s, choice, arg, programmatic)).then(undefined, () => undefined);
    throw err;
  }
  return act(s, await pending, arg, programmatic);
}

async function act(s: Services, choice: ErrorAction | undefined, arg: unknown, programmatic: boolean): Promise<CompactResult | undefined> {
  const file = isProgrammatic(arg) ? (arg as CompactArgs).file ?? s.store.file : (arg instanceof vscode.Uri ? arg.fsPath : undefined) ?? s.store.file;
  const base: CompactArgs = { ...(isProgrammatic(arg) ? (arg as CompactArgs) : {}), file, confirm: false };
  // A re-run after the user already confirmed: no second dialog; its own failure is
  // shown by its own notification (and only thrown back to programmatic callers).
  const rerun = async (extra: Partial<CompactArgs> = {}) => {
    try {
      return await compactCommand(s, { ...base, ...extra });
    } catch (err) {
      if (programmatic) throw err;
      return undefined;
    }
  };
  switch (choice) {
    case 'Set API Key': {
      const ok = await vscode.commands.executeCommand<boolean>('agentCompactor.setApiKey');
      return ok ? rerun() : undefined;
    }
    case 'Use Offline Summary':
      return rerun({ summarizer: 'extractive' });
    case 'Retry':
      return rerun();
    case 'Open Settings':
      await vscode.commands.executeCommand('workbench.action.openSettings', 'agentCompactor');
      return undefined;
    case 'Show Log':
      s.log.show();
      return undefined;
    default:
      return undefined;
  }
}
