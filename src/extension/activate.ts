// Extension entry point: creates the services, registers views and commands, returns the public API (docs/API.md).
import * as vscode from 'vscode';
import { dirname } from 'node:path';
import { createApi, type AgentCompactorApi } from './api';
import { BudgetPanel } from './budgetPanel';
import { registerCommands } from './commands';
import { compactTranscript } from './commands/compact';
import { revealInTranscript } from './commands/reveal';
import type { PanelActions } from './panelActions';
import { ContextMapPanels } from './contextMapPanel';
import { Log } from './log';
import { Secrets } from './secrets';
import type { Services } from './services';
import { TranscriptStore } from './store';
import { PlanDecorations } from './views/decorations';
import { trackActiveEditor } from './views/editorTracker';
import { registerReviewUi } from './commands/review';
import { trackBackups } from './views/backupContext';
import { registerRoundDocuments } from './views/roundDocuments';
import { RoundsTreeProvider, createRoundsViews } from './views/roundsTree';
import { ContextStatusBar } from './views/statusBar';
import { registerConversationDocuments } from './views/conversation';
import { ResumeHealthDiagnostics } from './views/health';
import { SessionsView } from './views/sessionsView';
import { realTimers } from './model/liveMarks';
import { LiveSessionStatus } from './views/liveStatus';

export function activate(context: vscode.ExtensionContext): AgentCompactorApi {
  const log = new Log();
  const store = new TranscriptStore(log);
  const tree = new RoundsTreeProvider(store);
  // Cline's and Roo Code's tasks are in VS Code's global storage, beside this extension's own folder there.
  const sessions = new SessionsView(realTimers, dirname(context.globalStorageUri.fsPath));
  // The panels' links and buttons call the commands' own functions (with the services, once made).
  const actions: PanelActions = {
    reveal: (target, how) => revealInTranscript(s, target, how),
    compact: (file) => compactTranscript(s, file),
  };
  const s: Services = {
    context,
    log,
    store,
    tree,
    secrets: new Secrets(context.secrets, log),
    decorations: new PlanDecorations(store, context.extensionUri),
    budget: new BudgetPanel(store, context.extensionUri, log, actions),
    maps: new ContextMapPanels(store, context.extensionUri, log, actions),
    status: new ContextStatusBar(store),
    health: new ResumeHealthDiagnostics(store),
    sessions,
    live: new LiveSessionStatus(sessions),
  };
  context.subscriptions.push(
    log,
    store,
    tree,
    s.secrets,
    s.decorations,
    s.budget,
    s.maps,
    s.status,
    s.health,
    s.sessions,
    s.live,
  );
  context.subscriptions.push(
    ...createRoundsViews(store, tree, context.workspaceState),
    ...registerCommands(s),
    ...trackActiveEditor(store),
    registerRoundDocuments(store),
    ...trackBackups(store),
    registerConversationDocuments(),
    ...registerReviewUi(),
  );
  log.info(
    `Agent Compactor activated (VS Code ${vscode.version}, workspace ${vscode.workspace.isTrusted ? 'trusted' : 'restricted'})`,
  );
  return createApi(s);
}

export function deactivate(): void {}
