// What a resume sends again that no kept line holds: the session-start context the agent announces (core of the
// promised size after a compaction, and of the context figure of a file compacted by us before it is resumed). A
// module of its own so that the report (report.ts) and the context figure (context.ts) both use it without a circle.
import type { Entry } from './entries';
import type { Round } from './rounds';
import { attachmentTokens, isAnnouncement } from './announcements';
import { agentModule, type AgentId } from './formats/registry';

/**
 * What a resume of a file sends again that none of the `kept` rounds (its active context) holds, as its own figure
 * counts it (the report; the result of a compaction is this figure of the file it wrote): the session-start context
 * the agent announces (`reannouncedOnResume`), and what its module says the agent gives a resumed session again
 * (`resumeOverhead`: Codex's context of a thread, when the kept history holds none).
 */
export function resentOnResume(
  agent: AgentId,
  entries: readonly Entry[],
  rounds: readonly Round[],
  kept: ReadonlySet<number>,
  calibration: number,
): number {
  const keptEntries = new Set<number>();
  for (const r of rounds) if (kept.has(r.index)) for (const i of r.entries) keptEntries.add(i);
  const given = agentModule(agent).resumeOverhead?.(entries, calibration, keptEntries).tokens ?? 0;
  return reannouncedOnResume(entries, rounds, kept, calibration) + given;
}
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
