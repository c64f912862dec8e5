// Every context key the extension sets, by one name each (setContext.ts is the one function that sets them).
// package.json's `when` and `enablement` clauses read them; test/unit/context-keys.test.ts holds this table against
// those clauses (every key a clause reads is here and set somewhere, every key here is read by a clause) and against
// any key written as a bare string elsewhere in src.

export const ContextKey = {
  /** A transcript is shown and read (the views, the status bar). */
  hasTranscript: 'agentCompactor.hasTranscript',
  /** The shown transcript is being read. */
  loading: 'agentCompactor.loading',
  /** A compaction plan of the shown transcript is previewed. */
  hasPlan: 'agentCompactor.hasPlan',
  /** The shown transcript's agent can be compacted (a format we write). */
  canCompact: 'agentCompactor.canCompact',
  /** The shown transcript's agent can resume it by id (Resume Session, Copy Resume Command). */
  canResume: 'agentCompactor.canResume',
  /** The shown transcript has a problem Repair Session can fix. */
  canRepair: 'agentCompactor.canRepair',
  /** The active editor (or tab) is a transcript. */
  activeEditorIsTranscript: 'agentCompactor.activeEditorIsTranscript',
  /** The shown transcript has a backup Restore From Backup can put back. */
  currentHasBackup: 'agentCompactor.currentHasBackup',
  /** The transcripts (paths) with backups, for the Explorer's menu. */
  filesWithBackups: 'agentCompactor.filesWithBackups',
  /** An Anthropic API key is stored. */
  hasApiKey: 'agentCompactor.hasApiKey',
  /** The active editor is a summary under review (its title shows Apply and Discard). */
  reviewingSummary: 'agentCompactor.reviewingSummary',
} as const;

export type ContextKey = (typeof ContextKey)[keyof typeof ContextKey];
