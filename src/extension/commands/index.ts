// Registers every command. Each returns a value, so host tests can drive them with
// `vscode.commands.executeCommand(id, { ...options })`.
import * as vscode from 'vscode';
import type { Services } from '../services';
import { clearApiKeyCommand } from './clearApiKey';
import { clearPreviewCommand } from './clearPreview';
import { applySummaryCommand, compactCommand } from './compact';
import { openBudgetCommand } from './openBudget';
import { openContextMapCommand } from './openContextMap';
import { openSessionsFolderCommand } from './openSessionsFolder';
import { openTranscriptCommand } from './openTranscript';
import { previewCommand } from './preview';
import { refreshCommand } from './refresh';
import { repairSessionCommand } from './repairSession';
import { filterSessionsCommand, refreshSessionsCommand } from './sessions';
import { restoreBackupCommand } from './restoreBackup';
import { copyResumeCommandCommand, resumeInClaudeCodeCommand } from './resume';
import { revealRound } from './reveal';
import { setApiKeyCommand } from './setApiKey';
import { showLogCommand } from './showLog';
import { autoRoundCommand, chooseResultCommand, clearDecisionsCommand, dropRoundCommand, keepFromCommand, keepRoundCommand, summarizeRoundCommand, summarizeUpToCommand } from './steer';
import { discardSummaryCommand, reviewSummaryCommand } from './review';
import { undoLastCompactionCommand } from './undo';
import { showConversationDiffCommand } from './conversationDiff';

export const COMMANDS: Record<string, (s: Services, arg?: unknown, selected?: unknown) => unknown> = {
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
  'agentCompactor.keepRound': keepRoundCommand,
  'agentCompactor.dropRound': dropRoundCommand,
  'agentCompactor.summarizeRound': summarizeRoundCommand,
  'agentCompactor.autoRound': autoRoundCommand,
  'agentCompactor.summarizeUpTo': summarizeUpToCommand,
  'agentCompactor.keepFrom': keepFromCommand,
  'agentCompactor.chooseToolResult': chooseResultCommand,
  'agentCompactor.clearDecisions': clearDecisionsCommand,
  'agentCompactor.reviewSummary': reviewSummaryCommand,
  'agentCompactor.applySummary': applySummaryCommand,
  'agentCompactor.discardSummary': discardSummaryCommand,
  'agentCompactor.undoLastCompaction': undoLastCompactionCommand,
  'agentCompactor.showConversationDiff': showConversationDiffCommand,
  'agentCompactor.repairSession': repairSessionCommand,
  'agentCompactor.filterSessions': filterSessionsCommand,
  'agentCompactor.refreshSessions': refreshSessionsCommand,
};

export function registerCommands(s: Services): vscode.Disposable[] {
  return Object.entries(COMMANDS).map(([id, handler]) =>
    // A tree item's command gets the clicked node and, with several selected, all of them.
    vscode.commands.registerCommand(id, async (arg?: unknown, selected?: unknown) => {
      try {
        return await handler(s, arg, selected);
      } catch (err) {
        s.log.error(`${id} failed`, err);
        throw err;
      }
    }),
  );
}
