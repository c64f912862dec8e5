// The Rounds tree (activity bar container and explorer): maps the pure node model of
// model/tree.ts to TreeItems; children are built when a node is expanded.
import * as vscode from 'vscode';
import {
  childNodes,
  parentNode,
  rootNodes,
  roundNodeByIndex,
  snapshot,
  statusNode,
  type TreeInput,
  type TreeNodeModel,
  type TreeSnapshot,
} from '../model/tree';
import { baseName } from '../model/format';
import { roundsViewHeader } from '../model/roundsViewHeader';
import { VIEW_IDS, isTranscriptEditor, type TranscriptStore } from '../store';
import { ROUND_SCHEME } from './roundDocuments';
import { costSettings } from '../settings';

export class RoundsTreeProvider implements vscode.TreeDataProvider<TreeNodeModel>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<TreeNodeModel | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  private roots: TreeNodeModel[] | undefined;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly store: TranscriptStore) {
    this.disposables.push(
      store.onDidChange(() => {
        this.roots = undefined;
        this.emitter.fire(undefined);
      }),
    );
  }

  private input(): TreeInput | undefined {
    const s = this.store.state;
    return s.status === 'ready' ? { file: s.file, analysis: s.analysis, plan: s.plan } : undefined;
  }

  getRoots(): TreeNodeModel[] {
    if (this.roots) return this.roots;
    const s = this.store.state;
    if (s.status === 'empty') this.roots = [];
    else if (s.status === 'loading') this.roots = [statusNode(s.file, s.message, s.file, 'loading')];
    else if (s.status === 'error' && s.empty)
      this.roots = [
        statusNode(
          s.file,
          `${baseName(s.file)} is empty`,
          'No lines yet; its rounds appear here as soon as an agent writes to it.',
          'info',
        ),
      ];
    else if (s.status === 'error')
      this.roots = [statusNode(s.file, `Cannot show ${baseName(s.file)}`, s.message, 'error')];
    else {
      this.roots = rootNodes({ file: s.file, analysis: s.analysis, plan: s.plan, ...costSettings(s.file) });
      if (s.planError) this.roots.splice(1, 0, statusNode(s.file, 'Could not plan a compaction', s.planError, 'error'));
    }
    return this.roots;
  }

  getChildren(node?: TreeNodeModel): TreeNodeModel[] {
    if (!node) return this.getRoots();
    const input = this.input();
    if (!input || input.file !== node.file) return [];
    return childNodes(input, node);
  }

  getParent(node: TreeNodeModel): TreeNodeModel | undefined {
    const input = this.input();
    return input && input.file === node.file ? parentNode(input, node) : undefined;
  }

  getTreeItem(node: TreeNodeModel): vscode.TreeItem {
    const state =
      node.collapsible === 'expanded'
        ? vscode.TreeItemCollapsibleState.Expanded
        : node.collapsible === 'collapsed'
          ? vscode.TreeItemCollapsibleState.Collapsed
          : vscode.TreeItemCollapsibleState.None;
    const item = new vscode.TreeItem(node.label, state);
    item.id = node.id;
    item.description = node.description;
    item.tooltip = node.tooltip;
    item.iconPath = new vscode.ThemeIcon(node.icon, node.color ? new vscode.ThemeColor(node.color) : undefined);
    item.contextValue = node.contextValue;
    if (node.command)
      item.command = { command: node.command.command, title: node.command.title, arguments: node.command.args };
    if (node.target) item.resourceUri = vscode.Uri.file(node.target);
    item.accessibilityInformation = { label: [node.label, node.description].filter(Boolean).join(', ') };
    return item;
  }

  /** The round node whose lines include `line` (1-based), if any. */
  roundAtLine(line: number): TreeNodeModel | undefined {
    const a = this.store.analysis;
    if (!a) return undefined;
    const input = this.input();
    const round = a.report.rounds.find((r) => r.firstLine <= line && line <= r.lastLine);
    return input && round ? roundNodeByIndex(input, round.index) : undefined;
  }

  /** The node of round `index` of the shown transcript. */
  roundByIndex(index: number): TreeNodeModel | undefined {
    const input = this.input();
    return input ? roundNodeByIndex(input, index) : undefined;
  }

  /** Plain data of the tree, children expanded to `depth` (test API). */
  snapshot(depth = 1): TreeSnapshot[] {
    const input = this.input();
    if (!input) return this.getRoots().map((n) => ({ ...n }));
    return snapshot(input, depth);
  }

  dispose(): void {
    this.emitter.dispose();
    for (const d of this.disposables) d.dispose();
  }
}

/** workspaceState key: the Rounds view was shown once in this workspace (after that, the user decides). */
const SHOWN_ONCE = 'agentCompactor.roundsViewShown';

/**
 * Creates both tree views over one provider and keeps their titles, messages and badges current. The first time a
 * transcript is shown in a workspace, the Rounds view is revealed (without taking focus from the editor), so a new
 * user finds the rounds without a hunt; later the views stay where the user put them.
 */
export function createRoundsViews(
  store: TranscriptStore,
  provider: RoundsTreeProvider,
  workspaceState: vscode.Memento,
): vscode.Disposable[] {
  const views = VIEW_IDS.map((id) =>
    vscode.window.createTreeView(id, { treeDataProvider: provider, showCollapseAll: true, canSelectMany: true }),
  );
  const showOnce = () => {
    if (store.state.status !== 'ready' || workspaceState.get(SHOWN_ONCE) || views.some((v) => v.visible)) return;
    void workspaceState.update(SHOWN_ONCE, true);
    const header = provider.getRoots()[0];
    if (header) void Promise.resolve(views[0].reveal(header, { select: false, focus: false })).catch(() => undefined);
  };
  const update = () => {
    showOnce();
    const s = store.state;
    views.forEach((v, k) => {
      const header = roundsViewHeader(
        s.status === 'empty' ? undefined : s.file,
        s.status === 'ready' ? s.plan : null,
        VIEW_IDS[k] === 'agentCompactor.roundsExplorer' ? 'explorer' : 'container',
      );
      v.description = header.description;
      v.message = undefined;
      v.badge = header.badge;
    });
  };
  update();
  const disposables: vscode.Disposable[] = [...views, store.onDidChange(update)];
  // Follow the editor: select the round under the cursor when a view is visible.
  let timer: ReturnType<typeof setTimeout> | undefined;
  let lastShownRound: number | undefined;
  disposables.push(
    vscode.window.onDidChangeTextEditorSelection((e) => {
      if (e.textEditor.document.uri.fsPath !== store.file || !isTranscriptEditor(e.textEditor)) return;
      if (e.kind === vscode.TextEditorSelectionChangeKind.Command) return; // our own reveal
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => {
        const node = provider.roundAtLine(e.selections[0].active.line + 1);
        if (!node) return;
        for (const v of views)
          if (v.visible) void Promise.resolve(v.reveal(node, { select: true, focus: false })).catch(() => undefined);
      }, 150);
    }),
    { dispose: () => timer && clearTimeout(timer) },
    // A round shown as its own document (the Context Map's links open its readable form): select it in the tree too.
    vscode.window.onDidChangeVisibleTextEditors((editors) => {
      const shown = editors.map((e) => roundShownBy(e.document.uri, store.file)).find((r) => r !== undefined);
      if (shown === lastShownRound) return;
      lastShownRound = shown;
      if (shown === undefined) return;
      const node = provider.roundByIndex(shown);
      if (!node) return;
      for (const v of views)
        if (v.visible) void Promise.resolve(v.reveal(node, { select: true, focus: false })).catch(() => undefined);
    }),
  );
  return disposables;
}

/** The round a document of one round (its lines or its readable form) shows, when it is of the shown transcript `file`. */
function roundShownBy(uri: vscode.Uri, file: string | undefined): number | undefined {
  if (uri.scheme !== ROUND_SCHEME || !file) return undefined;
  const q = new URLSearchParams(uri.query);
  const round = Number(q.get('round'));
  return q.get('file') === file && Number.isInteger(round) ? round : undefined;
}
