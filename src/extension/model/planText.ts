// Human text about a compaction plan: the tree's summary node, the confirmation dialog,
// the notification after a run. Pure: no `vscode` import.
import type { CompactionPlan, CompactResult, ContextAfter } from '../../core/compact/types';
import { promiseGap, promisedContext } from '../../core/compact/promise';
import { economicsLine, type PlanEconomics } from '../../core/compact/economics';
import { isSessionId, programFor, resumeAgentName, resumeAgentOf, resumeCommand } from '../../core/resume';
import type { AgentPrograms } from '../../core/formats/agent';
import { planBound } from '../../core/compact/bound';
import type { AgentId } from '../../core/formats/registry';
import { writerOf } from '../../core/formats/writers';
import type { ContextFigure } from '../../core/context';
import { contextFigureText, contextText } from './contextText';
import { baseName, formatBytes, formatNumber, plural } from './format';
import { baseUrlHost, type Summarizer, type WriteMode } from './settings';

export interface PlanFigures {
  /** Rounds summarized or dropped. */
  rounds: number;
  summarized: number;
  dropped: number;
  /** Tokens those rounds occupy now. */
  tokens: number;
  /** Rounds of the active context kept verbatim. */
  kept: number;
  /** Rounds before the last compact boundary (not in the active context, left alone). */
  history: number;
  replacedResults: number;
  /** Results an earlier compaction replaced by a preview, left as they are (one it kept whole counts as kept). */
  frozenResults: number;
  keptResults: number;
  preTokens: number;
  postTokens: number;
}

export function planFigures(plan: CompactionPlan): PlanFigures {
  let summarized = 0;
  let dropped = 0;
  let tokens = 0;
  let kept = 0;
  let history = 0;
  for (const r of plan.rounds) {
    if (r.action === 'keep') {
      if (r.inContext) kept++;
      else history++;
      continue;
    }
    if (r.action === 'summarize') summarized++;
    else dropped++;
    tokens += r.tokens;
  }
  let replaced = 0;
  let frozen = 0;
  let keptResults = 0;
  for (const t of plan.toolResults) {
    if (t.action === 'replaced') replaced++;
    // An earlier compaction's decision re-applied: a preview it wrote, or a result it kept whole (then kept again).
    else if (t.action === 'frozen' && t.preview !== null) frozen++;
    else keptResults++;
  }
  return {
    rounds: summarized + dropped,
    summarized,
    dropped,
    kept,
    history,
    tokens: Math.round(tokens),
    replacedResults: replaced,
    frozenResults: frozen,
    keptResults,
    preTokens: Math.round(plan.preTokens),
    postTokens: Math.round(plan.postTokens),
  };
}

/** The whole context after compaction: the resumed transcript plus the system prompt and tools (core's promise). */
export function contextAfter(plan: CompactionPlan): number {
  return promisedContext(plan).tokens;
}

/**
 * "context 48,314 → 18,220 tokens" (the whole context before and after), with what bounds it when that is not the
 * target itself (core/compact/bound.ts): the keep-recent limit below the target, a floor above it.
 */
export function contextChangeText(plan: CompactionPlan, context: ContextFigure): string {
  const after = contextAfter(plan);
  const target = plan.settings.targetTokens;
  const change = `context ${contextFigureText(context)} → ${formatNumber(after)} tokens`;
  const bound = planBound(plan);
  if (bound.kind === 'keep-recent') return `${change}, below the ${formatNumber(target)} target: ${bound.reason}`;
  // A target at or above the context that still changes something: nothing needs compacting, and what would change.
  if (bound.kind === 'nothing-to-do' && !plan.nothingToDo)
    return `${change}: nothing needs compacting with the ${formatNumber(target)} target${bound.stillChanges ? `; compacting anyway, ${bound.stillChanges}` : ''}`;
  if (after <= target) return change;
  return `${change}, above the ${formatNumber(target)} target${bound.reason ? `: ${bound.reason}` : ''}`;
}

/** What the plan does to the rounds, without figures of the whole context: "12 rounds / 30,100 tokens would be summarized or dropped". */
export function planActionText(plan: CompactionPlan): string {
  const f = planFigures(plan);
  return (
    userDecisionsText(plan) ||
    // Nothing summarized or dropped: what the plan does is replace tool results by previews, said so.
    (f.rounds === 0
      ? `no round summarized or dropped, ${plural(f.replacedResults, 'tool result')} replaced by previews`
      : `${plural(f.rounds, 'round')} / ${formatNumber(f.tokens)} tokens would be summarized or dropped`)
  );
}

/** The plan line: what would be summarized or dropped, the whole context before → after (or why nothing would change). */
export function planSummary(plan: CompactionPlan, context: ContextFigure): string {
  if (plan.nothingToDo) {
    const target = plan.settings.targetTokens;
    // Said only where it is the reason: a target under the context that still asks for nothing is explained by the notes.
    return `Nothing to compact: ${contextText(context)}, target ${formatNumber(target)}${target >= plan.context.tokens ? ' (at or above the context now)' : ''}`;
  }
  // The target is at or above the context, yet a compaction would change it (core/compact/bound.ts): nothing needs
  // compacting, and what compacting anyway would still do, with its tokens, instead of an unexplained shrink.
  const bound = planBound(plan);
  if (bound.kind === 'nothing-to-do')
    return `Nothing needs compacting: ${contextText(context)}, target ${formatNumber(plan.settings.targetTokens)} (at or above the context now); compacting anyway would make it ${formatNumber(contextAfter(plan))}${bound.stillChanges ? `: ${bound.stillChanges}` : ''}`;
  return `${planActionText(plan)}; ${contextChangeText(plan, context)}`;
}

/** Whether the plan writes a summary (it summarizes rounds): the dialog offers Review Summary only then. */
export function hasSummary(plan: CompactionPlan): boolean {
  return promisedContext(plan).summary > 0;
}

/** "12 kept by you, 3 dropped by you" (only the kinds the user chose), or '' without decisions. */
export function userDecisionsText(plan: CompactionPlan): string {
  const count = { keep: 0, drop: 0, summarize: 0 };
  for (const r of plan.rounds) if (r.inContext && r.by === 'user') count[r.action]++;
  const parts = [
    count.keep ? `${formatNumber(count.keep)} kept by you` : '',
    count.drop ? `${formatNumber(count.drop)} dropped by you` : '',
    count.summarize ? `${formatNumber(count.summarize)} summarized by you` : '',
  ].filter(Boolean);
  return parts.join(', ');
}

/**
 * The plan's cost line (core/compact/economics.ts `compactionEconomics`): the next turn as it is and compacted, the summarizer's
 * share, and when it pays for itself; for an unpriced session, that it is not priced and why.
 */
export function economicsText(e: PlanEconomics): string {
  return `Cost: ${economicsLine(e)}.`;
}

/**
 * Longer explanation for tooltips and the confirmation dialog's detail. It names the parts of the context (the plan
 * line and the dialog's message say the whole), so each figure appears once beside them.
 */
export function planDetail(plan: CompactionPlan, context: ContextFigure, economics?: PlanEconomics | null): string {
  const f = planFigures(plan);
  // Codex gives a resumed thread its context again: counted beside the system prompt and tools, and named, so the
  // figure here is the context figure's own.
  const resumed = plan.resumeContextTokens ?? 0;
  const again = resumed
    ? `; and ~${formatNumber(resumed)} that Codex gives the resumed thread again (permissions, instructions, environment), which no kept round holds`
    : '';
  // A resume is sent by the agent installed now: where the user's own sessions record what it sends, that is the
  // figure, and it may differ from what this session's requests carried.
  const overhead =
    plan.overheadSource === 'agent-now' || plan.overheadSource === 'agent-now-assumed'
      ? `~${formatNumber(plan.overheadTokens - resumed)} on resume, ${plan.overheadFrom} (this session's requests carry ~${formatNumber(context.overhead)})${again}`
      : context.overheadKnown
        ? `~${formatNumber(plan.overheadTokens - resumed)}, unchanged${again}`
        : `unknown (no usage in the file), not counted${again}`;
  const lines = [
    `Target: ${formatNumber(plan.settings.targetTokens)} tokens for the whole context.`,
    `System prompt and tools: ${overhead}.`,
    `Transcript: ${formatNumber(context.transcript)} → ${formatNumber(f.postTokens)} tokens (${formatNumber(plan.keptTokens)} kept verbatim${hasSummary(plan) ? ' + summary' : ', no summary'}).`,
    `Rounds: ${formatNumber(f.summarized)} summarized, ${formatNumber(f.dropped)} dropped, ${formatNumber(f.kept)} kept${f.history ? ` (${formatNumber(f.history)} history rounds before the last compact boundary stay as they are)` : ''}.`,
    `Tool results: ${formatNumber(f.replacedResults)} replaced by previews${f.frozenResults ? `, ${formatNumber(f.frozenResults)} replaced in an earlier compaction (left as they are)` : ''}, ${formatNumber(f.keptResults)} kept.`,
  ];
  lines.push(`What bounds the result: ${planBound(plan).text}.`);
  for (const c of plan.conflicts) lines.push(`Your choice to ${c.decision}: ${c.resolution}.`);
  for (const n of plan.notes) lines.push(n);
  if (economics && !plan.nothingToDo) lines.push(economicsText(economics));
  return lines.join('\n');
}

export type { WriteMode } from './settings';

/** Where a run would write, for the confirmation dialog: a fork is named as its agent names a session file. */
export function writeTarget(file: string, mode: WriteMode, out?: string, agent: AgentId = 'claude-code'): string {
  const name = baseName(file);
  if (mode === 'inPlace')
    return `${name} in place (a backup ${name}.bak-<timestamp> is written first; the session keeps its id)`;
  if (out) return `${baseName(out)} (${name} is untouched)`;
  const fork = writerOf(agent)?.forkPattern ?? '<new-id>.jsonl';
  return `a new session ${fork} beside ${name}, which is untouched (resume the new session by its id)`;
}

export function confirmationText(
  plan: CompactionPlan,
  context: ContextFigure,
  /** baseUrl: the address the Anthropic summarizer sends to (anthropicBaseUrl), named so the user sees the host. */
  options: {
    mode: WriteMode;
    summarizer: Summarizer;
    model?: string;
    baseUrl: string;
    out?: string;
    agent?: AgentId;
    economics?: PlanEconomics | null;
  },
): { message: string; detail: string } {
  const message = `Compact ${baseName(plan.file)}? ${contextChangeText(plan, context).replace(/^context/, 'Context')}`;
  const host = baseUrlHost(options.baseUrl);
  const how = summarizerDestination(options.summarizer, options.model, host, `${plan.settings.summaryDetail} detail`);
  const detail = [
    `${planActionText(plan)}.`,
    '',
    planDetail(plan, context, options.economics),
    '',
    how,
    `Writes: ${writeTarget(plan.file, options.mode, options.out, options.agent)}.`,
  ].join('\n');
  return { message, detail };
}

/** Where the chosen summarizer sends the summarized rounds, as the confirmation says it. */
export function summarizerDestination(
  summarizer: Summarizer,
  model: string | undefined,
  host: string,
  level?: string,
): string {
  const at = level ? `, ${level}` : '';
  switch (summarizer) {
    case 'anthropic':
      return `Summary: written by the Anthropic API${model ? ` (${model})` : ''}${at}. Sends the summarized rounds and your API key to ${host}.`;
    case 'claude-cli':
      return `Summary: written by your Claude Code${at}. The summarized rounds are sent to your Claude Code (claude -p), which sends them to its API with your login.`;
    case 'codex-cli':
      return `Summary: written by your Codex${at}. The summarized rounds are sent to your Codex (codex exec), which sends them to its API with your login.`;
    default:
      return `Summary: offline extractive summary${at} (nothing leaves this machine).`;
  }
}

/** The LLM summarizer a fallback replaced, as the result notification names it. */
const FALLEN_BACK_FROM: Record<Exclude<Summarizer, 'extractive'>, string> = {
  anthropic: 'the Anthropic API',
  'claude-cli': 'your Claude Code',
  'codex-cli': 'your Codex',
};

/** Which summarizer wrote the summary, as the result notification names it. */
export function summarizerText(result: CompactResult, requested?: Summarizer): string {
  const clipped = result.attempts.some((a) => a.outcome === 'clipped') ? ', clipped to fit its reserve' : '';
  return summarizerName(result, requested) + clipped;
}

function summarizerName(result: CompactResult, requested?: Summarizer): string {
  const n = result.attempts.filter((a) => a.outcome !== 'clipped').length;
  const tries = n > 1 ? `, ${n} attempts` : '';
  switch (result.summarizer) {
    case 'anthropic': {
      const truncated = result.attempts[n - 1]?.strategy === 'anthropic-truncated';
      return `summary by the Anthropic API${truncated ? ' with the oldest rounds cut' : ''}${tries}`;
    }
    case 'claude-cli':
      return 'summary by your Claude Code';
    case 'codex-cli':
      return 'summary by your Codex';
    case 'extractive':
      return requested && requested !== 'extractive'
        ? `offline extractive summary: ${FALLEN_BACK_FROM[requested]} was not used${tries}`
        : 'offline extractive summary';
    case 'given':
      return 'your summary, written as given';
    default:
      return 'no rounds summarized';
  }
}

/** Where the result went: a new session (fork), another file, or the original in place. */
export function resultTarget(result: CompactResult): string {
  const name = baseName(result.plan.file);
  switch (result.mode) {
    case 'fork':
      return result.sessionId
        ? `New session ${result.sessionId} beside ${name}, which is untouched.`
        : `Wrote ${baseName(result.output)} beside ${name}, which is untouched.`;
    case 'in-place':
      return `Rewrote ${name} in place${result.backup ? `; backup ${baseName(result.backup)}` : ''}.`;
    default:
      return `Wrote ${baseName(result.output)}; ${name} is untouched.`;
  }
}

/**
 * The POSIX shell command that resumes the result in the agent it was written for (null: not resumable by id): Claude
 * Code or Codex, each with its configured program; in `cwd` when the caller found the session's folder itself.
 */
export function resultResumeCommand(
  result: CompactResult,
  programs: AgentPrograms = {},
  cwd: string | null = result.cwd,
): string | null {
  const agent = resumeAgentOf(resultAgent(result));
  return agent && resumeCommand(cwd, result.sessionId, programFor(agent, programs), agent);
}

/** The agent that resumes a result: the one the compaction reported (a Codex rollout is never Claude Code's). */
export function resultAgent(result: CompactResult): AgentId {
  return result.resumeAgent ?? result.agent ?? 'claude-code';
}

/** The result notification's buttons, by what they do (resuming is named by the agent: `resumeAction`). */
export const RESULT_ACTIONS = {
  copyResume: 'Copy Resume Command',
  diff: 'Show Diff',
  reveal: 'Reveal in Explorer',
} as const;

/** "Resume in Claude Code", "Resume in Codex CLI": the button that resumes a result in its agent. */
export function resumeAction(result: CompactResult): string {
  return `Resume in ${resumeAgentName(resultAgent(result))}`;
}

/**
 * The buttons for a result (three fit a notification; the result is already open in an editor): a session its agent
 * can resume by id is resumed in a terminal here, or its command copied.
 */
export function resultActions(result: CompactResult, resumeCommandLine: string | null): string[] {
  return isSessionId(result.sessionId) && resumeCommandLine
    ? [resumeAction(result), RESULT_ACTIONS.copyResume, RESULT_ACTIONS.diff]
    : [RESULT_ACTIONS.diff, RESULT_ACTIONS.reveal];
}

/** Sizes on disk around a run: the file before, the written file, and the part of it the agent reads (null: unknown). */
export interface ResultFiles {
  before: number;
  written: number;
  agentReads: number | null;
}

/**
 * What happened to the size on disk. A compaction keeps the history before its boundary in the file, for the record,
 * so the written file is about as big as the original (or bigger); the agent reads only the part after the boundary.
 */
export function fileSizeText(result: CompactResult, files: ResultFiles): string {
  const written =
    result.mode === 'in-place'
      ? `The file went from ${formatBytes(files.before)} to ${formatBytes(files.written)}`
      : `The written file is ${formatBytes(files.written)} (the original ${formatBytes(files.before)})`;
  if (files.agentReads === null) return `${written}.`;
  return `${written}: the history before the new compact boundary stays in it for the record; the agent reads only the ${formatBytes(files.agentReads)} after it.`;
}

/**
 * The notification after a successful run: figures, the summarizer that actually ran (with
 * the fallback when the Anthropic one was asked for), where the result is, how to resume it.
 */
export interface ResultOptions {
  requested?: Summarizer;
  /** The programs the user configured for the agents (the resume command names the result's agent's). */
  programs?: AgentPrograms;
  cwd?: string | null;
  /** The context figure the run started from (the one the dialog showed). */
  context?: ContextFigure;
  /**
   * The context after, as promised where the user confirmed it (the dialog's plan, also when the compaction was applied
   * later from a reviewed summary); default: the plan the run applied.
   */
  promised?: ContextAfter;
  files?: ResultFiles;
}

/**
 * The figure the result delivered (the written file's own context figure: what its status bar and Rounds header show),
 * and, when it is not the one promised, why: "Planned 40,303: the summary came out at 2,431, below its 4,000 reserve."
 */
export function deliveredText(
  result: CompactResult,
  promised: ContextAfter | undefined,
): {
  after: number;
  gap: string;
} {
  const after = result.delivered?.tokens ?? Math.round(result.postTokens + result.plan.overheadTokens);
  const planned = promised ?? result.promised;
  const why = planned && result.delivered ? promiseGap(planned, result.delivered, formatNumber) : null;
  return { after, gap: why && planned ? ` Planned ${formatNumber(planned.tokens)}: ${why}.` : '' };
}

export function resultSummary(result: CompactResult, options: ResultOptions = {}): string {
  const overhead = result.plan.overheadTokens;
  const before = options.context ? contextFigureText(options.context) : formatNumber(result.preTokens + overhead);
  const delivered = deliveredText(result, options.promised);
  const head = `Compacted ${baseName(result.plan.file)}: context ${before} → ${formatNumber(delivered.after)} tokens (${summarizerText(result, options.requested)}).${delivered.gap}`;
  const files = options.files ? ` ${fileSizeText(result, options.files)}` : '';
  const carried =
    result.carriedOverBytes > 0
      ? ` ${formatBytes(result.carriedOverBytes)} a live session appended meanwhile were carried over.`
      : '';
  const resume = resultResumeCommand(result, options.programs, options.cwd === undefined ? result.cwd : options.cwd);
  // The plan written is not the one confirmed when the file changed meanwhile: said, never applied silently.
  const replanned = result.replanned ? ` Not the plan you confirmed: ${result.replanned}.` : '';
  return `${head}${replanned} ${resultTarget(result)}${files}${carried}${resume ? ` Resume: ${resume}` : ''}`;
}
