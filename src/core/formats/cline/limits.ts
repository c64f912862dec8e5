// Cline's context window and where it truncates its history: the rules its module states (index.ts) and its reader
// follows when a task records no truncation of its own (reader.ts).
import { shortTokens, type AgentLimits } from '../agent';
import { claudeWindowOf } from '../claude-code/limits';

/** Cline truncates its history when the context nears its window less a reserve (its context-window rules). */
export function clineThreshold(window: number): number {
  if (window <= 64_000) return window - 27_000;
  if (window <= 128_000) return window - 30_000;
  if (window <= 200_000) return window - 40_000;
  return Math.max(window - 40_000, Math.round(window * 0.8));
}

/** The window of a task's model (a Claude model's; null for another vendor's, which Cline's files do not state). */
export function clineWindow(model: string | null | undefined): number | null {
  return model && /claude/i.test(model) ? claudeWindowOf(model) : null;
}

export function clineLimits(model: string | null): AgentLimits {
  const window = clineWindow(model);
  return {
    window,
    windowFrom: window
      ? `${model}: ${shortTokens(window)}`
      : `Cline does not record ${model ? `${model}'s` : "its model's"} window`,
    autoCompactAt: window ? clineThreshold(window) : null,
    autoCompactFrom: window
      ? 'Cline truncates its history near its window less a reserve'
      : 'unknown without the window',
  };
}
