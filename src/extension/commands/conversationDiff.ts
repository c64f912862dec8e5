// Show Conversation Diff: the conversation the agent would resume before and after the last compaction (or any two
// transcripts given as { before, after }), readable, in the diff editor. The raw-line diff stays on Show Diff.
import * as vscode from 'vscode';
import { basename } from 'node:path';
import { conversationUri } from '../views/conversation';
import type { Services } from '../services';
import { CommandInputError, isProgrammatic, options } from './args';

export async function showConversationDiffCommand(
  s: Services,
  arg?: unknown,
): Promise<{ before: string; after: string } | undefined> {
  const o = options<{ before: string; after: string }>(arg);
  const result = s.store.lastResult;
  const before = o.before ?? (result ? (result.backup ?? result.plan.file) : undefined);
  const after = o.after ?? result?.output;
  if (!before || !after) {
    if (isProgrammatic(arg))
      throw new CommandInputError('showConversationDiff: no compaction was run in this window; give { before, after }');
    void vscode.window.showInformationMessage(
      'Run a compaction first: the conversation diff compares the session before and after it.',
    );
    return undefined;
  }
  const left = conversationUri(before, 'before');
  const right = conversationUri(after, 'after');
  await vscode.commands.executeCommand(
    'vscode.diff',
    left,
    right,
    `Conversation: ${basename(before)} ↔ ${basename(after)}`,
  );
  return { before: left.toString(), after: right.toString() };
}
