// `agent-compactor doctor <file> [--json]`: what `claude --resume` would load, and why it would load less.
import type { DoctorReport } from '../core/repair/doctor';
import { repairOutlook } from '../core/repair/repair';
import { readSessionIndex } from '../core/inspect';
import { EXIT_FAILURE, EXIT_OK, onePositional, readableTranscript, shown, UsageError } from './args';
import { unsupported } from '../core/formats/registry';
import { printJson, printOut, sanitizeForTerminal } from './format';
import { bool, HELP_OPTION, JSON_OPTION, SIZE_NOTE, type Values, type VerbSpec } from './options';

export const doctorVerb: VerbSpec = {
  name: 'doctor',
  args: '<file>',
  summary:
    'What Claude Code would load on resume, and every broken link, orphan or dead end that makes it load less; reads only.',
  options: [JSON_OPTION, HELP_OPTION],
  notes: [
    'Exit 0 when healthy, 1 when problems were found (the last line says whether `agent-compactor repair` can fix them; --json: repairable), 2 on unusable input or a session of an agent doctor does not model (it checks Claude Code transcripts; other agents exit 2 with the reason).',
    SIZE_NOTE,
  ],
  run: runDoctor,
};

export async function runDoctor(values: Values, positionals: string[]): Promise<number> {
  const file = await readableTranscript(onePositional(positionals, 'doctor'));
  const index = await readSessionIndex(file);
  const refusal = unsupported(index.format, 'doctor');
  if (refusal) throw new UsageError(`doctor: ${shown(file)}: ${refusal}`);
  const { before: report, canRepair, reason } = repairOutlook(index);
  const repair = { repairable: canRepair, notRepairable: reason };
  if (bool(values, 'json')) printJson(JSON.stringify({ ...report, ...repair }, null, 2) + '\n');
  else printOut(renderDoctor(report, repair));
  return report.healthy ? EXIT_OK : EXIT_FAILURE;
}

const pct = (x: number) => `${(Math.floor(x * 1000) / 10).toFixed(1)}%`;

/** `repair`: whether `agent-compactor repair` can fix any of it (repairOutlook), and why not. */
export function renderDoctor(r: DoctorReport, repair: { repairable: boolean; notRepairable: string | null }): string {
  const out: string[] = [];
  out.push(`${sanitizeForTerminal(r.file)}`);
  out.push(
    `resume loads ${r.reachableMessages} of ${r.totalMessages} messages (${pct(r.reachability)}), ${r.reachableEntries} of ${r.totalEntries} entries` +
      (r.boundaryLine !== null ? ` after the compact boundary at line ${r.boundaryLine}` : '') +
      (r.leafLine !== null ? `; from the leaf at line ${r.leafLine}` : ''),
  );
  out.push(`rebuilt request: ${r.apiValid ? 'valid' : 'INVALID (the API would reject it)'}`);
  const shown = r.problems.filter((p) => p.severity !== 'info');
  const info = r.problems.length - shown.length;
  for (const p of shown) out.push(`line ${p.line}: ${p.severity} ${p.kind}: ${sanitizeForTerminal(p.detail)}`);
  if (info) {
    const kinds = new Map<string, number>();
    for (const p of r.problems) if (p.severity === 'info') kinds.set(p.kind, (kinds.get(p.kind) ?? 0) + 1);
    out.push(`notes: ${[...kinds].map(([k, n]) => `${n} ${k}`).join(', ')} (see --json)`);
  }
  const problems = `${shown.length} problem${shown.length === 1 ? '' : 's'}`;
  out.push(
    r.healthy
      ? 'healthy'
      : repair.repairable
        ? `${problems}; \`agent-compactor repair\` bridges broken links into a fork`
        : `${problems}; none of them is one \`agent-compactor repair\` can fix (${repair.notRepairable})`,
  );
  return out.join('\n') + '\n';
}
