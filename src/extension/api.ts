// The API returned by activate(): lets host tests (and other extensions) read what the
// views show without scraping the UI. Reach it with
// `vscode.extensions.getExtension('agent-compactor.agent-compactor').exports`.
import type * as vscode from 'vscode';
import type { Analysis } from '../core/inspect';
import type { CompactionPlan, CompactResult } from '../core/compact/types';
import type { BudgetState, HostToWebview, WebviewToHost } from '../webview/protocol';
import type { MapSnapshot } from './contextMapPanel';
import type { TreeSnapshot } from './model/tree';
import type { AppliedDecorations } from './views/decorations';
import type { Services } from './services';
import type { StoreState } from './store';

export interface AgentCompactorApi {
  /** 'empty' | 'loading' | 'ready' | 'error', with the file and error message. */
  getState(): { status: StoreState['status']; file?: string; message?: string };
  getCurrentFile(): string | undefined;
  getAnalysis(): Analysis | undefined;
  /** The Rounds tree as plain data, children expanded to `depth` (default 1). */
  getRoundsTree(depth?: number): TreeSnapshot[];
  /** The plan shown in the tree and editor (null: no preview). */
  getLastPlan(): CompactionPlan | null;
  getLastResult(): CompactResult | undefined;
  /** Line runs decorated per action, and in how many editors. */
  getDecorations(): AppliedDecorations | undefined;
  /** The state last posted to the Budget Preview (undefined: closed or nothing to show). */
  getBudgetState(): BudgetState | undefined;
  getBudgetMessage(): HostToWebview | undefined;
  /** Validated messages the Budget Preview webview sent, oldest first. */
  getBudgetMessagesReceived(): WebviewToHost[];
  isBudgetOpen(): boolean;
  /** What the Context Map of `file` (default: the shown transcript) last showed, and the messages its webview sent; undefined when closed. */
  getContextMap(file?: string): MapSnapshot | undefined;
  getStatusBarText(): string | undefined;
  /** Shows a transcript's rounds (like Open Transcript with `{ file }`). */
  load(file: string): Promise<boolean>;
  /** Re-reads the shown transcript (appended bytes only unless `full`). */
  refresh(full?: boolean): Promise<void>;
  /** Resolves when queued loads, refreshes and plans have finished. */
  whenIdle(): Promise<void>;
  /** Fires after every state change of the shown transcript. */
  onDidChange: vscode.Event<StoreState>;
}

export function createApi(s: Services): AgentCompactorApi {
  return {
    getState: () => {
      const st = s.store.state;
      if (st.status === 'empty') return { status: 'empty' };
      if (st.status === 'ready') return { status: 'ready', file: st.file, message: st.planError };
      return { status: st.status, file: st.file, message: st.message };
    },
    getCurrentFile: () => s.store.file,
    getAnalysis: () => s.store.analysis,
    getRoundsTree: (depth = 1) => s.tree.snapshot(depth),
    getLastPlan: () => s.store.plan,
    getLastResult: () => s.store.lastResult,
    getDecorations: () => s.decorations.current,
    getBudgetState: () => s.budget.state,
    getBudgetMessage: () => s.budget.lastMessage,
    getBudgetMessagesReceived: () => [...s.budget.received],
    isBudgetOpen: () => s.budget.isOpen,
    getContextMap: (file) => s.maps.snapshot(file),
    getStatusBarText: () => s.status.text,
    load: async (file) => !!(await s.store.load(file)),
    refresh: async (full) => {
      await s.store.refresh(full);
    },
    whenIdle: () => s.store.whenIdle(),
    onDidChange: s.store.onDidChange,
  };
}
