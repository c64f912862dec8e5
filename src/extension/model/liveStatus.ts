// The live session's status bar text as plain data: context fill against the model's window, and how close it is to
// the agent's auto-compaction (core/limits.ts, the same threshold the Context Map draws). Pure: no `vscode` import.
import type { SessionSummary } from '../../core/sessionList';
import type { SessionContext } from '../../core/sessionStats';
import { autoCompactText } from '../../core/limits';
import { shortNumber } from './format';
import { agentName, type AgentId } from '../../core/formats/registry';

/**
 * Shares of the auto-compaction threshold from which the item turns yellow, then red, and the notification is offered
 * (with Claude Code's 167k of 200k: from ~134k and ~153k).
 */
export const WARN_AT = 0.8;
export const ALERT_AT = 0.92;

/** A file unchanged this long is taken as settled (the agent finished its turn). */
export const SETTLED_MS = 5_000;

/**
 * Milliseconds until a file last modified at `mtimeMs` has been unchanged for SETTLED_MS: none for a file already quiet
 * that long (a session found after its turn ended is read at once, not SETTLED_MS after it was found), at most
 * SETTLED_MS (a modification time ahead of the clock).
 */
export function untilSettled(mtimeMs: number, now: number): number {
  return Math.min(SETTLED_MS, Math.max(0, SETTLED_MS - (now - mtimeMs)));
}

export interface LiveStatus {
  text: string;
  tooltip: string;
  /** The item's accessible name: plain words, the session named (no markup). */
  accessibilityLabel: string;
  level: 'normal' | 'warning' | 'alert';
  /**
   * What the Compact Now notification says: the session, its context once, and where its agent compacts on its own (the
   * status item beside it already says "live" and the fill).
   */
  offer: string;
  /** What the wait before Compact Now says: the agent's turn must end first. */
  waiting: string;
  /** Of the window; null when the session does not state its window. */
  share: number | null;
}

/** A session's name short enough for the status bar, so two items side by side say which session each is. */
export function statusName(name: string, max = 24): string {
  const one = name.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

const PIE = ['○', '◔', '◑', '◕', '●'];

/** A title on one line, at most 80 characters (a notification names the session, it does not quote it). */
function oneLineTitle(title: string): string {
  return statusName(title, 80);
}

/**
 * The live status of session `s` with its context as the Sessions list shows it (core sessionStats.ts
 * `sessionContext`: the one context figure, and the limits the session shows: its own auto-compactions, the window its
 * agent recorded), so the item, the row and the Context Map say the same figure and the same threshold. Levels are
 * shares of that threshold: yellow from WARN_AT of it, red from ALERT_AT.
 */
export function liveStatus(s: SessionSummary & { agent: AgentId }, context: SessionContext): LiveStatus | null {
  const tokens = context.tokens;
  if (tokens === null) return null;
  const limits = context.limits;
  // The window the session states (its agent's rules, what it recorded): the one the row and the Context Map use. An
  // agent that does not say its window gets no fill, not another agent's.
  const window = limits.window;
  const share = window ? tokens / window : null;
  const toThreshold = limits.autoCompactAt !== null ? tokens / limits.autoCompactAt : (share ?? 0);
  const pie = share === null ? PIE[0] : PIE[Math.max(0, Math.min(4, Math.round(share * 4)))];
  const level = toThreshold >= ALERT_AT ? 'alert' : toThreshold >= WARN_AT ? 'warning' : 'normal';
  const name = statusName(s.title);
  const about = context.approximate ? '≈' : '';
  const fill =
    window && share !== null
      ? `${about}${shortNumber(tokens)} / ${shortNumber(window)} · ${Math.round(share * 100)}%`
      : `${about}${shortNumber(tokens)}`;
  const count = (n: number) => n.toLocaleString('en-US');
  const of = window ? `of ${count(window)} tokens` : `tokens of an unknown window (${limits.windowFrom})`;
  const agent = agentName(s.agent);
  const near =
    limits.autoCompactAt !== null
      ? `near where ${agent} compacts it on its own (≈${shortNumber(limits.autoCompactAt)})`
      : `and ${agent} may compact it on its own`;
  return {
    text: `${pie} live: ${name} ${fill}`,
    offer: `“${oneLineTitle(s.title)}” holds ${about}${count(tokens)} tokens${window && share !== null ? ` (${Math.round(share * 100)}% of its ${shortNumber(window)} window)` : ''}, ${near}, unseen. Compact it now with a preview (as a fork), then resume?`,
    waiting: `Waiting for ${agent} to finish its turn (nothing is written while the session grows)…`,
    tooltip: `Live session: ${s.title}\n${context.model ?? 'unknown model'}: context ${about}${count(tokens)} ${of} (the newest request and what followed it).\n${agentName(s.agent)} ${autoCompactText(limits)}.\nClick to show its rounds.`,
    accessibilityLabel: `Live session ${name}: context ${context.approximate ? 'about ' : ''}${count(tokens)} ${window ? `of ${count(window)} tokens, ${Math.round(share! * 100)} percent` : 'tokens, window unknown'}`,
    level,
    share,
  };
}
