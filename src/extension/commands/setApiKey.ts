// Set Anthropic API Key: stored in SecretStorage only (never in settings or logs).
import * as vscode from 'vscode';
import type { Services } from '../services';
import { options, str } from '../../webview/validate';
import { optionsOf, type Call } from './call';

/** `{ apiKey }`: the key to store, instead of asking for it. */
export const SET_API_KEY_OPTIONS = options({ apiKey: str(1_000, { min: 1 }) });

/** Stores `key` (false: an empty key, nothing stored). */
export async function setApiKey(s: Services, key: string): Promise<boolean> {
  if (!key.trim()) return false;
  await s.secrets.setApiKey(key);
  return true;
}

export async function setApiKeyCommand(s: Services, arg: unknown, call: Call): Promise<boolean> {
  const given = typeof arg === 'string' ? arg : optionsOf(SET_API_KEY_OPTIONS, 'Set API Key', arg).apiKey;
  const key =
    given ??
    (await call.ui.ask(
      () =>
        vscode.window.showInputBox({
          title: 'Anthropic API Key',
          prompt: 'Used only to write compaction summaries; kept in VS Code secret storage, never in settings or logs.',
          placeHolder: 'sk-ant-…',
          password: true,
          ignoreFocusOut: true,
          validateInput: (v) =>
            v.trim() === '' ? 'Enter a key' : /\s/.test(v.trim()) ? 'A key has no spaces' : undefined,
        }),
      () => undefined,
    ));
  if (!key) return false;
  const stored = await setApiKey(s, key);
  // Said only when the key was typed: a key passed in is the caller's to mention.
  if (stored && given === undefined)
    void vscode.window.showInformationMessage('Anthropic API key saved in secret storage.');
  return stored;
}
