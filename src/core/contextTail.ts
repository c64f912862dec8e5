// The context figure read from a file's end alone (the Sessions list and the live status item read only the two ends
// of a file), counted as context.ts `contextNow` counts it. A module of its own: the session list uses it, and the
// report (which the context figure reads) depends on the agents' modules, which list sessions.
import { parseLine, type Entry } from './entries';
import { buildChain } from './chain';
import { buildRounds } from './rounds';
import { continuesToolLoop, rawEstimate } from './tokens/estimate';

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
