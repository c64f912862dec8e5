// Every command the extension registers, by one name each: registrations (commands/index.ts) and every call, tree
// item or status item that runs one use this table, and test/unit/command-ids.test.ts holds it against package.json's
// `contributes.commands` (both ways) and against any command id written as a bare string elsewhere in src.
export const CommandId = {
  compact: 'agentCompactor.compact',
  preview: 'agentCompactor.preview',
  clearPreview: 'agentCompactor.clearPreview',
  openBudget: 'agentCompactor.openBudget',
  openContextMap: 'agentCompactor.openContextMap',
  refresh: 'agentCompactor.refresh',
  setApiKey: 'agentCompactor.setApiKey',
  clearApiKey: 'agentCompactor.clearApiKey',
  restoreBackup: 'agentCompactor.restoreBackup',
  revealRound: 'agentCompactor.revealRound',
  openTranscript: 'agentCompactor.openTranscript',
  showRounds: 'agentCompactor.showRounds',
  openSessionsFolder: 'agentCompactor.openSessionsFolder',
  showLog: 'agentCompactor.showLog',
  resumeInClaudeCode: 'agentCompactor.resumeInClaudeCode',
  copyResumeCommand: 'agentCompactor.copyResumeCommand',
  keepRound: 'agentCompactor.keepRound',
  dropRound: 'agentCompactor.dropRound',
  summarizeRound: 'agentCompactor.summarizeRound',
  autoRound: 'agentCompactor.autoRound',
  summarizeUpTo: 'agentCompactor.summarizeUpTo',
  keepFrom: 'agentCompactor.keepFrom',
  chooseToolResult: 'agentCompactor.chooseToolResult',
  clearDecisions: 'agentCompactor.clearDecisions',
  reviewSummary: 'agentCompactor.reviewSummary',
  applySummary: 'agentCompactor.applySummary',
  discardSummary: 'agentCompactor.discardSummary',
  undoLastCompaction: 'agentCompactor.undoLastCompaction',
  showConversationDiff: 'agentCompactor.showConversationDiff',
  repairSession: 'agentCompactor.repairSession',
  filterSessions: 'agentCompactor.filterSessions',
  refreshSessions: 'agentCompactor.refreshSessions',
} as const;

export type CommandId = (typeof CommandId)[keyof typeof CommandId];
