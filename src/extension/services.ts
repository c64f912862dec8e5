// The services every command and view shares, created once in activate().
import type * as vscode from 'vscode';
import type { BudgetPanel } from './budgetPanel';
import type { ContextMapPanels } from './contextMapPanel';
import type { Log } from './log';
import type { Secrets } from './secrets';
import type { TranscriptStore } from './store';
import type { PlanDecorations } from './views/decorations';
import type { RoundsTreeProvider } from './views/roundsTree';
import type { ContextStatusBar } from './views/statusBar';
import type { ResumeHealthDiagnostics } from './views/health';
import type { SessionsView } from './views/sessionsView';
import type { LiveSessionStatus } from './views/liveStatus';

export interface Services {
  context: vscode.ExtensionContext;
  log: Log;
  secrets: Secrets;
  store: TranscriptStore;
  tree: RoundsTreeProvider;
  decorations: PlanDecorations;
  budget: BudgetPanel;
  maps: ContextMapPanels;
  status: ContextStatusBar;
  health: ResumeHealthDiagnostics;
  sessions: SessionsView;
  live: LiveSessionStatus;
}
