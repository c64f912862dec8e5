// The live session's status bar text as plain data: context fill against the model's window, and how close it is to
// the agent's auto-compaction (core/limits.ts, the same threshold the Context Map draws). Pure: no `vscode` import.
import type { SessionSummary } from '../../core/sessionList';
import { autoCompactShare, autoCompactText, contextLimits } from '../../core/limits';
import { shortNumber } from './format';
import { agentName, type AgentId } from '../../core/formats/registry';

/** Below the auto-compaction threshold (a share of the window) the item turns yellow, then red, and the notification is offered. */
export const WARN_BELOW = 0.17;
export const ALERT_BELOW = 0.07;

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

/** The status of a session of `s.agent` (its window and threshold by its module's limits). */
export function liveStatus(s: SessionSummary & { agent: AgentId }): LiveStatus | null {
  if (s.contextTokens === null) return null;
  const share = s.contextTokens / s.contextWindow;
  const limits = contextLimits({ format: s.agent, model: s.model, recordedWindow: null, autoCompactions: [] });
  const threshold = autoCompactShare(limits) ?? 1;
  const pie = PIE[Math.max(0, Math.min(4, Math.round(share * 4)))];
  const level = share >= threshold - ALERT_BELOW ? 'alert' : share >= threshold - WARN_BELOW ? 'warning' : 'normal';
  const name = statusName(s.title);
  const fill = `${shortNumber(s.contextTokens)} / ${shortNumber(s.contextWindow)} · ${Math.round(share * 100)}%`;
  return {
    text: `${pie} live: ${name} ${fill}`,
    tooltip: `Live session: ${s.title}\n${s.model ?? 'unknown model'}: ${s.contextTokens.toLocaleString('en-US')} of ${s.contextWindow.toLocaleString('en-US')} tokens in the newest request.\n${agentName(s.agent)} ${autoCompactText(limits)}.\nClick to show its rounds.`,
    accessibilityLabel: `Live session ${name}: context ${s.contextTokens.toLocaleString('en-US')} of ${s.contextWindow.toLocaleString('en-US')} tokens, ${Math.round(share * 100)} percent`,
    level,
    share,
  };
}
