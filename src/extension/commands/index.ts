// Registers every command. Each returns a value, so host tests can drive them with
// `vscode.commands.executeCommand(id, { ...options })`.
import * as vscode from 'vscode';
import type { Services } from '../services';
import { clearApiKeyCommand } from './clearApiKey';
import { clearPreviewCommand } from './clearPreview';
import { compactCommand } from './compact';
import { openBudgetCommand } from './openBudget';
import { openContextMapCommand } from './openContextMap';
import { openSessionsFolderCommand } from './openSessionsFolder';
import { openTranscriptCommand } from './openTranscript';
import { previewCommand } from './preview';
import { refreshCommand } from './refresh';
import { restoreBackupCommand } from './restoreBackup';
import { copyResumeCommandCommand, resumeInClaudeCodeCommand } from './resume';
import { revealRound } from './reveal';
import { setApiKeyCommand } from './setApiKey';
import { showLogCommand } from './showLog';

export const COMMANDS: Record<string, (s: Services, arg?: unknown) => unknown> = {
  'agentCompactor.compact': compactCommand,
  'agentCompactor.preview': previewCommand,
  'agentCompactor.clearPreview': clearPreviewCommand,
  'agentCompactor.openBudget': openBudgetCommand,
  'agentCompactor.openContextMap': openContextMapCommand,
  'agentCompactor.refresh': refreshCommand,
  'agentCompactor.setApiKey': setApiKeyCommand,
  'agentCompactor.clearApiKey': clearApiKeyCommand,
  'agentCompactor.restoreBackup': restoreBackupCommand,
  'agentCompactor.revealRound': revealRound,
  'agentCompactor.openTranscript': openTranscriptCommand,
  'agentCompactor.showRounds': openTranscriptCommand,
  'agentCompactor.openSessionsFolder': openSessionsFolderCommand,
  'agentCompactor.showLog': showLogCommand,
  'agentCompactor.resumeInClaudeCode': resumeInClaudeCodeCommand,
  'agentCompactor.copyResumeCommand': copyResumeCommandCommand,
};

export function registerCommands(s: Services): vscode.Disposable[] {
  return Object.entries(COMMANDS).map(([id, handler]) =>
    vscode.commands.registerCommand(id, async (arg?: unknown) => {
      try {
        return await handler(s, arg);
      } catch (err) {
        s.log.error(`${id} failed`, err);
        throw err;
      }
    }),
  );
}
