// Filter Sessions and Refresh Sessions (the Sessions view's title actions).
import * as vscode from 'vscode';
import type { Services } from '../services';
import { options, str } from '../../webview/validate';
import { optionsOf, type Call } from './call';

/** `{ text }`: the filter to set (empty: show all), instead of asking for it. */
export const FILTER_SESSIONS_OPTIONS = options({ text: str(1_000) });

/** Sets the Sessions view's filter; returns it as set (trimmed). */
export function filterSessions(s: Services, text: string): string {
  s.sessions.setFilter(text.trim());
  return text.trim();
}

export async function filterSessionsCommand(s: Services, arg: unknown, call: Call): Promise<string | undefined> {
  const given = optionsOf(FILTER_SESSIONS_OPTIONS, 'Filter Sessions', arg).text;
  const text =
    given ??
    (await call.ui.ask(
      () =>
        vscode.window.showInputBox({
          title: 'Filter Sessions',
          prompt: 'Text in the title, project path, session id or model (empty: show all)',
          value: s.sessions.filter,
        }),
      () => undefined,
    ));
  return text === undefined ? undefined : filterSessions(s, text);
}

/** Scans every agent's sessions folder again; returns how many sessions are listed. */
export async function refreshSessionsCommand(s: Services): Promise<number> {
  await s.sessions.rescan(true);
  return s.sessions.all.length;
}
