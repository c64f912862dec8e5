// Set Anthropic API Key: stored in SecretStorage only (never in settings or logs).
import * as vscode from 'vscode';
import type { Services } from '../services';
import { options } from './args';

export async function setApiKeyCommand(s: Services, arg?: unknown): Promise<boolean> {
  let key = typeof arg === 'string' ? arg : options<{ apiKey: string }>(arg).apiKey;
  if (key === undefined) {
    key = await vscode.window.showInputBox({
      title: 'Anthropic API Key',
      prompt: 'Used only to write compaction summaries; kept in VS Code secret storage, never in settings or logs.',
      placeHolder: 'sk-ant-…',
      password: true,
      ignoreFocusOut: true,
      validateInput: (v) => (v.trim() === '' ? 'Enter a key' : /\s/.test(v.trim()) ? 'A key has no spaces' : undefined),
    });
  }
  if (!key || !key.trim()) return false;
  await s.secrets.setApiKey(key);
  if (typeof arg !== 'string' && options<{ apiKey: string }>(arg).apiKey === undefined) {
    void vscode.window.showInformationMessage('Anthropic API key saved in secret storage.');
  }
  return true;
}
