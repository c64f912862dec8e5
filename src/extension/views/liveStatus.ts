// The session being written now in the workspace's project: its context fill in the status bar, updated as lines are
// appended (only the ends of the file are read), and, before Claude Code's auto-compaction, an offer to compact it
// now with a preview (a fork), then resume it. Nothing is written while the file still grows: it waits until it settles.
import * as vscode from 'vscode';
import { stat } from 'node:fs/promises';
import type { SessionSummary } from '../../core/sessionList';
import { liveStatus, SETTLED_MS, untilSettled, type LiveStatus } from '../model/liveStatus';
import type { SessionsView } from './sessionsView';
import { CommandId } from '../commandIds';
import { sessionStats } from '../../core/sessionStats';
import { CacheExpiryNotices } from '../model/cacheExpiryNotice';
import { realTimers } from '../model/liveMarks';
import { costSettings, SECTION } from '../settings';

export class LiveSessionStatus implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem(
    'agentCompactor.liveSession',
    vscode.StatusBarAlignment.Right,
    99,
  );
  private readonly subscriptions: vscode.Disposable[];
  private readonly offered = new Set<string>();
  /** The cache-expiry notices (setting `cacheExpiryNotice`); a pending one outlives the session's live mark. */
  private readonly notices = new CacheExpiryNotices(
    realTimers,
    (_, text) => void vscode.window.showInformationMessage(text),
  );
  /** The file state (size:mtime) whose cache was last read for the notice, so a quiet file is read once. */
  private readFor = '';
  private readTimer: ReturnType<typeof setTimeout> | undefined;
  /** The session shown (undefined: none is being written in the workspace's project). */
  session: SessionSummary | undefined;

  constructor(private readonly sessions: SessionsView) {
    this.item.name = 'Agent Compactor: live session';
    this.subscriptions = [sessions.onDidScan(() => this.update()), sessions.onDidReadFigures(() => this.update())];
    this.update();
  }

  get text(): string | undefined {
    return this.session ? this.item.text : undefined;
  }

  private update(): void {
    const project = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    // The live session of the project whose context the list measures (another agent's, with no figure, is passed by);
    // the row's figure and limits (one route in core), not a figure of its own.
    const live = project
      ? this.sessions.all.find((s) => s.cwd === project && s.live && this.sessions.contextOf(s).tokens !== null)
      : undefined;
    const status = live ? liveStatus(live, this.sessions.contextOf(live)) : null;
    this.session = status ? live : undefined;
    if (!live || !status) {
      this.item.hide();
      return;
    }
    this.item.text = status.text;
    this.item.tooltip = status.tooltip;
    this.item.accessibilityInformation = { label: status.accessibilityLabel };
    this.item.backgroundColor =
      status.level === 'alert'
        ? new vscode.ThemeColor('statusBarItem.errorBackground')
        : status.level === 'warning'
          ? new vscode.ThemeColor('statusBarItem.warningBackground')
          : undefined;
    this.item.command = {
      command: CommandId.showRounds,
      title: 'Show Rounds',
      arguments: [{ file: live.file, kind: 'session', contextValue: 'session.live' }],
    };
    this.item.show();
    // Read once the agent's turn has settled (by the file's own modification time), not on every append of a growing
    // file.
    clearTimeout(this.readTimer);
    this.readTimer = setTimeout(() => void this.watchCache(live), untilSettled(live.mtimeMs, Date.now()));
    if (status.level !== 'normal' && !this.offered.has(live.file)) {
      this.offered.add(live.file);
      void this.offer(live, status);
    }
  }

  private async offer(s: SessionSummary, status: LiveStatus): Promise<void> {
    const choice = await vscode.window.showWarningMessage(status.offer, 'Compact Now');
    if (choice !== 'Compact Now') return;
    await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: status.waiting,
        cancellable: true,
      },
      (_, token) => settled(s.file, token),
    );
    await vscode.commands.executeCommand(CommandId.compact, vscode.Uri.file(s.file));
  }

  /** With the notice on, reads the live session's cache state (the whole file, once per size and mtime) and watches it. */
  private async watchCache(live: SessionSummary): Promise<void> {
    const config = vscode.workspace.getConfiguration(SECTION, vscode.Uri.file(live.file));
    if (!config.get<boolean>('cacheExpiryNotice', false)) return;
    const key = `${live.file}:${live.size}:${live.mtimeMs}`;
    if (key === this.readFor) return;
    this.readFor = key;
    try {
      const { prices, targetTokens } = costSettings(live.file);
      const stats = await sessionStats(live.file, prices, Date.now(), targetTokens);
      this.notices.watch({
        file: live.file,
        title: live.title,
        cache: stats.cache,
        contextTokens: stats.contextTokens,
        expiredResume: stats.expiredResume,
      });
    } catch {
      // A file being written may end mid-line or vanish; the next scan reads it again.
      this.readFor = '';
    }
  }

  dispose(): void {
    clearTimeout(this.readTimer);
    this.notices.dispose();
    for (const d of this.subscriptions) d.dispose();
    this.item.dispose();
  }
}

/** Resolves once `file` has not changed for SETTLED_MS (or on cancellation). */
async function settled(file: string, token: vscode.CancellationToken): Promise<void> {
  for (;;) {
    const before = await stat(file);
    await new Promise((r) => setTimeout(r, 1000));
    if (token.isCancellationRequested) return;
    const now = await stat(file);
    if (now.size === before.size && Date.now() - now.mtimeMs >= SETTLED_MS) return;
  }
}
