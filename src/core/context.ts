// "The context": what the next request of the session would carry, system prompt and tools included. Defined here
// once; every surface (status bar, tree, input box, plan line, dialog, chart, CLI, the boundary we write) shows this
// figure, and names its parts where it shows one.
import { parseLine, type Entry } from './entries';
import type { InspectReport, TokenSource } from './report';
import { buildChain } from './chain';
import { buildRounds } from './rounds';
import { continuesToolLoop, rawEstimate } from './tokens/estimate';

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
 * The context figure as read from the file's end alone (the Sessions list and the live status item read only the two
 * ends of a file), as `contextNow` counts it: from the newest request's usage (`usage`: its figure, `raw` the
 * uncalibrated estimates of its round and every later one), or, when the agent compacted by itself after it, from the
 * agent's count of what its compaction kept (`compaction`: Claude Code's `postTokens`, `raw` the rounds after the
 * boundary's). `contextFromTail` gives the figure with the session's calibration factor and system prompt and tools
 * (both known once the whole file has been read: sessionStats.ts).
 */
export interface ContextTail {
  from: 'usage' | 'compaction';
  tokens: number;
  raw: number[];
}

/**
 * `contextNow`'s figure from a tail, each later round's estimate rounded as the report rounds it; after a compaction it
 * needs the system prompt and tools (`overhead`), null while they are unknown.
 */
export function contextFromTail(tail: ContextTail, calibration: number, overhead: number | null): number | null {
  const later = tail.raw.reduce((sum, r) => sum + Math.round(r * calibration), 0);
  if (tail.from === 'usage') return tail.tokens + later;
  return overhead === null ? null : overhead + tail.tokens + later;
}

/**
 * The tail's round estimates from the file's last lines, parsed, built as the whole file's analysis builds them (chain,
 * rounds, estimator): from the round of the newest usage's response (`messageId`; `lines` run from its first line to
 * the end, possibly with earlier lines before it, which belong to earlier rounds), or, with `messageId` null, from the
 * compact boundary that `lines` start with: the rounds after the boundary's own when the agent counted what it kept
 * (`counted`), else from the boundary's round on.
 */
export function tailRoundEstimates(lines: readonly string[], messageId: string | null, counted = true): number[] {
  // Each line read as the indexer reads it (objects joined on one line recovered, a line that is not one left out).
  const entries: Entry[] = lines.flatMap((text, i) => parseLine(text, i + 1, 0, 0).entries);
  const rounds = buildRounds(entries, buildChain(entries));
  const from =
    messageId !== null
      ? rounds.findIndex((r) => r.messageId === messageId)
      : counted
        ? rounds.findIndex((r) => !r.startsAtBoundary && r.firstLine > (entries[0]?.line ?? 0))
        : rounds.findIndex((r) => r.startsAtBoundary);
  return from < 0 ? [] : rounds.slice(from).map((r) => rawEstimate(r.content, continuesToolLoop(r)));
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
