// Resume Health diagnostics: the doctor's problems of the shown transcript in the Problems panel, at their lines,
// kept up to date as the store re-reads the file (a live session included).
import * as vscode from 'vscode';
import { healthDiagnostics, resumeHealthOf } from '../model/health';
import type { DoctorReport } from '../../core/doctor';
import type { TranscriptStore } from '../store';

const SEVERITY = { error: vscode.DiagnosticSeverity.Error, warning: vscode.DiagnosticSeverity.Warning, hint: vscode.DiagnosticSeverity.Hint } as const;

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
      if (st.status !== 'ready') return;
      const report = resumeHealthOf(st.analysis);
      this.current = report;
      if (!report) return;
      const diagnostics = healthDiagnostics(report).map((d) => {
        const diag = new vscode.Diagnostic(new vscode.Range(d.line, 0, d.line, Number.MAX_SAFE_INTEGER), d.message, SEVERITY[d.severity]);
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
