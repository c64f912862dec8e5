// The context window and the auto-compaction threshold of a session, from the agent that wrote it (its module's
// rules) and from what the file itself records. One place for every surface (the Context Map's lines, the status bar's
// "auto-compacts near", the live session's warning levels), so they cannot disagree.
import type { Entry } from './entries';
import { shortTokens as short } from './formats/agent';
import { agentModule, type AgentId } from './formats/registry';

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
  format: AgentId;
  model: string | null;
  /** The window the agent recorded (Codex token_count `model_context_window`), the newest one. */
  recordedWindow: number | null;
  /** Context sizes (preTokens) at which the agent compacted by itself (Claude Code `trigger: "auto"` boundaries). */
  autoCompactions: number[];
}

/** The limits from the facts: the agent's own rules, and an observed auto-compaction bounds the threshold. */
export function contextLimits(f: LimitFacts): ContextLimits {
  const { window, windowFrom, ...rules } = agentModule(f.format).limits(f.model, f.recordedWindow);
  let { autoCompactAt, autoCompactFrom } = rules;
  // The agent compacted by itself at this size: its threshold is there (or lower), whatever the model's name says.
  const observed = f.autoCompactions.length ? Math.min(...f.autoCompactions) : null;
  if (observed !== null && (autoCompactAt === null || observed < autoCompactAt)) {
    autoCompactAt = observed;
    autoCompactFrom = `this session compacted itself at ${observed.toLocaleString('en-US')} tokens`;
  }
  return { window, windowFrom, autoCompactAt, autoCompactFrom };
}

/** The facts of a transcript's entries: the newest model and recorded window, the agent's own compactions. */
export function limitFacts(format: AgentId, entries: readonly Entry[]): LimitFacts {
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

/** The window a session states, and where it comes from: what `inspect --json` says as `context.window`. */
export interface StatedWindow {
  /** null when neither the agent's rules nor the file tell it. */
  tokens: number | null;
  source: string;
}

/** The window of a session of `format` whose entries are `entries`: the one the map, the row and `inspect` state. */
export function statedWindow(format: AgentId, entries: readonly Entry[]): StatedWindow {
  const { window, windowFrom } = contextLimits(limitFacts(format, entries));
  return { tokens: window, source: windowFrom };
}
