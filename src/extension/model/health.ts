// Resume Health as plain data: the doctor's report of the shown transcript (computed once per analysis), the tree
// line under the header, and the diagnostics for the Problems panel. Pure: no `vscode` import.
import type { Analysis } from '../../core/analysis';
import { diagnose, type DoctorProblem, type DoctorReport } from '../../core/repair/doctor';
import { repairOutlook } from '../../core/repair/repair';
import type { TreeNodeModel } from './treeNode';
import { capabilitiesOf } from '../../core/formats/registry';
import { reachPercent } from './repairText';

const reports = new WeakMap<Analysis, DoctorReport>();

/**
 * The doctor's report of `analysis` (each analysis is diagnosed once); none where the agent's capabilities have no
 * resume health (it models Claude Code's loader).
 */
export function resumeHealthOf(analysis: Analysis): DoctorReport | undefined {
  if (!capabilitiesOf(analysis.index.format).doctor) return undefined;
  let r = reports.get(analysis);
  if (!r) reports.set(analysis, (r = diagnose(analysis.index)));
  return r;
}

const repairable = new WeakMap<Analysis, boolean>();

/** Whether Repair Session can fix anything in `analysis` (repairOutlook: the check doctor and the CLI use); asked only when it is not healthy. */
export function repairableOf(analysis: Analysis, r: DoctorReport): boolean {
  if (r.healthy) return false;
  let can = repairable.get(analysis);
  if (can === undefined) repairable.set(analysis, (can = repairOutlook(analysis.index, r).canRepair));
  return can;
}

const pct = reachPercent;

export function healthLabel(r: DoctorReport): string {
  const serious = r.problems.filter((p) => p.severity !== 'info');
  const head = `Resume Health: ${pct(r.reachability)} loaded (${r.reachableMessages}/${r.totalMessages} messages)`;
  if (r.healthy) return `${head} · healthy`;
  return `${head} · ${serious.length} problem${serious.length === 1 ? '' : 's'}${r.apiValid ? '' : ' · request invalid'}`;
}

/** `canRepair`: whether Repair Session is offered (repairableOf). */
export function healthNode(file: string, r: DoctorReport, canRepair: boolean): TreeNodeModel {
  const serious = r.problems.filter((p) => p.severity !== 'info');
  return {
    id: `${file}#resumeHealth`,
    kind: 'status',
    label: healthLabel(r),
    tooltip: [
      `What \`claude --resume\` would load: ${r.reachableMessages} of ${r.totalMessages} messages${r.boundaryLine !== null ? ` after the compact boundary at line ${r.boundaryLine}` : ''}.`,
      `Rebuilt request: ${r.apiValid ? 'valid' : 'invalid (the API would reject it)'}.`,
      ...serious.slice(0, 8).map((p) => `Line ${p.line}: ${p.detail}`),
      serious.length > 8 ? `…and ${serious.length - 8} more in the Problems panel.` : '',
      r.healthy
        ? ''
        : canRepair
          ? 'Repair Session links broken parents into a fork.'
          : 'None of these is one Repair Session can fix.',
    ]
      .filter(Boolean)
      .join('\n'),
    icon: r.healthy ? 'pass' : r.problems.some((p) => p.severity === 'error') ? 'error' : 'warning',
    color: r.healthy
      ? 'testing.iconPassed'
      : r.problems.some((p) => p.severity === 'error')
        ? 'problemsErrorIcon.foreground'
        : 'problemsWarningIcon.foreground',
    // The Repair action is shown on 'resumeHealth.repairable' only.
    contextValue: r.healthy ? 'resumeHealth' : canRepair ? 'resumeHealth.repairable' : 'resumeHealth.problems',
    collapsible: 'none',
    command: serious.length
      ? { command: 'workbench.actions.view.problems', title: 'Show Problems', args: [] }
      : undefined,
    file,
    line: serious[0]?.line,
  };
}

export interface HealthDiagnostic {
  /** 0-based line. */
  line: number;
  severity: 'error' | 'warning' | 'hint';
  message: string;
  code: DoctorProblem['kind'];
}

/** One diagnostic per problem at its line; notes (info) become hints, which stay out of the Problems panel. */
export function healthDiagnostics(r: DoctorReport): HealthDiagnostic[] {
  return r.problems.map((p) => ({
    line: Math.max(0, p.line - 1),
    severity: p.severity === 'info' ? 'hint' : p.severity,
    message: `Resume: ${p.detail}`,
    code: p.kind,
  }));
}
