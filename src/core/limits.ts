// The context window and the auto-compaction threshold of a session, from the agent that wrote it and from what the
// file itself records. One place for every surface (the Context Map's lines, the status bar's "auto-compacts near",
// the live session's warning levels), so they cannot disagree.
import type { Entry } from './entries';
import type { FormatId } from './formats/types';

export interface ContextLimits {
  /** The model's context window (tokens); null when neither the file nor its model tells it. */
  window: number | null;
  /** Where the window comes from, said to the user ("recorded by Codex", "claude-opus-4-5: 200k"...). */
  windowFrom: string;
  /** Where the agent compacts by itself (tokens); null when the agent's threshold is not known here. */
  autoCompactAt: number | null;
  /** Where the threshold comes from, or why it is unknown. */
  autoCompactFrom: string;
}

/** What a session shows about its limits: its agent, its newest model, and what it recorded. */
export interface LimitFacts {
  format: FormatId;
  model: string | null;
  /** The window the agent recorded (Codex token_count `model_context_window`), the newest one. */
  recordedWindow: number | null;
  /** Context sizes (preTokens) at which the agent compacted by itself (Claude Code `trigger: "auto"` boundaries). */
  autoCompactions: number[];
}

/** Context window of a Claude model, in tokens: 1M for the long-context variants (`[1m]`, `-1m`), else 200k. */
export function claudeWindowOf(model: string | null | undefined): number {
  return model && /\[1m\]|-1m\b|context-1m/i.test(model) ? 1_000_000 : 200_000;
}

/**
 * Where Claude Code compacts by itself with a given window: the window less room for the reply and a buffer. With a
 * 200k window the shared fixture with an automatic compaction records `preTokens` 167,174 at the trigger, i.e. 33k
 * below the window.
 */
export function claudeAutoCompactAt(window: number): number {
  return window - 33_000;
}

/** Codex compacts by itself at 90% of its model's window (codex-rs: the default `auto_compact_token_limit`). */
const CODEX_AUTO_COMPACT_SHARE = 0.9;
/** Codex's window for its default models (gpt-5 family: 272k, of which it uses 95%) when a rollout records none. */
const CODEX_DEFAULT_WINDOW = 258_400;

/** Gemini models' windows: 2M for 1.5 Pro, else 1,048,576 (Gemini CLI's tokenLimit). */
function geminiWindowOf(model: string | null): number {
  return model && /gemini-1\.5-pro/i.test(model) ? 2_097_152 : 1_048_576;
}

/** Cline truncates its history when the context nears its window less a reserve (its context-window rules). */
function clineThreshold(window: number): number {
  if (window <= 64_000) return window - 27_000;
  if (window <= 128_000) return window - 30_000;
  if (window <= 200_000) return window - 40_000;
  return Math.max(window - 40_000, Math.round(window * 0.8));
}

function short(n: number): string {
  return n >= 1_000_000 && n % 1_000_000 === 0
    ? `${n / 1_000_000}M`
    : n >= 1000
      ? `${Math.round(n / 1000)}k`
      : String(n);
}

/** The limits from the facts: the agent's own rules, and an observed auto-compaction bounds the threshold. */
export function contextLimits(f: LimitFacts): ContextLimits {
  const model = f.model;
  let window: number | null;
  let windowFrom: string;
  let autoCompactAt: number | null;
  let autoCompactFrom: string;
  switch (f.format) {
    case 'codex':
      window = f.recordedWindow ?? CODEX_DEFAULT_WINDOW;
      windowFrom = f.recordedWindow
        ? `recorded by Codex (model_context_window ${f.recordedWindow.toLocaleString('en-US')})`
        : `Codex's default window (this rollout records none)`;
      autoCompactAt = Math.round(window * CODEX_AUTO_COMPACT_SHARE);
      autoCompactFrom = 'Codex compacts by itself near 90% of its window';
      break;
    case 'gemini-cli':
      window = geminiWindowOf(model);
      windowFrom = `${model ?? 'a Gemini model'}: ${short(window)}`;
      autoCompactAt = null;
      autoCompactFrom = "Gemini CLI's compression threshold is a setting the session does not record";
      break;
    case 'cline':
      window = model && /claude/i.test(model) ? claudeWindowOf(model) : null;
      windowFrom = window
        ? `${model}: ${short(window)}`
        : `Cline does not record ${model ? `${model}'s` : "its model's"} window`;
      autoCompactAt = window ? clineThreshold(window) : null;
      autoCompactFrom = window
        ? 'Cline truncates its history near its window less a reserve'
        : 'unknown without the window';
      break;
    case 'copilot-cli':
      window = null;
      windowFrom = "Copilot CLI does not record its model's window";
      autoCompactAt = null;
      autoCompactFrom = 'unknown without the window';
      break;
    default:
      window = claudeWindowOf(model);
      windowFrom = `${model ?? 'the default Claude model'}: ${short(window)}`;
      autoCompactAt = claudeAutoCompactAt(window);
      autoCompactFrom = `Claude Code compacts by itself about 33k below the window`;
  }
  // The agent compacted by itself at this size: its threshold is there (or lower), whatever the model's name says.
  const observed = f.autoCompactions.length ? Math.min(...f.autoCompactions) : null;
  if (observed !== null && (autoCompactAt === null || observed < autoCompactAt)) {
    autoCompactAt = observed;
    autoCompactFrom = `this session compacted itself at ${observed.toLocaleString('en-US')} tokens`;
  }
  return { window, windowFrom, autoCompactAt, autoCompactFrom };
}

/** The facts of a transcript's entries: the newest model and recorded window, the agent's own compactions. */
export function limitFacts(format: FormatId, entries: readonly Entry[]): LimitFacts {
  let model: string | null = null;
  let recordedWindow: number | null = null;
  const autoCompactions: number[] = [];
  for (const e of entries) {
    if (e.kind === 'assistant' && e.model && e.model !== '<synthetic>' && !e.isSidechain) model = e.model;
    if (e.contextWindow !== undefined) recordedWindow = e.contextWindow;
    if (e.compactTrigger === 'auto' && e.preTokens !== undefined && e.preTokens > 0) autoCompactions.push(e.preTokens);
  }
  return { format, model, recordedWindow, autoCompactions };
}

/** How full the context is against the threshold: the share of the window where the agent compacts by itself. */
export function autoCompactShare(limits: Pick<ContextLimits, 'window' | 'autoCompactAt'>): number | null {
  return limits.window && limits.autoCompactAt !== null ? limits.autoCompactAt / limits.window : null;
}

/** "auto-compacts near 167k (84% of 200k)", the one sentence every surface uses; null when unknown. */
export function autoCompactText(limits: ContextLimits): string {
  if (limits.autoCompactAt === null) return `auto-compaction threshold unknown (${limits.autoCompactFrom})`;
  const share = autoCompactShare(limits);
  return `auto-compacts near ${short(limits.autoCompactAt)}${share !== null ? ` (${Math.round(share * 100)}% of ${short(limits.window!)})` : ''}: ${limits.autoCompactFrom}`;
}
