// The Anthropic API key lives in SecretStorage only: never in settings, never logged.
import * as vscode from 'vscode';
import { ContextKey } from './contextKeys';
import { setContext } from './setContext';
import type { Log } from './log';

const KEY = 'agentCompactor.anthropicApiKey';

export class Secrets implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  private cached: string | undefined;

  constructor(
    private readonly storage: vscode.SecretStorage,
    private readonly log: Log,
  ) {
    this.disposables.push(
      storage.onDidChange((e) => {
        if (e.key === KEY) void this.sync();
      }),
    );
    void this.sync();
  }

  private async sync(): Promise<void> {
    try {
      this.cached = (await this.storage.get(KEY)) || undefined;
    } catch (err) {
      this.log.error('Could not read the API key from secret storage', err);
      this.cached = undefined;
    }
    this.log.setSecrets([this.cached]);
    await setContext(ContextKey.hasApiKey, !!this.cached);
  }

  async getApiKey(): Promise<string | undefined> {
    await this.sync();
    return this.cached;
  }

  async setApiKey(key: string): Promise<void> {
    await this.storage.store(KEY, key.trim());
    await this.sync();
    this.log.info('Anthropic API key stored in secret storage');
  }

  async clearApiKey(): Promise<boolean> {
    const had = !!(await this.getApiKey());
    await this.storage.delete(KEY);
    await this.sync();
    this.log.info(had ? 'Anthropic API key removed from secret storage' : 'No Anthropic API key was stored');
    return had;
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
