// The one function that sets the extension's context keys (contextKeys.ts is their table).
import * as vscode from 'vscode';
import type { ContextKey } from './contextKeys';

/** Sets a context key of the table (VS Code keeps it for the window); resolves once VS Code has it. */
export async function setContext(key: ContextKey, value: boolean | string | string[]): Promise<void> {
  await vscode.commands.executeCommand('setContext', key, value);
}
