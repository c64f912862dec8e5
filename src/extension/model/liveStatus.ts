// The live session's status bar text as plain data: context fill against the model's window, and how close it is to
// Claude Code's auto-compaction. Pure: no `vscode` import.
import { AUTO_COMPACT_SHARE, type SessionSummary } from '../../core/sessionList';
import { shortNumber } from './format';

/** Fill (share of the window) from which the item turns yellow, then red, and the notification is offered. */
export const WARN_SHARE = AUTO_COMPACT_SHARE - 0.17;
export const ALERT_SHARE = AUTO_COMPACT_SHARE - 0.07;

export interface LiveStatus {
  text: string;
  tooltip: string;
  level: 'normal' | 'warning' | 'alert';
  share: number;
}

const PIE = ['○', '◔', '◑', '◕', '●'];

export function liveStatus(s: SessionSummary): LiveStatus | null {
  if (s.contextTokens === null) return null;
  const share = s.contextTokens / s.contextWindow;
  const pie = PIE[Math.max(0, Math.min(4, Math.round(share * 4)))];
  const level = share >= ALERT_SHARE ? 'alert' : share >= WARN_SHARE ? 'warning' : 'normal';
  return {
    text: `${pie} ${shortNumber(s.contextTokens)} / ${shortNumber(s.contextWindow)} · ${Math.round(share * 100)}%`,
    tooltip: `${s.title}\n${s.model ?? 'unknown model'}: ${s.contextTokens.toLocaleString('en-US')} of ${s.contextWindow.toLocaleString('en-US')} tokens in the newest request.\nClaude Code auto-compacts near ${Math.round(AUTO_COMPACT_SHARE * 100)}%.\nClick to show its rounds.`,
    level,
    share,
  };
}
