// What the summarizer of a planned compaction costs, estimated before it runs. One function for every surface that
// prices a plan (the plan line and `plan`, the confirmation, the Context Map, the status bar), so they agree.
//
// The request is modelled as the summarizers send it (summary.ts, summarize/*.ts):
// - input: the summarized span (the Anthropic path splits it into requests of at most 150k tokens; an agent CLI gets
//   one request, the newest 150k of it) + the summarizing request (prompt.ts, at the plan's detail level) + the system
//   text around it (ours for claude-cli; Codex's own instructions for codex-cli, taken as large as the session's
//   system prompt and tools);
// - output, per request: the summary (the detail level's reserve) + the <analysis> scratchpad the request asks for
//   first, allowed as much again (it is often as long as the summary; anthropic.ts `cutOffRetryMaxTokens`).
// All of it at the model's plain input and output rates (a summarizing request reads no cache). It is an estimate:
// the span's size is our estimate and the reply's length is the model's choice.
//
// Who pays: offline, nobody; `anthropic`, the API key given; `claude-cli` / `codex-cli`, whatever login the user's
// agent runs on. A Codex rollout records the ChatGPT plan of its login (`loginPlan`), so its summary is said to be
// billed to that plan; Claude Code records no login, so both cases are named. The figure is the API price either way
// (what the same tokens cost on the API; on a plan they count against its limits instead).
import type { Analysis } from '../analysis';
import type { Entry } from '../entries';
import { priceFor, type PriceTable } from '../cost';
import { estimateStringTokens } from '../tokens/estimate';
import { newestUsageInContext } from '../tokens/usage';
import type { SummarizerChoice } from './options';
import { summaryRequestText } from './summarize/prompt';
import { CLAUDE_CLI_SYSTEM_PROMPT } from './summarize/claudeCli';
import { DEFAULT_MODEL } from './summary';
import type { CompactionPlan } from './types';
import { agentModule } from '../formats/registry';

/**
 * Whose sessions an agent's own CLI summarizes, in the words of the unpriced reason: the agent whose module names the
 * summarizer (its capabilities' `summarizerCli`), which is the only one it is offered for.
 */
const AGENT_CLI_SESSIONS: Partial<Record<SummarizerChoice, string>> = {
  'claude-cli': 'Claude Code',
  'codex-cli': 'Codex',
};

/** Largest request the Anthropic path sends (summary.ts `chunkTokens`) and an agent CLI gets (`AGENT_CLI_MAX_INPUT_TOKENS`). */
export const SUMMARY_REQUEST_MAX_INPUT = 150_000;

/**
 * What Claude Code adds to `claude -p`'s request beside our system prompt and stdin (its two fixed system lines and its
 * "# Environment" message; measured in test/compat/agent-cli-summary.test.ts at about this many tokens).
 */
const CLAUDE_CLI_OWN_TEXT_TOKENS = 250;

/** The summarizer a plan is priced with: which one, and for `anthropic` its model (default: the engine's). */
export interface SummarizerPricing {
  summarizer: SummarizerChoice;
  model?: string;
}

export const OFFLINE_SUMMARIZER: SummarizerPricing = { summarizer: 'extractive' };

export interface SummarizerCost {
  summarizer: SummarizerChoice;
  /** In words: "offline", "the Anthropic API", "your Claude Code", "your Codex". */
  label: string;
  /** The model it runs (the Anthropic setting, or the agent's model as the session's newest response names it). */
  model: string | null;
  priceKey: string | null;
  /** Priced at another model's rates (`PriceMatch.assumed`). */
  assumed: boolean;
  requests: number;
  /** Tokens it sends (span, request and system text) and receives (summary and <analysis>), estimated. */
  inputTokens: number;
  outputTokens: number;
  /** At the model's API rates; 0 offline or unpriced. */
  usd: number;
  /** Why there is no figure (no model known, or no price for it), else null. */
  unpriced: string | null;
  /** Who pays, in words, or null offline. */
  billing: string | null;
}

/** The newest ChatGPT plan a Codex rollout records for its login, or null. */
export function loginPlanOf(entries: readonly Entry[]): string | null {
  for (let i = entries.length - 1; i >= 0; i--) if (entries[i].loginPlan) return entries[i].loginPlan!;
  return null;
}

/** The tokens a plan sends to its summarizer as the span: its summarized rounds of the active context. */
export function summarizedSpanTokens(plan: CompactionPlan): number {
  return plan.rounds.filter((r) => r.inContext && r.action === 'summarize').reduce((s, r) => s + r.tokens, 0);
}

/** What the plan's summary costs with the given summarizer (see the file's comment for the model of the request). */
export function summarizerCostFor(
  analysis: Analysis,
  plan: CompactionPlan,
  pricing: SummarizerPricing,
  prices?: PriceTable,
): SummarizerCost {
  const { summarizer } = pricing;
  const span = summarizedSpanTokens(plan);
  const base = {
    summarizer,
    model: null,
    priceKey: null,
    assumed: false,
    requests: 0,
    inputTokens: 0,
    outputTokens: 0,
    usd: 0,
    unpriced: null,
    billing: null,
  };
  if (summarizer === 'extractive' || span === 0) return { ...base, label: 'offline' };
  const agentModel = newestUsageInContext(analysis.index.entries, analysis.rounds)?.round.model ?? null;
  const model = summarizer === 'anthropic' ? (pricing.model ?? DEFAULT_MODEL) : agentModel;
  const label =
    summarizer === 'anthropic' ? 'the Anthropic API' : summarizer === 'claude-cli' ? 'your Claude Code' : 'your Codex';
  const request = estimateStringTokens(summaryRequestText(undefined, { detail: plan.settings.summaryDetail }));
  let requests: number;
  let inputTokens: number;
  if (summarizer === 'anthropic') {
    requests = Math.max(1, Math.ceil(span / SUMMARY_REQUEST_MAX_INPUT));
    inputTokens = span + requests * request;
  } else {
    requests = 1;
    const system =
      summarizer === 'claude-cli'
        ? estimateStringTokens(CLAUDE_CLI_SYSTEM_PROMPT) + CLAUDE_CLI_OWN_TEXT_TOKENS
        : plan.overheadTokens;
    inputTokens = Math.min(span, SUMMARY_REQUEST_MAX_INPUT) + request + system;
  }
  const outputTokens = requests * 2 * plan.settings.summaryTokens;
  const plan_ = summarizer === 'codex-cli' ? loginPlanOf(analysis.index.entries) : null;
  const billing =
    summarizer === 'anthropic'
      ? 'billed to your Anthropic API key'
      : summarizer === 'claude-cli'
        ? 'billed to your Claude plan when your Claude Code is logged in with a subscription, else to its API key'
        : plan_
          ? `billed to your Codex plan (ChatGPT ${plan_}, the login this session records)`
          : 'billed to the login your Codex uses (your ChatGPT plan or its API key)';
  const estimate = { ...base, label, model, requests, inputTokens, outputTokens, billing };
  // Each agent summarizes only its own sessions (summary.ts `agentCliRefusal`): compact would refuse the other's.
  const ownSessions = AGENT_CLI_SESSIONS[summarizer];
  if (ownSessions && agentModule(analysis.index.format.id).capabilities('jsonl').summarizerCli !== summarizer)
    return { ...estimate, unpriced: `${label} summarizes ${ownSessions} sessions only` };
  if (!model) return { ...estimate, unpriced: "the session's model is not known" };
  const priced = priceFor(model, prices);
  if (!priced) return { ...estimate, unpriced: `no price for ${model}` };
  const usd = (inputTokens * priced.price.input + outputTokens * priced.price.output) / 1e6;
  return { ...estimate, priceKey: priced.key, assumed: priced.assumed, usd };
}

/**
 * The summarizer's share in words, for the cost line: "$0.12 of it the summary by your Codex (gpt-5.5; an estimate:
 * ~48k tokens in, ~8k out; billed to your Codex plan …)"; '' offline.
 */
export function summarizerCostText(c: SummarizerCost, usd: (n: number) => string): string {
  if (c.summarizer === 'extractive' || c.requests === 0) return '';
  const k = (n: number) => (n >= 1000 ? `${Math.round(n / 1000)}k` : String(n));
  const tokens = `~${k(c.inputTokens)} tokens in, ~${k(c.outputTokens)} out`;
  if (c.unpriced)
    return `the summary by ${c.label} is not priced (${c.unpriced}; an estimate of ${tokens}; ${c.billing})`;
  const model = `${c.model}${c.assumed ? `, assumed at ${c.priceKey} rates` : ''}`;
  return `${usd(c.usd)} of it the summary by ${c.label} (${model}; an estimate: ${tokens}; ${c.billing})`;
}
