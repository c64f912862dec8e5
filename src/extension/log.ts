// The extension's LogOutputChannel. Everything logged goes through `redact`, so an API key
// can never reach the log even if an error message happens to quote it.
import * as vscode from 'vscode';
import { redact } from './model/redact';

export class Log implements vscode.Disposable {
  readonly channel: vscode.LogOutputChannel;
  private secrets: string[] = [];

  constructor() {
    this.channel = vscode.window.createOutputChannel('Agent Compactor', { log: true });
  }

  /** Values to scrub from every message (the stored API key). */
  setSecrets(values: (string | undefined)[]): void {
    this.secrets = values.filter((v): v is string => !!v);
  }

  private clean(message: string): string {
    return redact(message, this.secrets);
  }

  info(message: string): void {
    this.channel.info(this.clean(message));
  }

  warn(message: string): void {
    this.channel.warn(this.clean(message));
  }

  debug(message: string): void {
    this.channel.debug(this.clean(message));
  }

  error(message: string, error?: unknown): void {
    let text = message;
    if (error !== undefined) {
      const e = error as { stack?: string; message?: string; code?: string };
      text += `: ${e?.code ? `[${e.code}] ` : ''}${e?.stack ?? e?.message ?? describe(error)}`;
    }
    this.channel.error(this.clean(text));
  }

  show(): void {
    this.channel.show(true);
  }

  dispose(): void {
    this.channel.dispose();
  }
}

/** A thrown value that is not an Error: objects as JSON (not `[object Object]`), anything else as String() gives it. */
function describe(value: unknown): string {
  if (typeof value === 'object' && value !== null) {
    try {
      return JSON.stringify(value) ?? Object.prototype.toString.call(value);
    } catch {
      return Object.prototype.toString.call(value); // circular or otherwise unserializable
    }
  }
  return String(value);
}
