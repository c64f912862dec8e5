// Marks the lines of rounds a compaction would summarize or drop in every visible editor of
// the transcript: gutter icon (a different shape per action), overview ruler, a line tint,
// and a CodeLens text marker ("[summarize] round #12 …") above each round's first line so
// the mark does not depend on colour. (Injected `before` text was tried for the marker:
// on long JSONL lines it made the editor drop the line's tint and gutter icon.)
import * as vscode from 'vscode';
import { decorationRanges, type DecorationRanges, type LineRun } from '../model/decorations';
import { MARK_TEXT } from '../model/tree';
import type { TranscriptStore } from '../store';
import { CommandId } from '../commandIds';

type Marked = 'summarize' | 'drop';

export interface AppliedDecorations {
  file: string;
  ranges: DecorationRanges;
  /** Editors the ranges were applied to. */
  editors: number;
}

export class PlanDecorations implements vscode.Disposable {
  private readonly types: Record<Marked, vscode.TextEditorDecorationType>;
  private readonly lensEmitter = new vscode.EventEmitter<void>();
  private readonly disposables: vscode.Disposable[] = [];
  private applied: AppliedDecorations | undefined;

  constructor(
    private readonly store: TranscriptStore,
    extensionUri: vscode.Uri,
  ) {
    const make = (mark: Marked, lane: vscode.OverviewRulerLane) =>
      vscode.window.createTextEditorDecorationType({
        isWholeLine: true,
        gutterIconPath: vscode.Uri.joinPath(extensionUri, 'media', `gutter-${mark}.svg`),
        gutterIconSize: 'contain',
        overviewRulerColor: new vscode.ThemeColor(`agentCompactor.${mark}Foreground`),
        overviewRulerLane: lane,
        backgroundColor: new vscode.ThemeColor(`agentCompactor.${mark}Background`),
        rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
      });
    this.types = {
      summarize: make('summarize', vscode.OverviewRulerLane.Left),
      drop: make('drop', vscode.OverviewRulerLane.Right),
    };
    this.disposables.push(
      store.onDidChange(() => this.update()),
      vscode.window.onDidChangeVisibleTextEditors(() => this.update()),
      vscode.languages.registerCodeLensProvider(
        { scheme: 'file', pattern: '**/*.jsonl' },
        {
          onDidChangeCodeLenses: this.lensEmitter.event,
          provideCodeLenses: (doc) => this.lenses(doc),
        },
      ),
    );
    this.update();
  }

  update(): void {
    const s = this.store.state;
    const ranges: DecorationRanges =
      s.status === 'ready' && s.plan ? decorationRanges(s.analysis, s.plan) : { summarize: [], drop: [] };
    const file = s.status === 'ready' ? s.file : undefined;
    let editors = 0;
    for (const editor of vscode.window.visibleTextEditors) {
      const mine = file !== undefined && editor.document.uri.scheme === 'file' && editor.document.uri.fsPath === file;
      for (const mark of ['summarize', 'drop'] as const) {
        editor.setDecorations(this.types[mark], mine ? this.options(editor.document, mark, ranges[mark]) : []);
      }
      if (mine) editors++;
    }
    this.applied = file ? { file, ranges, editors } : undefined;
    this.lensEmitter.fire();
  }

  /** "[summarize] round #12: reason" above the first line of every marked round. */
  private lenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    const a = this.applied;
    if (!a || doc.uri.fsPath !== a.file) return [];
    const out: vscode.CodeLens[] = [];
    for (const mark of ['summarize', 'drop'] as const) {
      for (const run of a.ranges[mark]) {
        if (!run.first || run.startLine >= doc.lineCount) continue;
        out.push(
          new vscode.CodeLens(new vscode.Range(run.startLine, 0, run.startLine, 0), {
            title: `${MARK_TEXT[mark]} round #${run.round}: ${run.reason}`,
            tooltip: 'Agent Compactor: open the Budget Preview',
            command: CommandId.openBudget,
            arguments: [{ file: a.file }],
          }),
        );
      }
    }
    return out;
  }

  private options(doc: vscode.TextDocument, mark: Marked, runs: LineRun[]): vscode.DecorationOptions[] {
    const out: vscode.DecorationOptions[] = [];
    const last = doc.lineCount - 1;
    for (const run of runs) {
      if (run.startLine > last) continue;
      const end = Math.min(run.endLine, last);
      const range = new vscode.Range(run.startLine, 0, end, doc.lineAt(end).range.end.character);
      const hover = new vscode.MarkdownString();
      hover.appendText(
        `Agent Compactor ${MARK_TEXT[mark]}: round #${run.round} would be ${mark === 'drop' ? 'dropped' : 'summarized'} (${run.reason})`,
      );
      out.push({ range, hoverMessage: hover });
    }
    return out;
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
    for (const t of Object.values(this.types)) t.dispose();
    this.lensEmitter.dispose();
  }
}
