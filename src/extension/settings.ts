// Reads `agentCompactor.*` configuration into engine settings (see model/settings.ts).
import * as vscode from 'vscode';
import { readSettings, userScopedValue, USER_ONLY_SETTINGS, type ExtensionSettings } from './model/settings';
import { priceTableFromSetting } from './model/mapState';
import type { PriceTable } from '../core/cost';

export const SECTION = 'agentCompactor';

export function getSettings(scope?: vscode.Uri): ExtensionSettings {
  const config = vscode.workspace.getConfiguration(SECTION, scope);
  // Where content, the API key and commands go is the user's choice only: a workspace value of those keys is ignored.
  return readSettings((key) =>
    USER_ONLY_SETTINGS.includes(key) ? userScopedValue(config.inspect(key)) : config.get(key),
  );
}

/** The price table of the `prices` setting, the user's only (a workspace value is ignored); a bad one is reported and ignored. */
export function getPrices(scope?: vscode.Uri): { table: PriceTable; error?: string } {
  return priceTableFromSetting(userScopedValue(vscode.workspace.getConfiguration(SECTION, scope).inspect('prices')));
}

export function onSettingsChanged(listener: (e: vscode.ConfigurationChangeEvent) => void): vscode.Disposable {
  return vscode.workspace.onDidChangeConfiguration((e) => {
    if (e.affectsConfiguration(SECTION)) listener(e);
  });
}
