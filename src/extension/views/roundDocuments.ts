// Read-only documents of one round's lines, for transcripts VS Code will not open in an editor (over 50 MB, the
// limit for files synchronised with extensions): Reveal Round shows the round's own lines instead of failing late.
// And a round's readable form (core/compact/readable.ts), for links that would otherwise open one JSON line of tens
// of thousands of characters.
import * as vscode from 'vscode';
import { basename } from 'node:path';
import { readRoundLines } from '../../core/roundLines';
import { readableRound } from '../../core/compact/readable';
import type { TranscriptStore } from '../store';

export const ROUND_SCHEME = 'agent-compactor-round';

/** Above this size VS Code refuses to give an editor's text to extensions. */
export const EDITOR_LIMIT = 50 * 1024 * 1024;

export function roundDocumentUri(file: string, round: number): vscode.Uri {
  return vscode.Uri.from({
    scheme: ROUND_SCHEME,
    path: `/${basename(file)} · round ${round}.jsonl`,
    query: new URLSearchParams({ file, round: String(round) }).toString(),
  });
}

/** The round's readable form (each line's role and text, tool calls and results). */
export function readableRoundUri(file: string, round: number): vscode.Uri {
  return vscode.Uri.from({
    scheme: ROUND_SCHEME,
    path: `/${basename(file)} · round ${round} (readable).txt`,
    query: new URLSearchParams({ file, round: String(round), view: 'readable' }).toString(),
  });
}

/**
 * The language of the readable documents (a round's, a conversation's before and after): package.json gives it word
 * wrap, since their lines are paragraphs of a conversation, and the editors beside a map are narrow.
 */
export const READABLE_LANGUAGE = 'agent-compactor-readable';

/** Opens a readable document in its language. */
export async function openReadable(uri: vscode.Uri): Promise<vscode.TextDocument> {
  const doc = await vscode.workspace.openTextDocument(uri);
  return doc.languageId === READABLE_LANGUAGE ? doc : vscode.languages.setTextDocumentLanguage(doc, READABLE_LANGUAGE);
}

export function registerRoundDocuments(store: TranscriptStore): vscode.Disposable {
  return vscode.workspace.registerTextDocumentContentProvider(ROUND_SCHEME, {
    provideTextDocumentContent: async (uri) => {
      const q = new URLSearchParams(uri.query);
      const file = q.get('file') ?? '';
      const round = Number(q.get('round'));
      const analysis = store.file === file ? store.analysis : undefined;
      if (!analysis || !Number.isInteger(round))
        return `${basename(file)} is not the transcript shown in Agent Compactor; open it there first.`;
      if (q.get('view') === 'readable') return readableRound(analysis, round);
      const lines = await readRoundLines(analysis, round);
      const header = `// ${basename(file)}, round #${round}: lines ${lines[0]?.line ?? '?'}–${lines[lines.length - 1]?.line ?? '?'} of ${analysis.index.lineCount.toLocaleString('en-US')} (read-only; the file is too large for an editor)`;
      return [header, ...lines.map((l) => `// line ${l.line}\n${l.text}`)].join('\n');
    },
  });
}
