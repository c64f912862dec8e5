// Resume Health diagnostics: the doctor's problems of the shown transcript in the Problems panel, at their lines,
// kept up to date as the store re-reads the file (a live session included); and the context key that offers Repair
// Session (palette) only for a transcript whose problems core's repair outlook says it can fix.
import * as vscode from 'vscode';
import { ContextKey } from '../contextKeys';
import { setContext } from '../setContext';
import { healthDiagnostics, repairableOf, resumeHealthOf } from '../model/health';
import type { DoctorReport } from '../../core/repair/doctor';
import type { TranscriptStore } from '../store';

const SEVERITY = {
  error: vscode.DiagnosticSeverity.Error,
  warning: vscode.DiagnosticSeverity.Warning,
  hint: vscode.DiagnosticSeverity.Hint,
} as const;

export class ResumeHealthDiagnostics implements vscode.Disposable {
  private readonly collection = vscode.languages.createDiagnosticCollection('agentCompactor.resumeHealth');
  private readonly subscription: vscode.Disposable;
  /** The report the diagnostics show (undefined: nothing shown). */
  current: DoctorReport | undefined;

  constructor(store: TranscriptStore) {
    this.subscription = store.onDidChange((st) => {
      if (st.status === 'loading') return;
      this.collection.clear();
      this.current = undefined;
      const report = st.status === 'ready' ? resumeHealthOf(st.analysis) : undefined;
      void setContext(
        ContextKey.canRepair,
        st.status === 'ready' && report !== undefined && repairableOf(st.analysis, report),
      );
      if (st.status !== 'ready') return;
      this.current = report;
      if (!report) return;
      const diagnostics = healthDiagnostics(report).map((d) => {
        const diag = new vscode.Diagnostic(
          new vscode.Range(d.line, 0, d.line, Number.MAX_SAFE_INTEGER),
          d.message,
          SEVERITY[d.severity],
        );
        diag.source = 'Agent Compactor';
        diag.code = d.code;
        return diag;
      });
      this.collection.set(vscode.Uri.file(st.file), diagnostics);
    });
  }

  dispose(): void {
    this.subscription.dispose();
    this.collection.dispose();
  }
}
