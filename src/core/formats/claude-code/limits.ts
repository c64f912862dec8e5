// Claude Code's context window and the size at which it compacts by itself.
import { shortTokens, type AgentLimits } from '../agent';

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

export function claudeLimits(model: string | null): AgentLimits {
  const window = claudeWindowOf(model);
  return {
    window,
    windowFrom: `${model ?? 'the default Claude model'}: ${shortTokens(window)}`,
    autoCompactAt: claudeAutoCompactAt(window),
    autoCompactFrom: `Claude Code compacts by itself about 33k below the window`,
  };
}
