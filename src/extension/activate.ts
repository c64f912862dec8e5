// Extension entry point: creates the services, registers views and commands, returns the test API.
import * as vscode from 'vscode';
import { createApi, type AgentCompactorApi } from './api';
import { BudgetPanel } from './budgetPanel';
import { registerCommands } from './commands';
import { ContextMapPanels } from './contextMapPanel';
import { Log } from './log';
import { Secrets } from './secrets';
import type { Services } from './services';
import { TranscriptStore } from './store';
import { PlanDecorations } from './views/decorations';
import { trackActiveEditor } from './views/editorTracker';
import { RoundsTreeProvider, createRoundsViews } from './views/roundsTree';
import { ContextStatusBar } from './views/statusBar';

export function activate(context: vscode.ExtensionContext): AgentCompactorApi {
  const log = new Log();
  const store = new TranscriptStore(log);
  const tree = new RoundsTreeProvider(store);
  const s: Services = {
    context, log, store, tree,
    secrets: new Secrets(context.secrets, log),
    decorations: new PlanDecorations(store, context.extensionUri),
    budget: new BudgetPanel(store, context.extensionUri, log),
    maps: new ContextMapPanels(store, context.extensionUri, log),
    status: new ContextStatusBar(store),
  };
  context.subscriptions.push(log, store, tree, s.secrets, s.decorations, s.budget, s.maps, s.status);
  context.subscriptions.push(...createRoundsViews(store, tree), ...registerCommands(s), ...trackActiveEditor(store));
  log.info(`Agent Compactor activated (VS Code ${vscode.version}, workspace ${vscode.workspace.isTrusted ? 'trusted' : 'restricted'})`);
  return createApi(s);
}

export function deactivate(): void {}
