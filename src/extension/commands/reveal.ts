// Reveal Round: opens the transcript and selects a round's lines (or one line); or, asked for `readable` (the Context
// Map's links), the round's readable form, since a line's JSON is often one line of tens of thousands of characters.
// Asked to `keepGroup` (the map), it opens in the transcript's own editor group, never over the map.
// `revealInTranscript` is the typed function: the webview panels call it directly; the command takes what VS Code
// gives it (a Rounds tree item's own location, a tree node, a Uri, or nothing: then a round is picked).
import * as vscode from 'vscode';
import { stat } from 'node:fs/promises';
import { EDITOR_LIMIT, openReadable, readableRoundUri, roundDocumentUri } from '../views/roundDocuments';
import { readableLineHeading } from '../../core/compact/readable';
import { basename } from 'node:path';
import { formatNumber } from '../model/format';
import type { Services } from '../services';
import { int, options, str } from '../../webview/validate';
import { fileFromArg, shownTranscript } from './args';
import { CommandInputError, optionsOf } from './call';
import type { RevealHow, RevealTarget } from '../panelActions';

export type { RevealHow, RevealTarget } from '../panelActions';

export interface RevealResult {
  file: string;
  firstLine: number;
  lastLine: number;
  /** Where it was shown: the transcript's editor, or a read-only document of the round's lines (large files). */
  shownIn: 'editor' | 'round-document' | 'readable-round' | 'nowhere';
}

/**
 * Where to open when the active group must stay as it is: the group that shows the transcript already, else another
 * group, else a new one beside.
 */
function columnBesideActive(file: string): vscode.ViewColumn {
  const active = vscode.window.tabGroups.activeTabGroup;
  const others = vscode.window.tabGroups.all.filter((g) => g !== active);
  const holding = others.find((g) =>
    g.tabs.some(
      (t) => t.input instanceof vscode.TabInputText && t.input.uri.scheme === 'file' && t.input.uri.fsPath === file,
    ),
  );
  return (holding ?? others[0])?.viewColumn ?? vscode.ViewColumn.Beside;
}

/** The round or line a Reveal Round invocation names: a tree item's location, a tree node's, a round index. */
function targetOf(arg: unknown): { round?: number; line?: number } {
  if (typeof arg === 'number') return { round: arg };
  if (!arg || typeof arg !== 'object' || arg instanceof vscode.Uri) return {};
  const { round, line } = arg as { round?: unknown; line?: unknown };
  const whole = (n: unknown) => (typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : undefined);
  // A node gives both (its round and the round's first line): the round is what it stands for.
  return whole(round) !== undefined ? { round: whole(round) } : { line: whole(line) };
}

/** `{ file, round | line }`: the round (its index) or the line to show (neither: a person picks a round). */
export const REVEAL_ROUND_OPTIONS = options({ file: str(4_096, { min: 1 }), round: int(), line: int() });

/** Reveal Round (the command): the transcript of the argument, else the shown one, else the active editor's. */
export async function revealRoundCommand(s: Services, arg: unknown): Promise<RevealResult | undefined> {
  optionsOf(REVEAL_ROUND_OPTIONS, 'Reveal Round', arg);
  const file = fileFromArg(arg) ?? shownTranscript(s, undefined);
  if (!file)
    throw new CommandInputError('Open an agent session first (a transcript the Rounds view can show).', {
      severity: 'info',
    });
  return revealInTranscript(s, { file, ...targetOf(arg) });
}

/**
 * Shows `target` as asked (the Reveal Round command, the Budget Preview's and the Context Map's links); undefined when
 * the transcript cannot be read or the user picks no round. Errors are the caller's to show.
 */
export async function revealInTranscript(
  s: Pick<Services, 'store' | 'log'>,
  target: RevealTarget,
  o: RevealHow = {},
): Promise<RevealResult | undefined> {
  const { file } = target;
  let first: number;
  let last: number;
  let roundIndex: number | undefined;
  const viewColumn = o.keepGroup ? columnBesideActive(file) : undefined;
  if (o.readable) {
    if (s.store.file !== file) await s.store.load(file);
    const analysis = s.store.file === file ? s.store.analysis : undefined;
    if (!analysis) return undefined;
    const entries = analysis.index.entries;
    const round =
      typeof target.line === 'number'
        ? analysis.rounds.find((r) => r.entries.some((i) => entries[i].line === target.line))
        : analysis.rounds.find((r) => r.index === target.round);
    if (round) {
      const doc = await openReadable(readableRoundUri(file, round.index));
      const at =
        typeof target.line === 'number'
          ? Math.max(
              0,
              doc
                .getText()
                .split('\n')
                .findIndex((l) => l.startsWith(readableLineHeading(target.line!))),
            )
          : 0;
      const pos = new vscode.Position(at, 0);
      const editor = await vscode.window.showTextDocument(doc, {
        preserveFocus: o.focus !== true,
        preview: true,
        viewColumn,
        selection: new vscode.Range(pos, pos),
      });
      editor.revealRange(new vscode.Range(pos, pos), vscode.TextEditorRevealType.AtTop);
      return { file, firstLine: round.firstLine, lastLine: round.lastLine, shownIn: 'readable-round' };
    }
  }
  if (typeof target.line === 'number') {
    first = last = target.line;
  } else {
    if (s.store.file !== file) await s.store.load(file);
    const analysis = s.store.file === file ? s.store.analysis : undefined;
    if (!analysis) return undefined;
    let index = target.round;
    if (index === undefined) {
      const picked = await vscode.window.showQuickPick(
        analysis.report.rounds.map((r) => ({
          label: `#${r.index} ${r.label}`,
          description: `lines ${r.firstLine}–${r.lastLine} · +${formatNumber(r.tokens.added)} tok (${r.tokens.source})`,
          index: r.index,
        })),
        { title: 'Reveal Round', placeHolder: 'Round to show in the editor', matchOnDescription: true },
      );
      if (!picked) return undefined;
      index = picked.index;
    }
    const round = analysis.report.rounds.find((r) => r.index === index);
    if (!round) throw new Error(`${basename(file)} has no round #${index}`);
    first = round.firstLine;
    last = round.lastLine;
    roundIndex = round.index;
  }
  if ((await stat(file)).size > EDITOR_LIMIT) {
    if (roundIndex === undefined) {
      void vscode.window.showInformationMessage(
        `${basename(file)} is too large for an editor (over 50 MB); line ${first} can be shown only as part of its round.`,
      );
      return { file, firstLine: first, lastLine: last, shownIn: 'nowhere' };
    }
    const doc = await vscode.workspace.openTextDocument(roundDocumentUri(file, roundIndex));
    await vscode.window.showTextDocument(doc, { preserveFocus: o.focus !== true, preview: true, viewColumn });
    return { file, firstLine: first, lastLine: last, shownIn: 'round-document' };
  }
  let doc: vscode.TextDocument;
  try {
    doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    s.log.warn(`Could not open ${file}: ${why}`);
    void vscode.window.showWarningMessage(
      `Cannot open the transcript in an editor (${why}). The lines are ${first}–${last}.`,
    );
    return { file, firstLine: first, lastLine: last, shownIn: 'nowhere' };
  }
  const lastIdx = Math.min(last, doc.lineCount) - 1;
  const firstIdx = Math.min(first, doc.lineCount) - 1;
  const start = new vscode.Position(Math.max(0, firstIdx), 0);
  const end = doc.lineAt(Math.max(0, lastIdx)).range.end;
  const editor = await vscode.window.showTextDocument(doc, {
    preserveFocus: o.focus !== true,
    preview: true,
    selection: new vscode.Range(start, end),
    viewColumn,
  });
  editor.revealRange(new vscode.Range(start, start), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  return { file, firstLine: first, lastLine: last, shownIn: 'editor' };
}
