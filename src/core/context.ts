// "The context": what the next request of the session would carry, system prompt and tools included. Defined here
// once; every surface (status bar, tree, input box, plan line, dialog, chart, CLI, the boundary we write) shows this
// figure, and names its parts where it shows one.
import type { Entry } from './entries';
import type { InspectReport, TokenSource } from './report';

export { reannouncedOnResume } from './reannounced';

export interface ContextFigure {
  /** Tokens of the next request: the newest request's usage plus estimates of what followed it (else all estimated). */
  tokens: number;
  source: TokenSource;
  /** System prompt and tool definitions, estimated from usage (0 when the file has no usage to tell). */
  overhead: number;
  /** The active transcript: `tokens - overhead - attached - resent`. */
  transcript: number;
  /**
   * What the newest request carried beyond its system prompt, tools and transcript lines: after its own compaction
   * Claude Code re-attaches recently read files to the requests, and no transcript line holds them, so a resume of
   * the file starts without them. 0 unless usage says so (see `attachedByAgent`).
   */
  attached: number;
  /**
   * What a resume sends again that no active line holds (the agent's session-start context), counted when the next
   * request is a resume of a file without usage in its active context (just compacted by us); 0 otherwise.
   */
  resent: number;
  /** True when `overhead` is known (recorded or estimated from usage), false when unknown (then 0). */
  overheadKnown: boolean;
  /** `recorded`: counted from the agent's own record of its requests; `estimated`: from usage; null: unknown. */
  overheadSource: 'recorded' | 'estimated' | null;
}

export function contextNow(report: InspectReport): ContextFigure {
  const t = report.totals;
  const overhead = Math.min(t.overheadTokens ?? 0, t.currentContextTokens);
  const attached = attachedByAgent(report, overhead);
  const resent = t.resentTokens;
  return {
    tokens: t.currentContextTokens,
    source: t.currentContextSource,
    overhead,
    transcript: t.currentContextTokens - overhead - attached - resent,
    attached,
    resent,
    overheadKnown: t.overheadTokens !== null,
    overheadSource: t.overheadSource,
  };
}

/**
 * Tokens the newest request carried that neither the system prompt and tools nor the transcript's lines explain:
 * the usage-based figure minus both. Counted only where the active context starts at a compaction (where the agent
 * attaches files outside the transcript) and the excess is beyond the estimates' own error (a few percent, see
 * the calibration), so noise is never named as an attachment.
 */
function attachedByAgent(report: InspectReport, overhead: number): number {
  const t = report.totals;
  if (t.contextTokens === null) return 0;
  if (!report.rounds.some((r) => r.inContext && r.startsAtBoundary)) return 0;
  const excess = t.currentContextTokens - overhead - t.transcriptEstimateTokens;
  return excess >= Math.max(ATTACHED_FLOOR, ATTACHED_SHARE * t.currentContextTokens) ? excess : 0;
}

/** The model's context window the agent recorded (Codex's `model_context_window`), newest first; null when none. */
export function recordedContextWindow(entries: readonly Entry[]): number | null {
  for (let i = entries.length - 1; i >= 0; i--) {
    const w = entries[i].contextWindow;
    if (w !== undefined) return w;
  }
  return null;
}

/** Below these an excess is the estimate's error, not an attachment. */
const ATTACHED_FLOOR = 1000;
const ATTACHED_SHARE = 0.05;

/** The figure's parts in words, e.g. "transcript 5.9k + system prompt and tools 42.4k + ≈14.6k attached by ...". */
export function contextParts(figure: ContextFigure, format: (n: number) => string): string {
  const parts = [`transcript ${format(figure.transcript)}`];
  if (figure.overheadKnown) parts.push(`system prompt and tools ${format(figure.overhead)} (${figure.overheadSource})`);
  if (figure.attached) parts.push(`≈${format(figure.attached)} ${ATTACHED_NOTE}`);
  if (figure.resent) parts.push(`${format(figure.resent)} ${RESENT_NOTE}`);
  return parts.join(' + ');
}

/** What `resent` is, in words. */
export const RESENT_NOTE = 'the agent sends again on resume (its session-start context)';

/** Why `attached` matters to the user. */
export const ATTACHED_NOTE =
  'attached by the agent after its compaction, not in the transcript: a resume starts without it';
