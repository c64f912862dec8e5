// Registers every command. Each returns a value, so host tests can drive them with
// `vscode.commands.executeCommand(id, { ...options })`; each runs through call.ts `runCommand`, the one place that
// tells a call from code (it gets the rejection) from a person's (who is told what stopped it).
import * as vscode from 'vscode';
import type { Services } from '../services';
import { runCommand, type Command } from './call';
import { CommandId } from '../commandIds';
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
import { forkBeforeCompactionCommand } from './forkBefore';
import { filterSessionsCommand, refreshSessionsCommand } from './sessions';
import { openOriginalSessionCommand, revealSessionFileCommand } from './sessionActions';
import { restoreBackupCommand } from './restoreBackup';
import { copyResumeCommandCommand, resumeSessionCommand } from './resume';
import { revealRoundCommand } from './reveal';
import { setApiKeyCommand } from './setApiKey';
import { showLogCommand } from './showLog';
import {
  autoRoundCommand,
  chooseResultCommand,
  clearDecisionsCommand,
  dropRoundCommand,
  keepFromCommand,
  keepRoundCommand,
  summarizeRoundCommand,
  summarizeUpToCommand,
} from './steer';
import { addSummaryFactCommand, discardSummaryCommand, reviewSummaryCommand } from './review';
import { undoLastCompactionCommand } from './undo';
import { showConversationDiffCommand } from './conversationDiff';

export const COMMANDS: Record<CommandId, Command> = {
  [CommandId.compact]: compactCommand,
  [CommandId.preview]: previewCommand,
  [CommandId.clearPreview]: clearPreviewCommand,
  [CommandId.openBudget]: openBudgetCommand,
  [CommandId.openContextMap]: openContextMapCommand,
  [CommandId.refresh]: refreshCommand,
  [CommandId.setApiKey]: setApiKeyCommand,
  [CommandId.clearApiKey]: clearApiKeyCommand,
  [CommandId.restoreBackup]: restoreBackupCommand,
  [CommandId.revealRound]: revealRoundCommand,
  [CommandId.openTranscript]: openTranscriptCommand,
  [CommandId.showRounds]: openTranscriptCommand,
  [CommandId.openSessionsFolder]: openSessionsFolderCommand,
  [CommandId.showLog]: showLogCommand,
  [CommandId.resumeSession]: resumeSessionCommand,
  [CommandId.copyResumeCommand]: copyResumeCommandCommand,
  [CommandId.keepRound]: keepRoundCommand,
  [CommandId.dropRound]: dropRoundCommand,
  [CommandId.summarizeRound]: summarizeRoundCommand,
  [CommandId.autoRound]: autoRoundCommand,
  [CommandId.summarizeUpTo]: summarizeUpToCommand,
  [CommandId.keepFrom]: keepFromCommand,
  [CommandId.chooseToolResult]: chooseResultCommand,
  [CommandId.clearDecisions]: clearDecisionsCommand,
  [CommandId.reviewSummary]: reviewSummaryCommand,
  [CommandId.applySummary]: applySummaryCommand,
  [CommandId.discardSummary]: discardSummaryCommand,
  [CommandId.addSummaryFact]: addSummaryFactCommand,
  [CommandId.undoLastCompaction]: undoLastCompactionCommand,
  [CommandId.showConversationDiff]: showConversationDiffCommand,
  [CommandId.repairSession]: repairSessionCommand,
  [CommandId.forkBeforeCompaction]: forkBeforeCompactionCommand,
  [CommandId.filterSessions]: filterSessionsCommand,
  [CommandId.refreshSessions]: refreshSessionsCommand,
  [CommandId.revealSessionFile]: revealSessionFileCommand,
  [CommandId.openOriginalSession]: openOriginalSessionCommand,
};

export function registerCommands(s: Services): vscode.Disposable[] {
  return Object.entries(COMMANDS).map(([id, handler]) =>
    // A tree item's command gets the clicked node and, with several selected, all of them.
    vscode.commands.registerCommand(id, (arg?: unknown, selected?: unknown) =>
      runCommand(s, id, handler, arg, selected),
    ),
  );
}
