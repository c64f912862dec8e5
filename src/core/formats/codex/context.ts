// Codex's limits and what it gives a resumed thread again: its window and auto-compaction share, and the context
// (developer and environment messages) it sends with a thread rebuilt from our compacted record.
import type { Entry } from '../../entries';
import { TOKEN_MODEL } from '../../tokens/estimate';
import type { AgentLimits, ResumeOverhead } from '../agent';

/** Codex compacts by itself at 90% of its model's window (codex-rs: the default `auto_compact_token_limit`). */
const CODEX_AUTO_COMPACT_SHARE = 0.9;
/** Codex's window for its default models (gpt-5 family: 272k, of which it uses 95%) when a rollout records none. */
const CODEX_DEFAULT_WINDOW = 258_400;

export function codexLimits(recordedWindow: number | null): AgentLimits {
  const window = recordedWindow ?? CODEX_DEFAULT_WINDOW;
  return {
    window,
    windowFrom: recordedWindow
      ? `recorded by Codex (model_context_window ${recordedWindow.toLocaleString('en-US')})`
      : `Codex's default window (this rollout records none)`,
    autoCompactAt: Math.round(window * CODEX_AUTO_COMPACT_SHARE),
    autoCompactFrom: 'Codex compacts by itself near 90% of its window',
  };
}

/** The first text of a context message Codex writes with every full context it gives a thread (all versions). */
const ENVIRONMENT_CONTEXT = '<environment_context>';

/**
 * Tokens of the context Codex adds again when it resumes a rollout we compacted. Codex (0.169, "cold_resume") gives a
 * thread its full context (the developer message of permissions, skills and instructions; the environment message)
 * whenever the history it rebuilds holds none since the newest compaction, and our `compacted` record ends the file:
 * so the next request carries that context beside our summary and kept items, in no kept round. Estimated as the
 * newest full context the rollout records: the newest run of consecutive context messages that holds an environment
 * message (in the file's order, compacted histories included), each block as prose, calibrated like the rounds.
 * `kept`, when given, are the entries the resumed history holds (a file's active context): none is given again when
 * one of them is an environment message.
 */
export function codexResumeContextTokens(
  entries: readonly Entry[],
  calibration: number,
  kept?: ReadonlySet<number>,
): number {
  // A history that holds a full context since its newest compaction is resumed with it, and given none again.
  if (kept) for (const i of kept) if (isFullContext(entries[i])) return 0;
  let newest = 0;
  let run = 0;
  let hasEnvironment = false;
  for (const e of entries) {
    if (e.kind !== 'user' && e.kind !== 'assistant') continue;
    if (e.kind === 'user' && e.isMeta && !e.isCompactSummary) {
      for (const b of e.blocks)
        run +=
          TOKEN_MODEL.block +
          (b.tokens !== undefined ? TOKEN_MODEL.proseScale * b.tokens : TOKEN_MODEL.prose * b.chars);
      if (isFullContext(e)) hasEnvironment = true;
      continue;
    }
    if (run > 0 && hasEnvironment) newest = run;
    run = 0;
    hasEnvironment = false;
  }
  if (run > 0 && hasEnvironment) newest = run;
  return Math.round(newest * calibration);
}

/** A context message of a full context Codex gives a thread: its environment message. */
function isFullContext(e: Entry | undefined): boolean {
  return (
    !!e &&
    e.kind === 'user' &&
    !!e.isMeta &&
    !e.isCompactSummary &&
    e.blocks.some((b) => b.preview?.startsWith(ENVIRONMENT_CONTEXT))
  );
}

export function codexResumeOverhead(
  entries: readonly Entry[],
  calibration: number,
  kept?: ReadonlySet<number>,
): ResumeOverhead {
  const tokens = codexResumeContextTokens(entries, calibration, kept);
  return {
    tokens,
    note: `Codex gives the resumed thread its context again (permissions, instructions, environment: about ${tokens} tokens), counted with its instructions and tools`,
  };
}
