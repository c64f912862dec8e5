// Reads `agentCompactor.*` configuration into engine settings (see model/settings.ts).
import * as vscode from 'vscode';
import { readSettings, userScopedValue, USER_ONLY_SETTINGS, type ExtensionSettings } from './model/settings';
import { priceTableFromSetting } from './model/mapState';
import type { PriceTable } from '../core/cost';
import { DEFAULT_SETTINGS } from '../core/compactSettings';
import type { SummarizerPricing } from '../core/compact/summarizerCost';

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

/**
 * What every surface prices a plan with: the `agentCompactor.prices` table and the summarizer a compaction would run
 * (the `summarizer` and `model` settings), so the plan line, the Context Map, the status bar and the confirmation
 * say the same figures.
 */
export function costSettings(file: string): {
  prices: PriceTable;
  summarizer: SummarizerPricing;
  /** The user's target (agentCompactor.targetTokens), what a list that does not plan estimates "compacted first" at. */
  targetTokens: number;
} {
  const uri = vscode.Uri.file(file);
  const prices = getPrices(uri).table;
  const config = getSettings(uri);
  return {
    prices,
    summarizer: { summarizer: config.summarizer, model: config.model },
    targetTokens: config.compact.targetTokens ?? DEFAULT_SETTINGS.targetTokens,
  };
}
