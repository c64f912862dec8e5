// The live session's status bar text as plain data: context fill against the model's window, and how close it is to
// the agent's auto-compaction (core/limits.ts, the same threshold the Context Map draws). Pure: no `vscode` import.
import type { SessionSummary } from '../../core/sessionList';
import type { SessionContext } from '../../core/sessionStats';
import { autoCompactText, claudeWindowOf } from '../../core/limits';
import { shortNumber } from './format';
import { agentName, type AgentId } from '../../core/formats/registry';

/**
 * Shares of the auto-compaction threshold from which the item turns yellow, then red, and the notification is offered
 * (with Claude Code's 167k of 200k: from ~134k and ~153k).
 */
export const WARN_AT = 0.8;
export const ALERT_AT = 0.92;

export interface LiveStatus {
  text: string;
  tooltip: string;
  /** The item's accessible name: plain words, the session named (no markup). */
  accessibilityLabel: string;
  level: 'normal' | 'warning' | 'alert';
  share: number;
}

/** A session's name short enough for the status bar, so two items side by side say which session each is. */
export function statusName(name: string, max = 24): string {
  const one = name.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

const PIE = ['○', '◔', '◑', '◕', '●'];

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
  const window = limits.window ?? claudeWindowOf(context.model);
  const share = tokens / window;
  const toThreshold = limits.autoCompactAt !== null ? tokens / limits.autoCompactAt : share;
  const pie = PIE[Math.max(0, Math.min(4, Math.round(share * 4)))];
  const level = toThreshold >= ALERT_AT ? 'alert' : toThreshold >= WARN_AT ? 'warning' : 'normal';
  const name = statusName(s.title);
  const about = context.approximate ? '≈' : '';
  const fill = `${about}${shortNumber(tokens)} / ${shortNumber(window)} · ${Math.round(share * 100)}%`;
  const count = (n: number) => n.toLocaleString('en-US');
  return {
    text: `${pie} live: ${name} ${fill}`,
    tooltip: `Live session: ${s.title}\n${context.model ?? 'unknown model'}: context ${about}${count(tokens)} of ${count(window)} tokens (the newest request and what followed it).\n${agentName(s.agent)} ${autoCompactText(limits)}.\nClick to show its rounds.`,
    accessibilityLabel: `Live session ${name}: context ${context.approximate ? 'about ' : ''}${count(tokens)} of ${count(window)} tokens, ${Math.round(share * 100)} percent`,
    level,
    share,
  };
}
