// Show Conversation Diff: the conversation the agent would resume before and after the last compaction (or any two
// transcripts given as { before, after }), readable, in the diff editor; the result notification's Show Diff opens it.
import * as vscode from 'vscode';
import { basename } from 'node:path';
import { conversationUri } from '../views/conversation';
import { openReadable } from '../views/roundDocuments';
import type { Services } from '../services';
import { options, str } from '../../webview/validate';
import { CommandInputError, optionsOf } from './call';

/** `{ before, after }`: the two transcripts to compare (default: the last compaction's input and result). */
export const CONVERSATION_DIFF_OPTIONS = options({ before: str(4_096, { min: 1 }), after: str(4_096, { min: 1 }) });

/**
 * Opens the readable diff of `before` and `after` in the first editor group (the widest as a rule, where the diff
 * editor has room to show the two sides side by side); the two documents' URIs.
 */
export async function showConversationDiff(before: string, after: string): Promise<{ before: string; after: string }> {
  const left = conversationUri(before, 'before');
  const right = conversationUri(after, 'after');
  // In the readable language first (word wrap): the diff editor shows the documents as they are open.
  await Promise.all([openReadable(left), openReadable(right)]);
  await vscode.commands.executeCommand(
    'vscode.diff',
    left,
    right,
    `Conversation: ${basename(before)} ↔ ${basename(after)}`,
    { viewColumn: vscode.ViewColumn.One, preview: false },
  );
  return { before: left.toString(), after: right.toString() };
}

export async function showConversationDiffCommand(
  s: Services,
  arg: unknown,
): Promise<{ before: string; after: string }> {
  const o = optionsOf(CONVERSATION_DIFF_OPTIONS, 'Show Conversation Diff', arg);
  const result = s.store.lastResult;
  const before = o.before ?? (result ? (result.backup ?? result.plan.file) : undefined);
  const after = o.after ?? result?.output;
  if (!before || !after)
    throw new CommandInputError(
      'Run a compaction first: the conversation diff compares the session before and after it.',
      { severity: 'info' },
    );
  return showConversationDiff(before, after);
}
