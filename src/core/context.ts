// "The context": what the next request of the session would carry, system prompt and tools included. Defined here
// once; every surface (status bar, tree, input box, plan line, dialog, chart, CLI, the boundary we write) shows this
// figure, and names its parts where it shows one.
import type { Entry } from './entries';
import type { InspectReport, TokenSource } from './report';
import type { Round } from './rounds';
import { TOKEN_MODEL } from './tokens/estimate';

export interface ContextFigure {
  /** Tokens of the next request: the newest request's usage plus estimates of what followed it (else all estimated). */
  tokens: number;
  source: TokenSource;
  /** System prompt and tool definitions, estimated from usage (0 when the file has no usage to tell). */
  overhead: number;
  /** The active transcript: `tokens - overhead - attached`. */
  transcript: number;
  /**
   * What the newest request carried beyond its system prompt, tools and transcript lines: after its own compaction
   * Claude Code re-attaches recently read files to the requests, and no transcript line holds them, so a resume of
   * the file starts without them. 0 unless usage says so (see `attachedByAgent`).
   */
  attached: number;
  /** True when `overhead` is known (recorded or estimated from usage), false when unknown (then 0). */
  overheadKnown: boolean;
  /** `recorded`: counted from the agent's own record of its requests; `estimated`: from usage; null: unknown. */
  overheadSource: 'recorded' | 'estimated' | null;
}

export function contextNow(report: InspectReport): ContextFigure {
  const t = report.totals;
  const overhead = Math.min(t.overheadTokens ?? 0, t.currentContextTokens);
  const attached = attachedByAgent(report, overhead);
  return {
    tokens: t.currentContextTokens,
    source: t.currentContextSource,
    overhead,
    transcript: t.currentContextTokens - overhead - attached,
    attached,
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
  return parts.join(' + ');
}

/** Why `attached` matters to the user. */
export const ATTACHED_NOTE =
  'attached by the agent after its compaction, not in the transcript: a resume starts without it';

/**
 * Tokens a resumed request carries that a compacted transcript no longer holds and the agent sends again: the
 * context Claude Code announces at a session's start as rendered attachments (2.1.330: environment, model, deferred
 * tools, agent types, skills, date as one role "system" message; the attribution reminder beside the prompt). It
 * sends each kind again whenever the chain it resumes holds none (it re-writes them after its own /compact too), so a
 * resume of our result carries every announced kind its kept rounds do not hold, at the size of the newest one.
 * Counted only where the file shows the agent doing it: attachments with rendered text before the first response.
 * `kept` are the indices of the rounds the result keeps; `calibration` the session's factor (1 for a raw estimate).
 * `announcedNow`: what the user's agent announces today (agentNow.ts, by kind, in tokens as sent), which a resume
 * sends whatever the file's own agent announced; without it, the file's own announcements.
 */
export function reannouncedOnResume(
  entries: readonly Entry[],
  rounds: readonly Round[],
  kept: ReadonlySet<number>,
  calibration: number,
  announcedNow?: Readonly<Record<string, number>> | null,
): number {
  const announced = announcedNow ? new Map(Object.entries(announcedNow)) : fileAnnouncements(entries);
  if (announced.size === 0) return 0;
  for (const r of rounds) {
    if (!kept.has(r.index)) continue;
    for (const i of r.entries) announced.delete(entries[i].attachmentType ?? '');
  }
  const sum = [...announced.values()].reduce((n, t) => n + t, 0);
  // The user's agent's announcements are counted as sent (agentNow.ts); the file's own are estimates of this session.
  return Math.round(announcedNow ? sum : sum * calibration);
}

/** The session-start context the file's own agent announced, by kind, at the size of the newest of each kind. */
function fileAnnouncements(entries: readonly Entry[]): Map<string, number> {
  const announced = new Map<string, number>();
  // Announced before the file's first request (its request records where it writes them, else its first response).
  const requestAt = entries.findIndex(isRequestRecord);
  const end = requestAt >= 0 ? requestAt : entries.findIndex((e) => e.kind === 'assistant');
  for (const e of entries.slice(0, end < 0 ? entries.length : end)) {
    if (isAnnouncement(e)) announced.set(e.attachmentType!, 0);
  }
  if (announced.size === 0) return announced;
  for (const e of entries) {
    if (e.kind === 'attachment' && e.attachmentType && announced.has(e.attachmentType) && e.attachmentChars)
      announced.set(e.attachmentType, attachmentTokens(e));
  }
  return announced;
}

/** Records the agent writes as it sends a request (2.1.330): the prompt snapshot and the request shape and record. */
function isRequestRecord(e: Entry): boolean {
  return (
    e.kind === 'api-request' ||
    e.kind === 'api-request-shape' ||
    (e.kind === 'attachment' && e.attachmentType === 'prompt_snapshot')
  );
}

/**
 * Attachments the agent's own compaction writes (files it re-reads for the new context), not session-start context:
 * a file that begins at its compaction (a `--fork-session` copy) holds them before its first request, yet a resume of
 * it does not send them again.
 */
const REATTACHED_BY_COMPACTION = new Set(['file', 'compact_file_reference']);

/** An attachment with rendered text that is session-start context (not a file re-attached by a compaction). */
export function isAnnouncement(e: Entry): boolean {
  return (
    e.kind === 'attachment' &&
    !!e.attachmentType &&
    !!e.attachmentChars &&
    !REATTACHED_BY_COMPACTION.has(e.attachmentType)
  );
}

/** Uncalibrated tokens of an attachment's rendered text (by its proxy count where indexed, else per character). */
export function attachmentTokens(e: Entry): number {
  return e.attachmentTokens !== undefined
    ? TOKEN_MODEL.proseScale * e.attachmentTokens
    : TOKEN_MODEL.prose * (e.attachmentChars ?? 0);
}
