// Read-only virtual documents holding the conversation an agent resumes from a transcript (core/compact/readable.ts),
// so VS Code's diff editor can show a compaction before and after in words instead of JSON lines.
//   agent-compactor-conversation:/<name> (<side>).txt?<transcript path, URI-encoded>
import * as vscode from 'vscode';
import { basename } from 'node:path';
import { readableConversation } from '../../core/compact/readable';

export const CONVERSATION_SCHEME = 'agent-compactor-conversation';

export function conversationUri(file: string, side: string): vscode.Uri {
  return vscode.Uri.from({
    scheme: CONVERSATION_SCHEME,
    path: `/${basename(file)} (${side}).txt`,
    query: encodeURIComponent(file),
  });
}

export function registerConversationDocuments(): vscode.Disposable {
  const provider: vscode.TextDocumentContentProvider = {
    provideTextDocumentContent: (uri) => readableConversation(decodeURIComponent(uri.query)),
  };
  return vscode.workspace.registerTextDocumentContentProvider(CONVERSATION_SCHEME, provider);
}
