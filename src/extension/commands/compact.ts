// Compact Transcript: plan, confirm with figures, then (by default) write the summary for review
// (review.ts: edit, then Apply Summary or Discard), or run at once with a cancellable progress
// notification, open the result and offer to resume it in Claude Code, copy its resume
// command or see a diff. By default the result is a fork: a new session beside the original.
// Errors become notifications with an action that helps (set the key, use the offline
// summary, retry...). Transcript content leaves the machine only when the summarizer
// setting is `anthropic`, `claude-cli` or `codex-cli` (the user's own agent CLI, which sends it to its API).
import * as vscode from 'vscode';
import { basename } from 'node:path';
import { stat } from 'node:fs/promises';
import { contextNow, type ContextFigure } from '../../core/context';
import { bytesAfterLastBoundary } from '../../core/compact/activePart';
import {
  applyCompaction,
  planCompactionOf,
  withSummaryText,
  type CompactOptions,
  type PlannedCompaction,
} from '../../core/compact/compact';
import { compactionEconomics } from '../../core/compact/economics';
import { promisedContext } from '../../core/compact/promise';
import type { Analysis } from '../../core/analysis';
import { CompactError, type CompactionPlan, type CompactResult } from '../../core/compact/types';
import { type CompactSettings } from '../../core/compactSettings';
import { agentCliRefusal } from '../../core/compact/summary';
import { resumeAgentOf } from '../../core/resume';
import { adviceFor, type ErrorAction } from '../model/errors';
import {
  confirmationText,
  hasSummary,
  planSummary,
  RESULT_ACTIONS,
  resumeAction,
  resultActions,
  resultAgent,
  resultResumeCommand,
  resultSummary,
  type ResultFiles,
  type ResultOptions,
} from '../model/planText';
import { agentPrograms, anthropicBaseUrl, type Summarizer, type WriteMode } from '../model/settings';
import type { AgentId } from '../../core/formats/registry';
import { costSettings, getSettings } from '../settings';
import { copyResumeCommand, resumeSession, sessionCwd } from './resume';
import type { Services } from '../services';
import { resolveTranscript } from './args';
import { showConversationDiff } from './conversationDiff';
import {
  CommandFailure,
  CommandInputError,
  forPerson,
  optionsOf,
  runCommand,
  type Action,
  type Call,
  type Ui,
} from './call';
import { endReview, REVIEW_FILE_OPTIONS, reviewFileOf, reviewOf, reviewSummary } from './review';
import { COMPACT_OPTIONS, writeTargetOf, type CompactArgs } from './compactArgs';
import { CommandId } from '../commandIds';

export type { CompactArgs } from './compactArgs';

/** The plan, the context figure it starts from (the one every surface shows) and the file's size then. */
interface Planned {
  /** What the confirmation shows and the run applies (planned again, and said so, only if the file changes meanwhile). */
  planned: PlannedCompaction;
  plan: CompactionPlan;
  context: ContextFigure;
  bytes: number;
  /** The session's agent: how a fork is named and resumed. */
  agent: AgentId;
  /** The session as planned: the confirmation prices the next turn from it. */
  analysis: Analysis;
}

/** Plans the compaction the run will apply, with the store's decisions of the file (a value read at the edge). */
async function planFor(s: Services, req: Request, compactOptions: CompactOptions): Promise<Planned> {
  const decisions = await s.store.decisions(req.file);
  const planned = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Window, title: `Agent Compactor: planning ${basename(req.file)}` },
    () => planCompactionOf(req.file, { ...compactOptions, decisions }),
  );
  return plannedOf(planned);
}

/** A planned compaction with the figures every surface shows of it. */
function plannedOf(planned: PlannedCompaction): Planned {
  const analysis = planned.analysis;
  return {
    planned,
    plan: planned.plan,
    context: contextNow(analysis.report),
    bytes: analysis.report.bytes,
    agent: analysis.index.format.id,
    analysis,
  };
}

/**
 * The key (kept in SecretStorage, the only place it comes from) when the Anthropic summarizer is chosen: a person
 * without one is asked to set one or use the offline summary; code without one runs keyless (and the run says so).
 */
async function ensureKey(
  s: Services,
  summarizer: Summarizer,
  ui: Ui,
): Promise<{ summarizer: Summarizer; apiKey?: string } | undefined> {
  if (summarizer !== 'anthropic') return { summarizer };
  const key = await s.secrets.getApiKey();
  if (key) return { summarizer, apiKey: key };
  return ui.ask<{ summarizer: Summarizer; apiKey?: string }>(
    async () => {
      const choice = await vscode.window.showWarningMessage(
        'No Anthropic API key is set. Set one (kept in VS Code secret storage) or use the offline extractive summary.',
        'Set API Key',
        'Use Offline Summary',
      );
      if (choice === 'Use Offline Summary') return { summarizer: 'extractive' as const };
      if (choice === 'Set API Key') {
        const ok = await vscode.commands.executeCommand<boolean>(CommandId.setApiKey);
        const next = ok ? await s.secrets.getApiKey() : undefined;
        return next ? { summarizer, apiKey: next } : undefined;
      }
      return undefined;
    },
    () => ({ summarizer }),
  );
}

/** What a run needs once the arguments, settings and key are settled. */
interface Request {
  file: string;
  mode: WriteMode;
  out?: string;
  settings: Partial<CompactSettings>;
  summarizer: Summarizer;
  apiKey?: string;
  config: ReturnType<typeof getSettings>;
}

/** Compact Transcript on `file`, as from a menu: plan, confirm, then review or compact (the Budget Preview's button). */
export function compactTranscript(s: Services, file: string): Promise<unknown> {
  return runCommand(s, CommandId.compact, compactCommand, vscode.Uri.file(file), undefined);
}

export async function compactCommand(s: Services, arg: unknown, call: Call): Promise<CompactResult | undefined> {
  const o = optionsOf(COMPACT_OPTIONS, 'Compact Transcript', arg);
  assertTrusted();
  const file = await resolveTranscript(s, arg, call.ui, { title: 'Compact Transcript', openLabel: 'Compact' });
  if (!file) return undefined;
  return compactFile(s, { ...o, file }, call.ui);
}

/** Refused in Restricted Mode, with the way to trust the folder. */
function assertTrusted(): void {
  if (!vscode.workspace.isTrusted)
    throw new CommandInputError(
      'Compaction writes files and may send transcript content to the Anthropic API or your agent CLI, so it is disabled in Restricted Mode.',
      {
        actions: [
          { title: 'Manage Workspace Trust', run: () => vscode.commands.executeCommand('workbench.trust.manage') },
        ],
      },
    );
}

/**
 * Compacts `o.file`: settles the request (a person may be asked for a key), plans, confirms (unless `confirm: false`)
 * and applies; undefined when the person stops or chooses to review the summary first.
 */
async function compactFile(
  s: Services,
  o: Partial<CompactArgs> & { file: string },
  ui: Ui,
): Promise<CompactResult | undefined> {
  const req = await settleRequest(s, o.file, o, ui);
  if (!req) return undefined;
  const { file, summarizer } = req;
  // A re-run after the user already confirmed (a button of the failure's message): no second dialog.
  const again = (extra: Partial<CompactArgs> = {}) => compactFile(s, { ...o, ...extra, file, confirm: false }, ui);
  let planned: Planned;
  try {
    planned = await planFor(s, req, compactOptionsOf(req, o));
  } catch (err) {
    if (err instanceof CompactError && err.code === 'nothing-to-compact')
      // The plan leaves nothing to do: said as before, with the way to a smaller target.
      throw new CommandFailure(`${basename(file)}: ${err.message}`, err, {
        severity: 'info',
        actions: [OPEN_TARGET_SETTING],
      });
    s.log.error(`Could not plan a compaction of ${file}`, err);
    throw new CommandFailure(
      `Cannot compact ${basename(file)}: ${err instanceof Error ? err.message : String(err)}`,
      err,
    );
  }
  const { plan, context } = planned;
  s.log.info(`Plan for ${file}: ${planSummary(plan, context)}`);
  // Before the confirmation, which would otherwise offer to send the session to the other agent.
  const wrongAgent = o.summaryText === undefined ? agentCliRefusal(summarizer, planned.agent) : null;
  if (wrongAgent) throw failure(s, new CompactError('wrong-summarizer', wrongAgent), summarizer, again);
  if (!(await confirmed(s, planned, req, o))) return undefined;
  return applyPlanned(s, req, o, planned, again);
}

const OPEN_TARGET_SETTING: Action = {
  title: 'Open Settings',
  run: () => vscode.commands.executeCommand('workbench.action.openSettings', 'agentCompactor.targetTokens'),
};

/** Applies the plan the user confirmed (or reviewed), then shows the result; a failure says what helps. */
async function applyPlanned(
  s: Services,
  req: Request,
  o: Partial<CompactArgs>,
  planned: Planned,
  again: (extra?: Partial<CompactArgs>) => Promise<unknown>,
): Promise<CompactResult> {
  let result: CompactResult;
  try {
    result = await runWithProgress(s, req, planned.planned);
  } catch (err) {
    throw failure(s, err, req.summarizer, again);
  }
  await afterCompaction(s, result, req, o, planned);
  return result;
}

/** The write mode, settings and summarizer (with its key) of a run on `file`, or undefined when the person stops. */
async function settleRequest(s: Services, file: string, o: Partial<CompactArgs>, ui: Ui): Promise<Request | undefined> {
  assertTrusted();
  const config = getSettings(vscode.Uri.file(file));
  const { mode, out } = writeTargetOf(o, config.writeMode);
  // The target of this file's own preview, if it has one; never one typed for another file.
  let settings: Partial<CompactSettings> = s.store.compactSettings(file);
  if (o.targetTokens) settings = { ...settings, targetTokens: o.targetTokens };
  if (o.settings) settings = { ...settings, ...o.settings };

  // Only the setting opts in to sending content to the API; a caller can only opt out.
  const requested: Summarizer = o.summarizer === 'extractive' ? 'extractive' : config.summarizer;
  if (o.summarizer !== undefined && o.summarizer !== 'extractive' && config.summarizer !== o.summarizer)
    throw new CommandInputError(
      `The ${o.summarizer} summarizer sends transcript content out of VS Code, so it runs only when the agentCompactor.summarizer setting is "${o.summarizer}".`,
    );
  const keyed = await ensureKey(s, requested, ui);
  if (!keyed) return undefined;
  return { file, mode, out, settings, summarizer: keyed.summarizer, apiKey: keyed.apiKey, config };
}

/**
 * The confirmation with the plan's figures (skipped with `confirm: false`); false when the user
 * does not go on to a one-step compaction. With `agentCompactor.reviewSummary` on (the default)
 * its first choice writes the summary for review instead, and Apply Summary compacts later.
 */
async function confirmed(s: Services, planned: Planned, req: Request, o: Partial<CompactArgs>): Promise<boolean> {
  const { file } = req;
  const { plan, context } = planned;
  // (Planning refuses such a plan already unless a summary text is given.)
  if (plan.nothingToDo && o.summaryText === undefined)
    throw new CommandInputError(`${basename(file)}: ${planSummary(plan, context)}.`, {
      severity: 'info',
      actions: [OPEN_TARGET_SETTING],
    });
  if (o.confirm === false) return true;
  // Priced as the plan line prices it (the same settings), with the summarizer this run settled on.
  const { prices } = costSettings(file);
  const economics = compactionEconomics(planned.analysis, plan, {
    now: Date.now(),
    prices,
    summarizer: { summarizer: req.summarizer, model: req.config.model },
    pricesHint: 'the setting agentCompactor.prices',
  });
  const { message, detail } = confirmationText(plan, context, {
    economics,
    mode: req.mode,
    summarizer: req.summarizer,
    model: req.config.model,
    baseUrl: anthropicBaseUrl(req.config.baseUrl, process.env.ANTHROPIC_BASE_URL),
    out: req.out,
    agent: planned.agent,
  });
  const review = req.config.reviewSummary;
  // A plan that writes no summary (it only replaces tool results by previews) has none to review: Compact alone.
  const choices = !hasSummary(plan) ? [COMPACT] : review ? [REVIEW, COMPACT_NOW] : [COMPACT, REVIEW_FIRST];
  const choice = await vscode.window.showWarningMessage(message, { modal: true, detail }, ...choices, OPEN_BUDGET);
  if (choice === OPEN_BUDGET) await vscode.commands.executeCommand(CommandId.openBudget, { file });
  // The summarizer settled above (the user may have chosen the offline one instead of setting a key).
  // The review carries the figure this dialog promised, so the result measures itself against it.
  if (choice === REVIEW || choice === REVIEW_FIRST)
    await reviewSummary(s, file, { ...o, summarizer: req.summarizer, promised: promisedContext(plan) });
  return choice === COMPACT || choice === COMPACT_NOW;
}

const REVIEW = 'Review Summary';
const COMPACT_NOW = 'Compact Without Review';
const COMPACT = 'Compact';
const REVIEW_FIRST = 'Review Summary First';
const OPEN_BUDGET = 'Open Budget Preview';

const PROGRESS_START: Record<Summarizer, string> = {
  extractive: 'writing an offline summary…',
  anthropic: 'summarizing with the Anthropic API…',
  'claude-cli': 'summarizing with your Claude Code…',
  'codex-cli': 'summarizing with your Codex…',
};

/** What the run is asked: the request's settings, mode and summarizer, and the arguments' text. */
function compactOptionsOf(req: Request, o: Partial<CompactArgs>): CompactOptions {
  const { summarizer } = req;
  const compactOptions: CompactOptions = {
    settings: req.settings,
    summarizer,
    inPlace: req.mode === 'inPlace',
    instructions: o.instructions,
    summaryText: typeof o.summaryText === 'string' ? o.summaryText : undefined,
  };
  if (req.out) {
    compactOptions.out = req.out;
    if (writeTargetOf(o, req.mode).force) compactOptions.force = true;
  }
  if (summarizer === 'anthropic') {
    // The address the confirmation named, resolved the same way.
    compactOptions.anthropic = {
      apiKey: req.apiKey,
      model: req.config.model,
      baseURL: anthropicBaseUrl(req.config.baseUrl, process.env.ANTHROPIC_BASE_URL),
    };
  }
  if (summarizer === 'claude-cli' || summarizer === 'codex-cli') compactOptions.agentCli = agentPrograms(req.config);
  return compactOptions;
}

/** Applies the plan the confirmation showed under a cancellable progress notification. */
function runWithProgress(s: Services, req: Request, planned: PlannedCompaction): Thenable<CompactResult> {
  const { file, summarizer } = req;
  return vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Compacting ${basename(file)}`, cancellable: true },
    async (progress, token) => {
      const abort = new AbortController();
      const sub = token.onCancellationRequested(() => abort.abort());
      try {
        progress.report({ message: PROGRESS_START[summarizer] });
        return await applyCompaction(planned, {
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
}

/** Records and logs the result, shows the transcript again (in place), opens the result and notifies. */
async function afterCompaction(
  s: Services,
  result: CompactResult,
  req: Request,
  o: Partial<CompactArgs>,
  planned: Planned,
): Promise<void> {
  const { file, summarizer, config } = req;
  s.store.lastResult = result;
  // The folder the agent must be started in, located in the written file as Resume Session locates it.
  const agent = resumeAgentOf(resultAgent(result));
  const cwd = (agent && (await sessionCwd(agent, result.output).catch(() => null))) || result.cwd;
  const programs = agentPrograms(config);
  s.log.info(
    `${resultSummary(result, { requested: summarizer, programs, cwd })} Mode ${result.mode}; output: ${result.output}${result.backup ? `; backup ${result.backup}` : ''}`,
  );
  for (const a of result.attempts)
    s.log.info(`  attempt ${a.attempt}: ${a.strategy} → ${a.outcome}${a.detail ? ` (${a.detail})` : ''}`);
  if (req.mode === 'inPlace') {
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
  void notifyResult(s, result, {
    requested: summarizer,
    programs,
    cwd,
    context: planned.context,
    promised: o.promised,
    files: await resultFiles(result, planned.bytes),
  });
}

/** The sizes the result message names; none when a file cannot be read now (the message then leaves them out). */
async function resultFiles(result: CompactResult, before: number): Promise<ResultFiles | undefined> {
  try {
    return {
      before,
      written: (await stat(result.output)).size,
      agentReads: await bytesAfterLastBoundary(result.output),
    };
  } catch {
    return undefined;
  }
}

/** The result notification: what was written, by which summarizer, and how to resume it. */
async function notifyResult(s: Services, result: CompactResult, how: ResultOptions): Promise<void> {
  const { requested, cwd } = how;
  const file = result.plan.file;
  const text = resultSummary(result, how);
  const fellBack = requested !== undefined && requested !== 'extractive' && result.summarizer === 'extractive';
  const why = [...result.attempts].reverse().find((a) => a.strategy === 'extractive')?.detail;
  const command = resultResumeCommand(result, how.programs, cwd === undefined ? result.cwd : cwd);
  const buttons = resultActions(result, command);
  const choice = fellBack
    ? await vscode.window.showWarningMessage(
        `${text} The ${requested === 'anthropic' ? 'Anthropic' : requested} summary was not used${why ? `: ${why}` : '.'}`,
        ...buttons,
      )
    : await vscode.window.showInformationMessage(text, ...buttons);
  // The session just written, by the id and folder the compaction reported; a refusal is told as its command tells it.
  const session = { file: result.output, sessionId: result.sessionId ?? undefined, cwd: cwd ?? undefined };
  try {
    if (choice === resumeAction(result)) await forPerson(s, 'Resume Session', () => resumeSession(s, session));
    else if (choice === RESULT_ACTIONS.copyResume)
      await forPerson(s, 'Copy Resume Command', () => copyResumeCommand(s, session));
    else if (choice === RESULT_ACTIONS.diff)
      // The conversation the agent resumes before and after, as readable text: a line diff of JSONL says little.
      await showConversationDiff(result.backup ?? file, result.output);
    else if (choice === RESULT_ACTIONS.reveal)
      await vscode.commands.executeCommand('revealFileInOS', vscode.Uri.file(result.output));
  } catch (err) {
    s.log.warn(`${choice} failed: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/**
 * A failed run in words that help (model/errors.ts adviceFor): set the key, use the offline summary, retry... each
 * button re-runs through `again` without a second confirmation. Code callers get the engine's error.
 */
function failure(
  s: Services,
  err: unknown,
  summarizer: Summarizer,
  again: (extra?: Partial<CompactArgs>) => Promise<unknown>,
): CommandFailure {
  const advice = adviceFor(err, summarizer);
  if (advice.severity === 'info') s.log.info(advice.message);
  else s.log.error('Compaction failed', err);
  return new CommandFailure(advice.message, err, {
    severity: advice.severity,
    actions: advice.actions.map((title) => ({ title, run: () => act(s, title, again) })),
  });
}

async function act(
  s: Services,
  choice: ErrorAction,
  again: (extra?: Partial<CompactArgs>) => Promise<unknown>,
): Promise<unknown> {
  switch (choice) {
    case 'Set API Key': {
      const ok = await vscode.commands.executeCommand<boolean>(CommandId.setApiKey);
      return ok ? again() : undefined;
    }
    case 'Use Offline Summary':
      return again({ summarizer: 'extractive' });
    case 'Retry':
      return again();
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

/**
 * Apply Summary: writes the plan the review was drafted from, with the summary exactly as it now reads in its editor
 * (the same plan → apply path as Compact). If the session changed since the draft, core plans again and the result's
 * notification says what changed ("Not the plan you confirmed"); a different plan is never written silently.
 */
export async function applySummaryCommand(s: Services, arg: unknown, call: Call): Promise<CompactResult> {
  const given = optionsOf(REVIEW_FILE_OPTIONS, 'Apply Summary', arg);
  const file = reviewFileOf(s, arg);
  const review = file ? reviewOf(file) : undefined;
  if (!file || !review)
    throw new CommandInputError('No summary is being reviewed; run Compact Transcript: Review Summary first.');
  return applySummary(s, file, given.open, call.ui);
}

/** Compacts `file` with the text of its review (which ends once the summary is written). */
export async function applySummary(
  s: Services,
  file: string,
  open: boolean | undefined,
  ui: Ui,
): Promise<CompactResult> {
  const review = reviewOf(file);
  if (!review)
    throw new CommandInputError('No summary is being reviewed; run Compact Transcript: Review Summary first.');
  if (!vscode.workspace.isTrusted)
    throw new CommandInputError('Compaction writes files, so it is disabled in Restricted Mode.');
  const o: Partial<CompactArgs> = { ...review.args, ...(open === undefined ? {} : { open }), file, confirm: false };
  const { planned } = review;
  // The reviewed text is the summary; the draft's own progress, cancellation and stream are over.
  const reviewed = withSummaryText(planned, review.document.getText());
  const config = getSettings(vscode.Uri.file(file));
  const req: Request = {
    file,
    mode: planned.output.inPlace ? 'inPlace' : 'fork',
    out: planned.output.out,
    settings: planned.inputs.settings ?? {},
    summarizer: planned.summarizer.summarizer,
    config,
  };
  // A Retry after a failure compacts again with the reviewed text (the review stays open until one succeeds).
  const again = async (extra: Partial<CompactArgs> = {}) => {
    const result = await compactFile(s, { ...o, summaryText: reviewed.inputs.summaryText, ...extra, file }, ui);
    if (result) await endReview(file);
    return result;
  };
  const result = await applyPlanned(s, req, o, plannedOf(reviewed), again);
  await endReview(file);
  return result;
}
