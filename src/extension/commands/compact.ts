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
import { CommandInputError, isProgrammatic, options, resolveTranscript } from './args';
import { endReview, reviewAndOffer, reviewFileOf, reviewOf } from './review';
import { writeTargetOf, type CompactArgs } from './compactArgs';
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

/** Asks for a key (kept in SecretStorage, the only place it comes from) when the Anthropic summarizer is chosen and none is set. */
async function ensureKey(
  s: Services,
  summarizer: Summarizer,
): Promise<{ summarizer: Summarizer; apiKey?: string } | undefined> {
  if (summarizer !== 'anthropic') return { summarizer };
  const key = await s.secrets.getApiKey();
  if (key) return { summarizer, apiKey: key };
  const choice = await vscode.window.showWarningMessage(
    'No Anthropic API key is set. Set one (kept in VS Code secret storage) or use the offline extractive summary.',
    'Set API Key',
    'Use Offline Summary',
  );
  if (choice === 'Use Offline Summary') return { summarizer: 'extractive' };
  if (choice === 'Set API Key') {
    const ok = await vscode.commands.executeCommand<boolean>(CommandId.setApiKey);
    const next = ok ? await s.secrets.getApiKey() : undefined;
    return next ? { summarizer, apiKey: next } : undefined;
  }
  return undefined;
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
export function compactTranscript(s: Services, file: string): Promise<CompactResult | undefined> {
  return compactCommand(s, vscode.Uri.file(file));
}

export async function compactCommand(s: Services, arg?: unknown): Promise<CompactResult | undefined> {
  const programmatic = isProgrammatic(arg);
  const o = options<CompactArgs>(arg);
  const req = await settleRequest(s, arg, o, programmatic);
  if (!req) return undefined;
  const { file, summarizer } = req;

  let planned: Planned;
  try {
    planned = await planFor(s, req, compactOptionsOf(req, o));
  } catch (err) {
    if (err instanceof CompactError && err.code === 'nothing-to-compact' && !programmatic) {
      // The plan leaves nothing to do: said as before, with the way to a smaller target.
      const choice = await vscode.window.showInformationMessage(`${basename(file)}: ${err.message}`, 'Open Settings');
      if (choice) await vscode.commands.executeCommand('workbench.action.openSettings', 'agentCompactor.targetTokens');
      return undefined;
    }
    if (err instanceof CompactError && err.code === 'nothing-to-compact')
      return handleFailure(s, err, arg, summarizer, programmatic);
    s.log.error(`Could not plan a compaction of ${file}`, err);
    if (programmatic) throw err;
    void vscode.window.showErrorMessage(
      `Cannot compact ${basename(file)}: ${err instanceof Error ? err.message : String(err)}`,
    );
    return undefined;
  }
  const { plan, context } = planned;
  s.log.info(`Plan for ${file}: ${planSummary(plan, context)}`);
  // Before the confirmation, which would otherwise offer to send the session to the other agent.
  const wrongAgent = o.summaryText === undefined ? agentCliRefusal(summarizer, planned.agent) : null;
  if (wrongAgent)
    return handleFailure(s, new CompactError('wrong-summarizer', wrongAgent), arg, summarizer, programmatic);
  if (!(await confirmed(s, planned, req, o, programmatic))) return undefined;
  return applyPlanned(s, req, o, planned, arg, programmatic);
}

/** Applies the plan the user confirmed (or reviewed), then shows the result; a failure gets its notification. */
async function applyPlanned(
  s: Services,
  req: Request,
  o: Partial<CompactArgs>,
  planned: Planned,
  arg: unknown,
  programmatic: boolean,
): Promise<CompactResult | undefined> {
  let result: CompactResult;
  try {
    result = await runWithProgress(s, req, planned.planned);
  } catch (err) {
    return handleFailure(s, err, arg, req.summarizer, programmatic);
  }
  await afterCompaction(s, result, req, o, planned);
  return result;
}

/** The file, write mode, settings and summarizer (with its key), or undefined when the user stops or the workspace is restricted. */
async function settleRequest(
  s: Services,
  arg: unknown,
  o: Partial<CompactArgs>,
  programmatic: boolean,
): Promise<Request | undefined> {
  if (!vscode.workspace.isTrusted) {
    const msg =
      'Compaction writes files and may send transcript content to the Anthropic API or your agent CLI, so it is disabled in Restricted Mode.';
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
  const { mode, out } = writeTargetOf(o, config.writeMode);
  // The target of this file's own preview, if it has one; never one typed for another file.
  let settings: Partial<CompactSettings> = s.store.compactSettings(file);
  if (o.targetTokens) settings = { ...settings, targetTokens: o.targetTokens };
  if (o.settings) settings = { ...settings, ...o.settings };

  // Only the setting opts in to sending content to the API; a caller can only opt out.
  const requested: Summarizer = o.summarizer === 'extractive' ? 'extractive' : config.summarizer;
  if (o.summarizer !== undefined && o.summarizer !== 'extractive' && config.summarizer !== o.summarizer) {
    const msg = `The ${o.summarizer} summarizer sends transcript content out of VS Code, so it runs only when the agentCompactor.summarizer setting is "${o.summarizer}".`;
    if (programmatic) throw new CommandInputError(msg);
    void vscode.window.showWarningMessage(msg);
    return undefined;
  }
  const keyed = programmatic
    ? { summarizer: requested, apiKey: requested === 'anthropic' ? await s.secrets.getApiKey() : undefined }
    : await ensureKey(s, requested);
  if (!keyed) return undefined;
  return { file, mode, out, settings, summarizer: keyed.summarizer, apiKey: keyed.apiKey, config };
}

/**
 * The confirmation with the plan's figures (skipped with `confirm: false`); false when the user
 * does not go on to a one-step compaction. With `agentCompactor.reviewSummary` on (the default)
 * its first choice writes the summary for review instead, and Apply Summary compacts later.
 */
async function confirmed(
  s: Services,
  planned: Planned,
  req: Request,
  o: Partial<CompactArgs>,
  programmatic: boolean,
): Promise<boolean> {
  const { file } = req;
  const { plan, context } = planned;
  if (!programmatic && plan.nothingToDo) {
    const choice = await vscode.window.showInformationMessage(
      `${basename(file)}: ${planSummary(plan, context)}.`,
      'Open Settings',
    );
    if (choice) await vscode.commands.executeCommand('workbench.action.openSettings', 'agentCompactor.targetTokens');
    return false;
  }
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
  const [first, second] = review ? [REVIEW, COMPACT_NOW] : [COMPACT, REVIEW_FIRST];
  const choice = await vscode.window.showWarningMessage(message, { modal: true, detail }, first, second, OPEN_BUDGET);
  if (choice === OPEN_BUDGET) await vscode.commands.executeCommand(CommandId.openBudget, { file });
  // The summarizer settled above (the user may have chosen the offline one instead of setting a key).
  // The review carries the figure this dialog promised, so the result measures itself against it.
  if (choice === REVIEW || choice === REVIEW_FIRST)
    await reviewAndOffer(s, file, { ...o, summarizer: req.summarizer, promised: promisedContext(plan) }, programmatic);
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
  // The session just written, by the id and folder the compaction reported; a refusal is said by the function itself.
  const session = { file: result.output, sessionId: result.sessionId ?? undefined, cwd: cwd ?? undefined };
  try {
    if (choice === resumeAction(result)) await resumeSession(s, session);
    else if (choice === RESULT_ACTIONS.copyResume) await copyResumeCommand(s, session);
    else if (choice === RESULT_ACTIONS.diff) {
      const left = result.backup ?? file;
      await vscode.commands.executeCommand(
        'vscode.diff',
        vscode.Uri.file(left),
        vscode.Uri.file(result.output),
        `${basename(left)} ↔ ${basename(result.output)}`,
      );
    } else if (choice === RESULT_ACTIONS.reveal)
      await vscode.commands.executeCommand('revealFileInOS', vscode.Uri.file(result.output));
  } catch (err) {
    // The commands already told the user; keep the detail in the log.
    s.log.warn(`${choice} failed: ${err instanceof Error ? err.message : String(err)}`);
  }
}

async function handleFailure(
  s: Services,
  err: unknown,
  arg: unknown,
  summarizer: Summarizer,
  programmatic: boolean,
): Promise<CompactResult | undefined> {
  const advice = adviceFor(err, summarizer);
  if (advice.severity === 'info') s.log.info(advice.message);
  else s.log.error('Compaction failed', err);
  const show =
    advice.severity === 'error'
      ? vscode.window.showErrorMessage
      : advice.severity === 'warning'
        ? vscode.window.showWarningMessage
        : vscode.window.showInformationMessage;
  const pending = show(advice.message, ...advice.actions);
  if (programmatic) {
    void pending.then((choice) => act(s, choice, arg, programmatic)).then(undefined, () => undefined);
    throw err;
  }
  return act(s, await pending, arg, programmatic);
}

async function act(
  s: Services,
  choice: ErrorAction | undefined,
  arg: unknown,
  programmatic: boolean,
): Promise<CompactResult | undefined> {
  const file = isProgrammatic(arg)
    ? ((arg as CompactArgs).file ?? s.store.file)
    : ((arg instanceof vscode.Uri ? arg.fsPath : undefined) ?? s.store.file);
  const base: CompactArgs = { ...(isProgrammatic(arg) ? arg : {}), file, confirm: false };
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
      const ok = await vscode.commands.executeCommand<boolean>(CommandId.setApiKey);
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

/**
 * Apply Summary: writes the plan the review was drafted from, with the summary exactly as it now reads in its editor
 * (the same plan → apply path as Compact). If the session changed since the draft, core plans again and the result's
 * notification says what changed ("Not the plan you confirmed"); a different plan is never written silently.
 */
export async function applySummaryCommand(s: Services, arg?: unknown): Promise<CompactResult | undefined> {
  const programmatic = isProgrammatic(arg);
  const file = reviewFileOf(s, arg);
  const review = file ? reviewOf(file) : undefined;
  if (!file || !review) {
    if (programmatic)
      throw new CommandInputError(
        'applySummary: no summary is being reviewed for this transcript (run Review Summary first)',
      );
    void vscode.window.showWarningMessage(
      'No summary is being reviewed; run Compact Transcript: Review Summary first.',
    );
    return undefined;
  }
  if (!vscode.workspace.isTrusted) {
    const msg = 'Compaction writes files, so it is disabled in Restricted Mode.';
    if (programmatic) throw new CommandInputError(msg);
    void vscode.window.showWarningMessage(msg);
    return undefined;
  }
  const o: Partial<CompactArgs> = { ...review.args, ...options<CompactArgs>(arg), file, confirm: false };
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
  const retryArgs = { ...o, summaryText: reviewed.inputs.summaryText };
  const result = await applyPlanned(s, req, o, plannedOf(reviewed), retryArgs, programmatic);
  if (result) await endReview(file);
  return result;
}
