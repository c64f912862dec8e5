// Filter Sessions and Refresh Sessions (the Sessions view's title actions).
import * as vscode from 'vscode';
import type { Services } from '../services';
import { isProgrammatic, options } from './args';

export async function filterSessionsCommand(s: Services, arg?: unknown): Promise<string | undefined> {
  const o = options<{ text: string }>(arg);
  const text =
    isProgrammatic(arg) && typeof o.text === 'string'
      ? o.text
      : await vscode.window.showInputBox({
          title: 'Filter Sessions',
          prompt: 'Text in the title, project path, session id or model (empty: show all)',
          value: s.sessions.filter,
        });
  if (text === undefined) return undefined;
  s.sessions.setFilter(text.trim());
  return text.trim();
}

export async function refreshSessionsCommand(s: Services): Promise<number> {
  await s.sessions.rescan(true);
  return s.sessions.all.length;
}
