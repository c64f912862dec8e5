// Host side of the Context Map: one webview panel per transcript. A panel shows the store's
// analysis and plan of its file (looking at a panel makes its file the shown one, so the tree
// and the editor decorations follow); dragging the target replans through the store; selecting
// a round reads it from the file and counts its items exactly (o200k) on the token worker.
// Every message from the webview is validated (src/webview/mapProtocol.ts); its links call Reveal Round's function
// directly (panelActions.ts), never the command bus.
import * as vscode from 'vscode';
import { readRoundItems } from '../core/roundDetail';
import { chooseRounds, chooseToolResult, type UserDecisions } from '../core/compact/decisions';
import { countInWorker } from '../core/tokens/pool';
import { parseMapToHost, type HostToMap, type MapState, type RoundDetail } from '../webview/mapProtocol';
import { buildMapState } from './model/mapState';
import { mapHtml } from './model/mapHtml';
import { setUpWebviewPanel } from './webviewPanel';
import { baseName } from './model/format';
import { costSettings, getPrices, SECTION } from './settings';
import type { Log } from './log';
import type { TranscriptStore } from './store';
import type { PanelActions, RevealTarget } from './panelActions';
import type { Analysis } from '../core/analysis';
import { unsupported } from '../core/formats/registry';

export const MAP_VIEW_TYPE = 'agentCompactor.contextMap';

/** Characters of one item sent for reading (the exact count covers the whole text). */
const SHOWN_CHARS = 20_000;
/** Most characters counted exactly for one round (beyond it, items are left uncounted). */
const EXACT_BUDGET = 8_000_000;

/** What a panel last showed, for the extension's API (tests read it instead of pixels). */
export interface MapSnapshot {
  file: string;
  state: MapState | undefined;
  message: HostToMap | undefined;
  detail: RoundDetail | undefined;
  exact: (number | null)[] | undefined;
}

class ContextMapPanel implements vscode.Disposable {
  private ready = false;
  private readonly disposables: vscode.Disposable[] = [];
  readonly snapshot: MapSnapshot;
  private selectSeq = 0;
  /** A target that arrived while a replan ran (a drag sends several): only the latest is planned next. */
  private pendingTarget: number | undefined;
  private replanning = false;
  /** The floor last measured (store.reachFloor) and the analysis it is of: null when it could not be measured. */
  private floor: { analysis: Analysis; tokens: number | null } | undefined;

  constructor(
    readonly file: string,
    readonly panel: vscode.WebviewPanel,
    private readonly store: TranscriptStore,
    extensionUri: vscode.Uri,
    private readonly log: Log,
    private readonly actions: PanelActions,
    onDispose: () => void,
  ) {
    this.snapshot = { file, state: undefined, message: undefined, detail: undefined, exact: undefined };
    setUpWebviewPanel(panel, extensionUri, { script: 'map.js', style: 'map.css', html: mapHtml });
    this.disposables.push(
      panel.onDidDispose(() => {
        this.dispose();
        onDispose();
      }),
      panel.webview.onDidReceiveMessage((raw) => void this.receive(raw)),
      panel.onDidChangeViewState((e) => {
        if (e.webviewPanel.active && this.store.file !== this.file) void this.store.load(this.file);
      }),
      store.onDidChange(() => this.push()),
    );
    // No state is built here: the first push comes from `open` (or the store, for a restored panel) after the
    // webview's HTML has gone out, so the webview loads while the host builds the state.
  }

  private message(): HostToMap | undefined {
    const s = this.store.state;
    if (s.status === 'empty' || s.file !== this.file)
      return this.snapshot.state ? undefined : { type: 'busy', message: `Reading ${baseName(this.file)}…` };
    if (s.status === 'loading') return { type: 'busy', message: s.message };
    if (s.status === 'error') return { type: 'empty', message: `Cannot show ${baseName(s.file)}: ${s.message}` };
    const uri = vscode.Uri.file(this.file);
    const prices = getPrices(uri);
    if (prices.error) this.log.warn(prices.error);
    // The floor line and the drag minimum are the Preview input's floor (store.reachFloor): measured before the
    // panel's first state (`open` waits for it), then checked again on every push (a grown file, a pinned round or a
    // setting moves it), the last one shown meanwhile.
    const readOnly = unsupported(s.analysis.index.format);
    if (!readOnly) void this.measureFloor(s.analysis);
    if (!readOnly && this.floor === undefined)
      return this.snapshot.state ? undefined : { type: 'busy', message: `Reading ${baseName(this.file)}…` };
    const floor = readOnly ? null : (this.floor?.tokens ?? null);
    const target = this.store.compactSettings(this.file).targetTokens;
    const { summarizer } = costSettings(this.file);
    return {
      type: 'state',
      state: buildMapState(this.file, s.analysis, s.plan, target, prices.table, Date.now(), summarizer, floor),
    };
  }

  /**
   * Measures the floor of `analysis` (held by the store); with `push`, pushes again when it is new or has moved.
   * Resolves once it is known.
   */
  async measureFloor(analysis: Analysis, push = true): Promise<void> {
    let tokens: number | null;
    try {
      tokens = await this.store.reachFloor(this.file, analysis);
    } catch (err) {
      this.log.error(`Could not measure the smallest reachable target of ${this.file}`, err);
      tokens = null;
    }
    const s = this.store.state;
    if (s.status !== 'ready' || s.analysis !== analysis) return;
    if (this.floor?.analysis === analysis && this.floor.tokens === tokens) return;
    this.floor = { analysis, tokens };
    if (push) this.push();
  }

  push(): void {
    const msg = this.message();
    if (!msg) return; // another transcript is shown: keep this panel's last picture
    this.snapshot.message = msg;
    if (msg.type === 'state') {
      this.snapshot.state = msg.state;
      this.panel.title = `Context Map: ${msg.state.fileName}`;
    }
    this.post(msg);
  }

  private post(msg: HostToMap): void {
    if (this.ready) void this.panel.webview.postMessage(msg);
  }

  private async receive(raw: unknown): Promise<void> {
    const msg = parseMapToHost(raw);
    if (!msg) {
      this.log.warn('Ignored a malformed message from the Context Map webview');
      return;
    }
    switch (msg.type) {
      case 'ready':
        this.ready = true;
        if (this.snapshot.message) this.post(this.snapshot.message);
        else this.push();
        break;
      case 'refresh':
        await this.show();
        await this.store.refresh();
        break;
      case 'setTarget':
        await this.replanTo(msg.tokens);
        break;
      case 'selectRound':
        await this.select(msg.round);
        break;
      // Shown readable, in the transcript's own group: the map keeps its place and its selection.
      case 'revealRound':
        await this.reveal({ file: this.file, round: msg.round });
        break;
      case 'revealLine':
        await this.reveal({ file: this.file, line: msg.line });
        break;
      // A decision changes the store's decisions value of this panel's file (saved, and replanned); the store's
      // change redraws the map.
      case 'dropRound': {
        const round = msg.round;
        await this.decide((d) => chooseRounds(d, [round], 'drop'));
        break;
      }
      case 'previewResult': {
        const id = msg.toolUseId;
        await this.decide((d) => chooseToolResult(d, id, 'preview'));
        break;
      }
    }
  }

  /** Reveal Round's function, for the map's links; a failure is shown here (the webview has no error view). */
  private async reveal(target: RevealTarget): Promise<void> {
    try {
      await this.actions.reveal(target, { readable: true, keepGroup: true });
    } catch (err) {
      this.log.error(`Could not show ${target.file}`, err);
      void vscode.window.showErrorMessage(`Agent Compactor: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** Updates this panel's file's decisions by `change`; a failure is shown here (the webview has no error view). */
  private async decide(change: (d: UserDecisions) => UserDecisions): Promise<void> {
    try {
      await this.show();
      await this.store.decide(this.file, change);
    } catch (err) {
      this.log.error(`Could not save the decision for ${this.file}`, err);
      void vscode.window.showErrorMessage(`Agent Compactor: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** Replans for `tokens`; targets sent meanwhile collapse into the latest, so a drag never queues stale plans. */
  private async replanTo(tokens: number): Promise<void> {
    this.pendingTarget = tokens;
    if (this.replanning) return;
    this.replanning = true;
    try {
      while (this.pendingTarget !== undefined) {
        const next = this.pendingTarget;
        this.pendingTarget = undefined;
        await this.show();
        await this.store.preview(next);
      }
    } finally {
      this.replanning = false;
    }
  }

  /** Makes this panel's file the shown one (the store keeps one transcript at a time). */
  private async show(): Promise<void> {
    if (this.store.file !== this.file || this.store.state.status !== 'ready') await this.store.load(this.file);
  }

  /** Reads a round for the webview, then its exact counts off the main thread. */
  async select(round: number): Promise<RoundDetail | undefined> {
    const seq = ++this.selectSeq;
    await this.show();
    const analysis = this.store.analysis;
    if (!analysis || this.store.file !== this.file || round >= analysis.rounds.length) return undefined;
    let items;
    try {
      items = await readRoundItems(analysis, round);
    } catch (err) {
      this.log.warn(
        `Could not read round ${round} of ${this.file}: ${err instanceof Error ? err.message : String(err)}`,
      );
      return undefined;
    }
    if (seq !== this.selectSeq) return undefined;
    const report = analysis.report.rounds[round];
    const cost = this.snapshot.state?.rounds[round]?.costUsd ?? null;
    const detail: RoundDetail = {
      round,
      label: report.startsAtBoundary ? 'compact boundary and summary' : report.label,
      model: report.model,
      costUsd: cost,
      items: items.map((i) => ({
        kind: i.kind,
        line: i.line,
        tool: i.tool,
        text: i.text.length > SHOWN_CHARS ? i.text.slice(0, SHOWN_CHARS) : i.text,
        chars: i.text.length,
        truncated: i.text.length > SHOWN_CHARS,
        estimate: i.estimate,
        isError: i.isError,
      })),
    };
    this.snapshot.detail = detail;
    this.snapshot.exact = undefined;
    this.post({ type: 'round', detail });
    let budget = EXACT_BUDGET;
    const counted = items.map((i) => {
      if (i.kind === 'image' || i.text.length > budget) return null;
      budget -= i.text.length;
      return i.text;
    });
    try {
      const texts = counted.filter((t): t is string => t !== null);
      const counts = await countInWorker(texts);
      let k = 0;
      const exact = counted.map((t) => (t === null ? null : counts[k++]));
      if (seq !== this.selectSeq) return detail;
      this.snapshot.exact = exact;
      this.post({ type: 'exact', round, counts: exact });
    } catch (err) {
      this.log.warn(`Exact token count failed: ${err instanceof Error ? err.message : String(err)}`);
    }
    return detail;
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
    this.disposables.length = 0;
  }
}

/** The Context Map panels, one per transcript. */
export class ContextMapPanels implements vscode.Disposable {
  private readonly panels = new Map<string, ContextMapPanel>();
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly store: TranscriptStore,
    private readonly extensionUri: vscode.Uri,
    private readonly log: Log,
    private readonly actions: PanelActions,
  ) {
    this.disposables.push(
      vscode.window.registerWebviewPanelSerializer(MAP_VIEW_TYPE, {
        deserializeWebviewPanel: async (panel, saved: unknown) => {
          const file =
            saved && typeof saved === 'object' && typeof (saved as { file?: unknown }).file === 'string'
              ? (saved as { file: string }).file
              : undefined;
          if (!file) {
            panel.dispose();
            return;
          }
          this.adopt(file, panel);
          await this.store.load(file);
        },
      }),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(`${SECTION}.prices`)) for (const p of this.panels.values()) p.push();
      }),
    );
  }

  /** Opens (or reveals) the map of `file`; resolves once the store shows it. */
  async open(file: string): Promise<MapSnapshot> {
    let p = this.panels.get(file);
    if (p) p.panel.reveal(undefined, false);
    else {
      const panel = vscode.window.createWebviewPanel(
        MAP_VIEW_TYPE,
        `Context Map: ${baseName(file)}`,
        { viewColumn: this.mapsColumn() ?? vscode.ViewColumn.Beside, preserveFocus: false },
        { retainContextWhenHidden: false },
      );
      p = this.adopt(file, panel);
    }
    // Let the panel's HTML reach the renderer before the state (up to a second on a 100 MB session) is built.
    await new Promise((resolve) => setTimeout(resolve, 0));
    // Opening the panel changes tabs, and the editor tracker may queue the active editor's transcript
    // meanwhile: settle, then make sure this one is shown (a few tries, never a loop).
    for (let i = 0; i < 3 && (this.store.file !== file || this.store.state.status !== 'ready'); i++) {
      await this.store.load(file);
      await this.store.whenIdle();
    }
    // The first state carries the floor (the Preview input's): measured before it is pushed.
    const s = this.store.state;
    if (s.status === 'ready' && s.file === file && !unsupported(s.analysis.index.format))
      await p.measureFloor(s.analysis, false);
    p.push();
    return p.snapshot;
  }

  /**
   * The group that shows a map already (the active group first): a further map opens there as a tab, so maps never
   * squeeze the editor into ever narrower groups. Read from the tabs, which also know the maps of a restored window.
   */
  private mapsColumn(): vscode.ViewColumn | undefined {
    const holdsMap = (g: vscode.TabGroup) =>
      g.tabs.some((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.endsWith(MAP_VIEW_TYPE));
    const groups = vscode.window.tabGroups;
    return (holdsMap(groups.activeTabGroup) ? groups.activeTabGroup : groups.all.find(holdsMap))?.viewColumn;
  }

  private adopt(file: string, panel: vscode.WebviewPanel): ContextMapPanel {
    this.panels.get(file)?.panel.dispose();
    const p = new ContextMapPanel(file, panel, this.store, this.extensionUri, this.log, this.actions, () =>
      this.panels.delete(file),
    );
    this.panels.set(file, p);
    return p;
  }

  /** What the map of `file` (default: the shown transcript's) last showed. */
  snapshot(file = this.store.file): MapSnapshot | undefined {
    return file ? this.panels.get(file)?.snapshot : undefined;
  }

  get openFiles(): string[] {
    return [...this.panels.keys()];
  }

  dispose(): void {
    for (const p of this.panels.values()) p.panel.dispose();
    for (const d of this.disposables) d.dispose();
  }
}
