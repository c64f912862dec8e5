// The summary a compaction writes: the earlier summary that opens the active context (quoted whole
// when the rounds around it are summarized), the Anthropic summary with its fallbacks to the
// offline one, the offline (extractive) summary itself, or the text the user gave, used verbatim.
import type { Analysis } from '../analysis';
import { charsForTokens, estimateStringTokens } from '../tokens/estimate';
import type { PlanDetails } from './plan';
import { summaryRoundTokens } from './planBase';
import { CompactError, type AttemptRecord, type CompactResult, type ProgressReporter } from './types';
import { extractiveSummary } from './summarize/extractive';
import { PromptTooLongExhausted, summarizeWithAnthropic, type SummaryMessage } from './summarize/anthropic';
import { SUMMARY_PREFIX } from './summarize/prompt';
import type { Group } from './ptl';
import { clipNotingRest } from './messages';
import { contentText, messageOf, toolResultText, type ConversationRecord } from '../conversation';
import { asObject, jsonText } from '../json';
import type { RuntimeHooks, SummarizerChoice, SummarizerOptions } from './options';
import type { SummaryDetail } from '../summaryDetail';
import { summarizeWithAgentCli, type AgentCliKind } from './summarize/agentCli';
import { CLAUDE_CLI } from './summarize/claudeCli';
import { CODEX_CLI } from './summarize/codexCli';
import { agentModule, agentName, summarizerCliAgent, type AgentId } from '../formats/registry';

export const DEFAULT_MODEL = 'claude-sonnet-5-5';

function renderBlockText(block: unknown): string {
  const b = asObject(block);
  if (!b) return '';
  switch (b.type) {
    case 'text':
      return jsonText(b.text ?? '');
    case 'tool_use':
      return `[called tool ${jsonText(b.name)}: ${clipNotingRest(JSON.stringify(b.input ?? {}), 4000)}]`;
    case 'tool_result': {
      const { text } = toolResultText(b.content);
      return `[result of ${jsonText(b.tool_use_id)}${b.is_error ? ' (error)' : ''}: ${clipNotingRest(text, 6000)}]`;
    }
    case 'image':
      return '[image]';
    case 'opaque':
      return `[${jsonText(b.label ?? 'opaque content')}: not readable]`;
    default:
      return '';
  }
}

/** Summarized rounds as text-only messages (tool calls rendered as text: no tool schemas needed). */
function summaryGroups(
  analysis: Analysis,
  roundIdx: number[],
  records: Map<number, ConversationRecord>,
  calibration: number,
): Group<SummaryMessage[]>[] {
  return roundIdx.map((ri) => {
    const r = analysis.rounds[ri];
    const msgs: SummaryMessage[] = [];
    for (const ei of r.entries) {
      const o = records.get(ei);
      if (!o) continue;
      let role: 'user' | 'assistant' | null = null;
      let text = '';
      if (o.kind === 'message') {
        role = o.role;
        text =
          typeof o.content === 'string'
            ? o.content
            : o.content
                .map((b) => renderBlockText(b))
                .filter(Boolean)
                .join('\n');
      } else if (o.text) {
        role = 'user';
        text = `<system-reminder>${clipNotingRest(o.text, 4000)}</system-reminder>`;
      }
      if (!role || !text.trim()) continue;
      const prev = msgs[msgs.length - 1];
      if (prev && prev.role === role) prev.text += `\n${text}`;
      else msgs.push({ role, text });
    }
    const tokens = Math.max(
      1,
      msgs.reduce((s, m) => s + estimateStringTokens(m.text, 'prose', calibration), 0),
    );
    return { tokens, firstRole: msgs[0]?.role ?? 'user', payload: msgs };
  });
}

/** The earlier compaction summary that opens the active context, if any: its line, and its whole text. */
export interface EarlierSummary {
  round: number;
  entry: number;
  /** The line's `message.content`, exactly as written (kept verbatim when nothing is summarized). */
  content: unknown;
  text: string;
}

export function earlierSummaryOf(analysis: Analysis, active: number[]): { round: number; entry: number } | null {
  const first = active[0];
  if (first === undefined || !analysis.rounds[first].startsAtBoundary) return null;
  const entry = analysis.rounds[first].entries.find((e) => analysis.index.entries[e].isCompactSummary);
  return entry === undefined ? null : { round: first, entry };
}

export interface SummaryOutcome {
  summary: string;
  /** Leading characters of `summary` that quote an earlier summary whole (never clipped). */
  protectedChars: number;
  /** Exact content for the summary line (an earlier summary kept verbatim). */
  verbatimContent?: unknown;
  attempts: AttemptRecord[];
  /** Rounds cut from the summary request by prompt-too-long retries (not summarized). */
  dropped: number[];
  summarizer: CompactResult['summarizer'];
}

const EARLIER_HEADING = '## Summary of the conversation before an earlier compaction (quoted whole)\n';

/** Quotes an earlier summary whole ahead of `rest`; returns the text and how many leading characters are protected. */
function withEarlier(earlier: EarlierSummary | null, rest: string): { summary: string; protectedChars: number } {
  if (!earlier) return { summary: rest, protectedChars: 0 };
  const quoted = EARLIER_HEADING + earlier.text;
  return { summary: `${quoted}\n\n${rest}`, protectedChars: quoted.length };
}

/** What a summary is written from: the plan, the rounds it summarizes, the lines loaded for them. */
export interface SummaryJob {
  analysis: Analysis;
  details: PlanDetails;
  /** The rounds summarized (indices into analysis.rounds), in order. */
  summarized: number[];
  earlier: EarlierSummary | null;
  records: Map<number, ConversationRecord>;
  progress: ProgressReporter;
}

/** The summary of `job` by the summarizer chosen, falling back to the offline one (and saying why) when it fails. */
export async function makeSummary(
  job: SummaryJob,
  summarizer: SummarizerOptions,
  runtime: Pick<RuntimeHooks, 'signal' | 'onSummaryText'>,
): Promise<SummaryOutcome> {
  const { analysis, details, summarized, earlier, records, progress } = job;
  if (summarized.length === 0) {
    // Budgets only: the earlier summary (if any) stays exactly as it was.
    const attempts: AttemptRecord[] = [
      { attempt: 1, strategy: 'extractive', outcome: 'ok', detail: 'no rounds to summarize; tool-result budgets only' },
    ];
    if (earlier)
      return {
        summary: earlier.text,
        protectedChars: earlier.text.length,
        verbatimContent: earlier.content,
        attempts,
        dropped: [],
        summarizer: 'none',
      };
    const dropped = details.plan.droppedRounds;
    const text = dropped
      ? `No earlier rounds were summarized; ${dropped} round${dropped === 1 ? ' was' : 's were'} left out by the user's choice, and the rest follows verbatim.`
      : 'No earlier rounds were summarized; the conversation follows verbatim with large tool results replaced by previews.';
    return { summary: text, protectedChars: 0, attempts, dropped: [], summarizer: 'none' };
  }
  const attempts: AttemptRecord[] = [];
  // The offline summary quotes an earlier summary whole and summarizes the rest around it.
  const offline = (why: string): SummaryOutcome => {
    progress('Writing an offline extractive summary…');
    attempts.push({ attempt: attempts.length + 1, strategy: 'extractive', outcome: 'ok', detail: why });
    return {
      ...offlineWithinReserve(job),
      attempts,
      dropped: [],
      summarizer: 'extractive',
    };
  };
  if (summarizer.summarizer === 'claude-cli' || summarizer.summarizer === 'codex-cli') {
    const kind = summarizer.summarizer === 'claude-cli' ? CLAUDE_CLI : CODEX_CLI;
    return agentCliSummary(kind, job, { summarizer, signal: runtime.signal }, { attempts, offline });
  }
  const anthropic = summarizer.anthropic;
  const apiKey = anthropic?.apiKey;
  if (summarizer.summarizer !== 'anthropic') return offline('offline extractive summary (no network)');
  if (!apiKey) return offline('no Anthropic API key was given; used the offline summary');
  const groups = summaryGroups(analysis, summarized, records, details.calibration);
  try {
    const res = await summarizeWithAnthropic(groups, summarized, {
      apiKey,
      model: anthropic?.model ?? DEFAULT_MODEL,
      baseURL: anthropic?.baseURL,
      maxTokens: anthropic?.maxTokens ?? details.plan.settings.summaryTokens,
      detail: details.plan.settings.summaryDetail,
      signal: runtime.signal,
      instructions: summarizer.instructions,
      onProgress: progress,
      onText: runtime.onSummaryText,
      chunkTokens: 150_000,
      maxPtlRetries: 3,
      timeoutMs: anthropic?.timeoutMs,
      maxRetries: anthropic?.maxRetries,
      calibration: details.calibration,
    });
    attempts.push(...res.attempts);
    if (!res.summary.trim()) return offline('the model returned an empty summary; used the offline summary');
    // The model saw the earlier summary as input, unless a prompt-too-long retry cut it: then quote it whole.
    const lost = earlier !== null && (!summarized.includes(earlier.round) || res.droppedRounds.includes(earlier.round));
    return {
      ...withEarlier(lost ? earlier : null, res.summary),
      attempts,
      dropped: res.droppedRounds,
      summarizer: 'anthropic',
    };
  } catch (err) {
    if (err instanceof PromptTooLongExhausted) {
      attempts.push(...err.attempts);
      return offline('the summary request stayed too long after 3 truncated retries; fell back to the offline summary');
    }
    if (err instanceof CompactError && (err.code === 'api' || err.code === 'network')) {
      const prior = (err as CompactError & { attempts?: AttemptRecord[] }).attempts;
      if (prior) attempts.push(...prior);
      return offline(`the Anthropic summary failed (${err.message}); fell back to the offline summary`);
    }
    throw err;
  }
}

/** Largest estimated request to an agent CLI: what the API path sends in one chunk. */
const AGENT_CLI_MAX_INPUT_TOKENS = 150_000;

/** The summary by the user's Claude Code or Codex, falling back to the offline one (and saying why) when it fails. */
async function agentCliSummary(
  kind: AgentCliKind,
  job: SummaryJob,
  /** The summarizer's options, and the signal that stops it. */
  run: { summarizer: SummarizerOptions; signal?: AbortSignal },
  /** The attempts so far (this one's are added) and the offline summary to fall back to. */
  fallback: { attempts: AttemptRecord[]; offline: (why: string) => SummaryOutcome },
): Promise<SummaryOutcome> {
  const { analysis, details, summarized, earlier, records, progress } = job;
  const { attempts, offline } = fallback;
  const { summarizer, signal } = run;
  const cli = summarizer.agentCli ?? {};
  // A CLI summarizer is an agent's own CLI, the program that resumes its sessions: the one the user configured for
  // it, else the program as it is usually installed.
  const resume = summarizerCliAgent(kind.strategy)!.resume!;
  const program = cli[resume.programOption]?.trim() || resume.program;
  const groups = summaryGroups(analysis, summarized, records, details.calibration);
  try {
    const res = await summarizeWithAgentCli(kind, groups, summarized, {
      program,
      env: cli.env,
      signal,
      timeoutMs: cli.timeoutMs,
      instructions: summarizer.instructions,
      onProgress: progress,
      maxInputTokens: AGENT_CLI_MAX_INPUT_TOKENS,
      detail: details.plan.settings.summaryDetail,
      maxChars: summaryCharBudget(details.plan.settings.summaryTokens, details.calibration),
    });
    attempts.push(...res.attempts);
    // The model saw the earlier summary as input, unless it was left out as too long: then quote it whole.
    const lost = earlier !== null && (!summarized.includes(earlier.round) || res.droppedRounds.includes(earlier.round));
    return {
      ...withEarlier(lost ? earlier : null, res.summary),
      attempts,
      dropped: res.droppedRounds,
      summarizer: kind.strategy,
    };
  } catch (err) {
    if (err instanceof CompactError && (err.code === 'api' || err.code === 'network')) {
      const prior = (err as CompactError & { attempts?: AttemptRecord[] }).attempts;
      if (prior) attempts.push(...prior);
      return offline(`the ${kind.label} summary failed (${err.message}); fell back to the offline summary`);
    }
    throw err;
  }
}

/**
 * Why the chosen agent CLI may not summarize a session of this agent, or null. Each agent summarizes only its own
 * sessions: their content has already gone to that agent's provider, and sending it to the other agent would send it
 * somewhere the user has not sent it before; so a mismatch is refused, never switched silently.
 */
export function agentCliRefusal(summarizer: SummarizerChoice, agent: AgentId): string | null {
  if (summarizer !== 'claude-cli' && summarizer !== 'codex-cli') return null;
  if (agentModule(agent).capabilities('jsonl').summarizerCli === summarizer) return null;
  const name = agentName(agent);
  if (summarizer === 'claude-cli') {
    return `The claude-cli summarizer (your Claude Code) summarizes Claude Code sessions only, and this is a ${name} session. Choose codex-cli for a Codex session, or the offline (extractive) summary; nothing was sent or written.`;
  }
  return `The codex-cli summarizer (your Codex) summarizes Codex sessions only, and this is a ${name} session. Choose claude-cli for a Claude Code session, or the offline (extractive) summary; nothing was sent or written.`;
}

/** The text the user gave, used exactly as given (never clipped: the plan makes room for it). */
export function givenSummary(text: string): SummaryOutcome {
  return {
    summary: text,
    protectedChars: text.length,
    attempts: [{ attempt: 1, strategy: 'given', outcome: 'ok', detail: 'the summary text given, used verbatim' }],
    dropped: [],
    summarizer: 'given',
  };
}

/** Characters of summary text that fit a reserve of `summaryTokens` (calibrated prose estimate, prefix excluded). */
export function summaryCharBudget(summaryTokens: number, calibration: number): number {
  return charsForTokens(summaryTokens, 'prose', calibration > 0 ? calibration : 1) - SUMMARY_PREFIX.length;
}

/**
 * The offline summary within its reserve in tokens, not only in characters: the character budget assumes prose, and a
 * summary that fills it with paths, commands and numbers estimates above the reserve (v2.1.97-images at 15%: 4,082
 * tokens for a 4,000 reserve), which takes the margin the plan kept for the request as the agent sends it. Made again
 * with fewer characters, in proportion, while it is over (an earlier summary quoted whole may keep it over: the plan
 * says so).
 */
function offlineWithinReserve(job: SummaryJob): { summary: string; protectedChars: number } {
  const { details } = job;
  const { summaryTokens, summaryDetail } = details.plan.settings;
  const calibration = details.calibration > 0 ? details.calibration : 1;
  let chars = summaryCharBudget(summaryTokens, details.calibration);
  let made = offlineSummary(job, chars, summaryDetail);
  for (let attempt = 0; attempt < 3; attempt++) {
    const tokens = summaryRoundTokens(made.summary, calibration);
    if (tokens <= summaryTokens || made.summary.length <= made.protectedChars) break;
    chars = Math.floor(Math.min(chars, made.summary.length) * (summaryTokens / tokens) * 0.99);
    made = offlineSummary(job, chars, summaryDetail);
  }
  return made;
}

/** The offline extractive summary of the given rounds at a detail level, an earlier summary among them quoted whole ahead of it. */
export function offlineSummary(
  job: Pick<SummaryJob, 'analysis' | 'summarized' | 'earlier' | 'records'>,
  maxChars: number,
  detail: SummaryDetail,
): { summary: string; protectedChars: number } {
  const { analysis, summarized: roundIdx, earlier, records } = job;
  const objs = roundIdx.flatMap((ri) =>
    analysis.rounds[ri].entries
      .filter((e) => e !== earlier?.entry)
      .map((e) => records.get(e)!)
      .filter(Boolean),
  );
  // What the agent's own compaction kept verbatim (its preserved segment) is quoted whole when it is summarized: the
  // agent was still sending it, and an extract of facts would drop it.
  const summarized = new Set(roundIdx.flatMap((ri) => analysis.rounds[ri].entries));
  const preserved = preservedText(analysis.chain.preserved.filter((e) => summarized.has(e)).map((e) => records.get(e)));
  const kept = preserved ? PRESERVED_HEADING + preserved : '';
  const quoted = (earlier ? EARLIER_HEADING.length + earlier.text.length + 2 : 0) + (kept ? kept.length + 2 : 0);
  const rest = extractiveSummary({ records: objs, maxChars: Math.max(2_000, maxChars - quoted), detail });
  const withKept = withEarlier(earlier, kept ? `${kept}\n\n${rest}` : rest);
  return { summary: withKept.summary, protectedChars: withKept.protectedChars + (kept ? kept.length + 2 : 0) };
}

const PRESERVED_HEADING = "## Kept verbatim by the agent's own compaction, after its summary (quoted whole)\n";
/** Longest tool result quoted from a preserved segment; the rest is named by its size. */
const PRESERVED_RESULT_CHARS = 2_000;

/** The messages of a preserved segment as text: who said it, its text, its tool calls and (capped) results. */
function preservedText(records: readonly (ConversationRecord | undefined)[]): string {
  const out: string[] = [];
  for (const o of records) {
    const m = messageOf(o);
    const content = m?.content;
    const role = m?.role === 'assistant' ? 'Assistant' : 'User';
    const blocks =
      typeof content === 'string' ? [{ type: 'text', text: content }] : Array.isArray(content) ? content : [];
    for (const item of blocks) {
      const b = asObject(item);
      if (b?.type === 'text' && typeof b.text === 'string' && b.text.trim()) out.push(`${role}: ${b.text}`);
      else if (b?.type === 'tool_use')
        out.push(`${role} called ${String(b.name)}: ${JSON.stringify(b.input ?? {}).slice(0, PRESERVED_RESULT_CHARS)}`);
      else if (b?.type === 'tool_result') {
        const text = contentText(b.content);
        const more = text.length - PRESERVED_RESULT_CHARS;
        out.push(
          `Tool result: ${text.slice(0, PRESERVED_RESULT_CHARS)}${more > 0 ? ` [… ${more} more characters]` : ''}`,
        );
      }
    }
  }
  return out.join('\n');
}
