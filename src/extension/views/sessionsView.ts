// The Sessions view: every agent's sessions from core (agentSessions.ts, from the folders each agent's module names),
// by agent and project: Claude Code's under its sessions folder by project, kept current by watching the folders (a
// rescan reads only stats and the ends of files), and every other agent's from the heads of its session files. Rounds
// and cost, which need a whole file, are read in the background for the sessions of expanded projects only. The live
// mark clears once a session goes quiet. Opening a session shows it in the Rounds tree.
// Lazy: every project and every other agent's folder is scanned and watched only while the view is shown (or when
// asked to refresh); otherwise only the workspace's own Claude Code project folder is, which is all the live status
// bar item needs.
import * as vscode from 'vscode';
import { existsSync, readdirSync, watch, type FSWatcher } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { groupSessions, LIVE_MS, type SessionSummary } from '../../core/sessionList';
import { rescanSession, scanAgentSessions, type ListedSession } from '../../core/agentSessions';
import { agentFolders, type AgentFolder } from '../../core/sessionFolders';
import { sessionContext, sessionStats, type SessionContext } from '../../core/sessionStats';
import { costSettings } from '../settings';
import { LiveMarks, OwnWrites, realTimers, type Timers } from '../model/liveMarks';
import { onCommitted } from '../../core/io/commit';
import { sessionsFolder } from '../model/sessions';
import { projectFolderName } from '../../core/session';
import { SessionStatsQueue } from '../model/sessionStatsQueue';
import { sessionTreeNodes, type SessionNode } from '../model/sessionsTree';
import { CommandId } from '../commandIds';

const RESCAN_DEBOUNCE_MS = 400;

export class SessionsView implements vscode.TreeDataProvider<SessionNode>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<SessionNode | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fires after every rescan. */
  readonly onDidScan = this.changed.event;
  private readonly figuresRead = new vscode.EventEmitter<void>();
  /** Fires when the whole read of sessions (rounds, cost, the context figure) brought new figures. */
  readonly onDidReadFigures = this.figuresRead.event;
  private sessions: ListedSession[] = [];
  private nodes: SessionNode[] = [];
  private filterText = '';
  private timer: ReturnType<typeof setTimeout> | undefined;
  private scanning: Promise<void> | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  readonly view: vscode.TreeView<SessionNode>;
  readonly root = sessionsFolder();
  private readonly live: LiveMarks;
  private readonly stats: SessionStatsQueue;
  private statsTimer: unknown;

  /** Every agent's sessions folders (Cline's and Roo Code's in VS Code's global storage, `globalStorage`). */
  private readonly folders: readonly AgentFolder[];

  /** `timers`: the clock the live marks run on; `globalStorage`: VS Code's global storage folder. */
  constructor(
    private readonly timers: Timers = realTimers,
    globalStorage?: string,
  ) {
    this.folders = agentFolders(process.env, homedir(), globalStorage ?? []);
    this.view = vscode.window.createTreeView('agentCompactor.sessions', {
      treeDataProvider: this,
      showCollapseAll: true,
    });
    this.disposables.push(this.view, this.emitter, this.changed, this.figuresRead);
    // What this window commits (a fork, a repaired or restored session) is not an agent writing it now.
    const own = new OwnWrites();
    const stopOwn = onCommitted((written) => own.record(written));
    this.disposables.push({ dispose: stopOwn });
    this.live = new LiveMarks(
      timers,
      () => {
        this.sessions = this.live.apply(this.sessions);
        this.rebuild();
        this.changed.fire();
      },
      LIVE_MS,
      own,
    );
    // Figures arrive one file at a time: the tree is redrawn at most every RESCAN_DEBOUNCE_MS for them.
    this.stats = new SessionStatsQueue(
      (file) => {
        // Priced with the user's prices, "compacted first" at the user's target.
        const { prices, targetTokens } = costSettings(file);
        return sessionStats(file, prices, Date.now(), targetTokens);
      },
      () => {
        if (this.statsTimer !== undefined) return;
        this.statsTimer = timers.setTimeout(() => {
          this.statsTimer = undefined;
          this.rebuild();
          this.figuresRead.fire();
        }, RESCAN_DEBOUNCE_MS);
      },
    );
    this.wide = this.view.visible;
    this.disposables.push(this.view.onDidChangeVisibility((e) => this.setWide(e.visible)));
    void this.rescan();
  }

  /** True while every project is scanned and watched (the view is shown); false: the workspace's project only. */
  private wide: boolean;

  private setWide(wide: boolean): void {
    if (wide === this.wide) return;
    this.wide = wide;
    void this.rescan();
  }

  /** The project folders the narrow scan covers: the workspace's own (Claude Code's name for it). */
  private narrowFolders(): string[] {
    const project = this.workspaceProject();
    return project ? [projectFolderName(project)] : [];
  }

  /** Whether `dir` is watched in the current scope: the sessions folder itself (new projects) and the scanned projects. */
  private watched(dir: string): boolean {
    return this.wide || dir === this.root || this.narrowFolders().some((f) => join(this.root, f) === dir);
  }

  /** Folder → its watcher: the sessions folder (new projects) and each project folder (new or growing sessions). */
  private readonly watchers = new Map<string, FSWatcher>();

  /**
   * Watches the sessions folder and the project folders in scope (`watched`); before Claude Code has created the
   * sessions folder, its nearest existing ancestor, so that the first session is noticed. Node's watcher, not VS
   * Code's: the folder is outside the workspace, where VS Code's is not reliable. Watchers out of scope are closed.
   */
  private watch(): void {
    const wanted = new Set<string>();
    if (existsSync(this.root)) {
      wanted.add(this.root);
      try {
        for (const d of readdirSync(this.root, { withFileTypes: true }))
          if (d.isDirectory() && this.watched(join(this.root, d.name))) wanted.add(join(this.root, d.name));
      } catch {
        /* the next rescan tries again */
      }
    } else {
      let dir = dirname(this.root);
      while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
      wanted.add(dir);
    }
    // Every other agent's folders, while the view is shown: watched with their subfolders (Codex's are by date).
    const others = new Set<string>();
    if (this.wide)
      for (const f of this.folders) if (!f.location.projectFolders && existsSync(f.folder)) others.add(f.folder);
    for (const [dir, w] of this.watchers) {
      if (wanted.has(dir) || others.has(dir)) continue;
      w.close();
      this.watchers.delete(dir);
    }
    for (const dir of others) {
      if (this.watchers.has(dir)) continue;
      try {
        const w = watch(dir, { persistent: false, recursive: true }, () => this.scheduleRescan());
        w.on('error', () => {
          w.close();
          this.watchers.delete(dir);
        });
        this.watchers.set(dir, w);
      } catch {
        /* vanished, unreadable, or no recursive watching here: Refresh Sessions reads it again */
      }
    }
    for (const dir of wanted) {
      if (this.watchers.has(dir)) continue;
      try {
        const w = watch(dir, { persistent: false }, (_event, name) => this.touched(dir, name));
        w.on('error', () => {
          w.close();
          this.watchers.delete(dir);
        });
        this.watchers.set(dir, w);
      } catch {
        /* vanished or unreadable: the next rescan tries again */
      }
    }
  }

  /** The workspace's project: the real path sessions record as their cwd. */
  private workspaceProject(): string | null {
    return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? null;
  }

  get filter(): string {
    return this.filterText;
  }

  setFilter(text: string): void {
    this.filterText = text;
    this.rebuild();
    this.view.description = text ? `filter: ${text}` : undefined;
  }

  /** A change in `dir`: a known session that grew is read again alone (its ends only); anything else rescans. */
  private touched(dir: string, name: string | null): void {
    const file = name && dir !== this.root ? join(dir, name) : undefined;
    const known = file ? this.sessions.findIndex((s) => s.file === file) : -1;
    if (known === -1) return this.scheduleRescan();
    const pending = this.grown.get(file!);
    if (pending) clearTimeout(pending);
    this.grown.set(
      file!,
      setTimeout(() => void this.refreshOne(file!), RESCAN_DEBOUNCE_MS / 2),
    );
  }

  private readonly grown = new Map<string, ReturnType<typeof setTimeout>>();

  private refreshOne(file: string): Promise<void> {
    const run = async () => {
      this.grown.delete(file);
      const at = this.sessions.findIndex((s) => s.file === file);
      if (at === -1) return;
      const fresh = await rescanSession(this.sessions[at], this.folders, this.timers.now()).catch(() => null);
      if (!fresh) return void (await this.rescanNow());
      this.sessions = this.live.apply(
        [fresh, ...this.sessions.filter((s) => s.file !== file)].sort(
          (a, b) => b.mtimeMs - a.mtimeMs || a.file.localeCompare(b.file),
        ),
      );
      this.rebuild();
      this.changed.fire();
    };
    this.scanning = (this.scanning ?? Promise.resolve()).then(run, run);
    return this.scanning;
  }

  private async rescanNow(all = false): Promise<void> {
    this.watch();
    const known = new Map(this.sessions.map((x) => [x.file, x] as const));
    this.sessions = this.live.apply(
      await scanAgentSessions(this.folders, this.timers.now(), {
        only: all || this.wide ? undefined : this.narrowFolders(),
        known,
      }),
    );
    this.rebuild();
    this.changed.fire();
  }

  private scheduleRescan(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.rescan(), RESCAN_DEBOUNCE_MS);
  }

  /**
   * Reads the sessions folder again (one scan at a time; a request during a scan runs after it): every project while
   * the view is shown or when `all` (the user asked to refresh), else the workspace's project.
   */
  rescan(all = false): Promise<void> {
    const run = () => this.rescanNow(all);
    this.scanning = (this.scanning ?? Promise.resolve()).then(run, run);
    return this.scanning;
  }

  private rebuild(): void {
    this.nodes = sessionTreeNodes(
      groupSessions(this.sessions, this.workspaceProject(), this.filterText),
      this.workspaceProject(),
      this.timers.now(),
      (s) => this.stats.state(s),
      this.sessions,
    );
    this.emitter.fire(undefined);
  }

  /** The tree as plain data (test API). */
  snapshot(): SessionNode[] {
    return this.nodes;
  }

  /** Every session found by the last scan, newest first. */
  get all(): readonly ListedSession[] {
    return this.sessions;
  }

  /**
   * The context a session's row shows, by core's one route (sessionContext): the live status item shows the same. A
   * session not yet read whole is queued for it (its figures then arrive with onDidReadFigures).
   */
  contextOf(s: SessionSummary & { agent?: ListedSession['agent'] }): SessionContext {
    const state = this.stats.state(s);
    if (state.kind === 'none') this.stats.want([s]);
    return sessionContext(s, state.kind === 'ready' ? state.stats : null, state.kind === 'ready' && state.stale);
  }

  getChildren(node?: SessionNode): SessionNode[] {
    if (!node) {
      // The project shown expanded from the start (inside its agent, when there are several) counts as expanded.
      const expanded = (nodes: readonly SessionNode[]): void => {
        for (const n of nodes)
          if (n.collapsible === 'expanded') {
            this.wantStats(n);
            expanded(n.children ?? []);
          }
      };
      expanded(this.nodes);
      return this.nodes;
    }
    this.wantStats(node);
    return node.children ?? [];
  }

  /** Asks for the rounds and cost of a project's sessions (it is being shown expanded). */
  private wantStats(project: SessionNode): void {
    const files = new Set((project.children ?? []).map((c) => c.file));
    this.stats.want(this.sessions.filter((s) => files.has(s.file)));
  }

  getTreeItem(node: SessionNode): vscode.TreeItem {
    const item = new vscode.TreeItem(
      node.label,
      node.collapsible === 'expanded'
        ? vscode.TreeItemCollapsibleState.Expanded
        : node.collapsible === 'collapsed'
          ? vscode.TreeItemCollapsibleState.Collapsed
          : vscode.TreeItemCollapsibleState.None,
    );
    item.id = node.id;
    item.description = node.description;
    item.tooltip = node.tooltip;
    item.iconPath = new vscode.ThemeIcon(node.icon, node.color ? new vscode.ThemeColor(node.color) : undefined);
    item.contextValue = node.contextValue;
    if (node.file) {
      item.command = {
        command: CommandId.showRounds,
        title: 'Show Rounds',
        arguments: [{ file: node.file, kind: node.kind, contextValue: node.contextValue }],
      };
    }
    return item;
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.statsTimer !== undefined) this.timers.clearTimeout(this.statsTimer);
    this.live.dispose();
    for (const w of this.watchers.values()) w.close();
    for (const t of this.grown.values()) clearTimeout(t);
    for (const d of this.disposables) d.dispose();
  }
}
