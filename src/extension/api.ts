// The API other extensions get from `vscode.extensions.getExtension('agent-compactor.agent-compactor').exports`
// (documented in docs/API.md). It describes the transcript the views show, as data: no UI is scraped through it.
// Versioned: fields are only ever added within a version; `version` changes when one is removed or changes meaning.
import type * as vscode from 'vscode';
import type { Analysis } from '../core/analysis';
import type { DoctorReport } from '../core/repair/doctor';
import type { SessionNode } from './model/sessionsTree';
import type { CompactionPlan, CompactResult } from '../core/compact/types';
import type { MapSnapshot } from './contextMapPanel';
import type { TreeSnapshot } from './model/tree';
import type { Services } from './services';
import type { StoreState } from './store';

export const API_VERSION = 1;

export interface AgentCompactorApi {
  readonly version: typeof API_VERSION;
  /** 'empty' | 'loading' | 'ready' | 'error', with the file and, for errors or a failed plan, the message. */
  getState(): { status: StoreState['status']; file?: string; message?: string };
  /** The transcript the views show (follows the active `.jsonl` editor and Open Transcript). */
  getCurrentFile(): string | undefined;
  /** Its analysis: index, chain, rounds and the inspect report (as `agent-compactor inspect --json` prints it). */
  getAnalysis(): Analysis | undefined;
  /** The Rounds tree as plain data (labels, descriptions, tooltips as text), children expanded to `depth` (default 1). */
  getRoundsTree(depth?: number): TreeSnapshot[];
  /** The compaction plan being previewed (null: no preview). */
  getLastPlan(): CompactionPlan | null;
  /** The result of the last compaction run in this window. */
  getLastResult(): CompactResult | undefined;
  /** The doctor's report of the shown transcript (what `agent-compactor doctor --json` prints), as Resume Health shows it. */
  getResumeHealth(): DoctorReport | undefined;
  /** The Sessions view as plain data: projects with their sessions. */
  getSessionsTree(): SessionNode[];
  /** The session being written now in the workspace's project, as the live status item shows it (undefined: none). */
  getLiveStatusText(): string | undefined;
  /** The context status bar item's tooltip as text (undefined while no transcript is shown). */
  getStatusBarTooltip(): string | undefined;
  /** Resolves after the Sessions view's next scan of the sessions folders. */
  whenSessionsScanned(): Promise<void>;
  /** What the Context Map of `file` (default: the shown transcript) shows now; undefined when it is closed. */
  getContextMap(file?: string): MapSnapshot | undefined;
  /** Shows a transcript in the views (like Open Transcript with `{ file }`); false when it cannot be read. */
  load(file: string): Promise<boolean>;
  /** Re-reads the shown transcript (appended bytes only unless `full`). */
  refresh(full?: boolean): Promise<void>;
  /** Resolves when queued loads, refreshes and plans have finished. */
  whenIdle(): Promise<void>;
  /** Fires after every change of the shown transcript's state. */
  onDidChange: vscode.Event<StoreState>;
}

export function createApi(s: Services): AgentCompactorApi {
  return {
    version: API_VERSION,
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
    getResumeHealth: () => s.health.current,
    getSessionsTree: () => s.sessions.snapshot(),
    getLiveStatusText: () => s.live.text,
    getStatusBarTooltip: () => s.status.tooltipText,
    whenSessionsScanned: () =>
      new Promise<void>((resolve) => {
        const d = s.sessions.onDidScan(() => {
          d.dispose();
          resolve();
        });
      }),
    getContextMap: (file) => s.maps.snapshot(file),
    load: async (file) => !!(await s.store.load(file)),
    refresh: async (full) => {
      await s.store.refresh(full);
    },
    whenIdle: () => s.store.whenIdle(),
    onDidChange: s.store.onDidChange,
  };
}
