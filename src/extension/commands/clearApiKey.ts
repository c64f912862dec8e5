// Clear API Key: removes the Anthropic key from SecretStorage.
import * as vscode from 'vscode';
import type { Services } from '../services';

/** Whether a key was stored (and is now removed). */
export async function clearApiKey(s: Services): Promise<boolean> {
  return s.secrets.clearApiKey();
}

export async function clearApiKeyCommand(s: Services): Promise<boolean> {
  const had = await clearApiKey(s);
  void vscode.window.showInformationMessage(had ? 'Anthropic API key removed.' : 'No Anthropic API key was stored.');
  return had;
}
