// Reads `agentCompactor.*` configuration into engine settings (see model/settings.ts).
import * as vscode from 'vscode';
import { readSettings, type ExtensionSettings } from './model/settings';

export const SECTION = 'agentCompactor';

export function getSettings(scope?: vscode.Uri): ExtensionSettings {
  const config = vscode.workspace.getConfiguration(SECTION, scope);
  return readSettings((key) => config.get(key));
}

export function onSettingsChanged(listener: (e: vscode.ConfigurationChangeEvent) => void): vscode.Disposable {
  return vscode.workspace.onDidChangeConfiguration((e) => {
    if (e.affectsConfiguration(SECTION)) listener(e);
  });
}
