// Host side of the Budget Preview webview: builds its state from the store's plan, posts
// typed messages, validates every message it receives (src/webview/protocol.ts), and answers its links and its
// Compact button with the typed functions the commands call (panelActions.ts).
import * as vscode from 'vscode';
import { parseWebviewToHost, type BudgetState, type HostToWebview } from '../webview/protocol';
import { buildBudgetState } from './model/budget';
import { budgetHtml } from './model/budgetHtml';
import { setUpWebviewPanel } from './webviewPanel';
import { baseName } from './model/format';
import type { Log } from './log';
import type { TranscriptStore } from './store';
import type { PanelActions } from './panelActions';

export const BUDGET_VIEW_TYPE = 'agentCompactor.budget';

export class BudgetPanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private panelDisposables: vscode.Disposable[] = [];
  private readonly disposables: vscode.Disposable[] = [];
  private ready = false;
  private last: HostToWebview | undefined;

  constructor(
    private readonly store: TranscriptStore,
    private readonly extensionUri: vscode.Uri,
    private readonly log: Log,
    private readonly actions: PanelActions,
  ) {
    this.disposables.push(
      store.onDidChange(() => this.push()),
      vscode.window.registerWebviewPanelSerializer(BUDGET_VIEW_TYPE, {
        deserializeWebviewPanel: async (panel) => {
          this.adopt(panel);
          if (this.store.state.status === 'ready' && !this.store.plan) await this.store.preview();
          this.push();
        },
      }),
    );
  }

  /** The state last sent to the webview (what Open Budget Preview returns). */
  get state(): BudgetState | undefined {
    return this.last?.type === 'state' ? this.last.state : undefined;
  }

  show(): void {
    if (this.panel) {
      this.panel.reveal(undefined, true);
      this.push();
      return;
    }
    // In the active editor group, not beside it: the preview is a report (chart, per-message table, replacement
    // texts) that needs the width, and beside the transcript it got about a third of a 1400 px window; the
    // transcript's JSONL lines cannot be read at half width either, and revealing a round from the preview opens it
    // in the active group anyway. Dragged beside, it still reads: the chart lays itself out for the width it has.
    // Focused, so keyboard users land in it.
    const panel = vscode.window.createWebviewPanel(
      BUDGET_VIEW_TYPE,
      'Budget Preview',
      { viewColumn: vscode.ViewColumn.Active, preserveFocus: false },
      {},
    );
    this.adopt(panel);
    this.push();
  }

  private adopt(panel: vscode.WebviewPanel): void {
    this.panel?.dispose();
    this.panel = panel;
    this.ready = false;
    setUpWebviewPanel(panel, this.extensionUri, { script: 'webview.js', style: 'budget.css', html: budgetHtml });
    this.panelDisposables.push(
      panel.onDidDispose(() => {
        this.panel = undefined;
        this.ready = false;
        for (const d of this.panelDisposables) d.dispose();
        this.panelDisposables = [];
      }),
      panel.webview.onDidReceiveMessage((raw) => this.receive(raw)),
    );
  }

  private message(): HostToWebview {
    const s = this.store.state;
    if (s.status === 'empty')
      return {
        type: 'empty',
        message:
          'No transcript is shown. Open an agent session (a Claude Code or Codex .jsonl, a Gemini CLI or Cline .json) to preview its compaction.',
      };
    if (s.status === 'loading') return { type: 'busy', message: s.message };
    if (s.status === 'error') return { type: 'empty', message: `Cannot show ${baseName(s.file)}: ${s.message}` };
    if (!s.plan)
      return {
        type: 'empty',
        message: s.planError
          ? `Could not plan a compaction: ${s.planError}`
          : 'No compaction plan yet: run "Preview Compaction".',
      };
    return { type: 'state', state: buildBudgetState(s.file, s.analysis, s.plan) };
  }

  private push(): void {
    if (!this.panel) return;
    const msg = this.message();
    this.last = msg;
    this.panel.title = msg.type === 'state' ? `Budget: ${msg.state.fileName}` : 'Budget Preview';
    if (this.ready) void this.panel.webview.postMessage(msg);
  }

  private receive(raw: unknown): void {
    const msg = parseWebviewToHost(raw);
    if (!msg) {
      this.log.warn('Ignored a malformed message from the Budget Preview webview');
      return;
    }
    // Links and the Compact button act on the transcript the panel shows (its last state), not on one shown since.
    const file = this.state?.file;
    switch (msg.type) {
      case 'ready':
        this.ready = true;
        this.push();
        break;
      case 'refresh':
        void this.store.refresh();
        break;
      case 'compact':
        if (file) this.act('Compact', () => this.actions.compact(file));
        break;
      case 'revealRound':
        if (file) this.act('Reveal Round', () => this.actions.reveal({ file, round: msg.round }, {}));
        break;
      case 'revealLine':
        if (file) this.act('Reveal Line', () => this.actions.reveal({ file, line: msg.line }, {}));
        break;
    }
  }

  /** Runs a link's or a button's action; a failure is logged and shown (the webview has no error view). */
  private act(what: string, run: () => Promise<unknown>): void {
    run().catch((err: unknown) => {
      this.log.error(`Budget Preview: ${what} failed`, err);
      void vscode.window.showErrorMessage(`Agent Compactor: ${err instanceof Error ? err.message : String(err)}`);
    });
  }

  dispose(): void {
    this.panel?.dispose();
    for (const d of this.disposables) d.dispose();
  }
}
