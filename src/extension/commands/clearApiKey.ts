// Clear API Key: removes the Anthropic key from SecretStorage.
import * as vscode from 'vscode';
import type { Services } from '../services';
import { isProgrammatic } from './args';

export async function clearApiKeyCommand(s: Services, arg?: unknown): Promise<boolean> {
  const had = await s.secrets.clearApiKey();
  if (!isProgrammatic(arg))
    void vscode.window.showInformationMessage(had ? 'Anthropic API key removed.' : 'No Anthropic API key was stored.');
  return had;
}
