// `agent-compactor inspect <file> [--json]`: rounds, token figures and totals.
import { inspectFile, type InspectReport } from '../core/inspect';
import { onePositional, readableTranscript } from './args';
import { formatTokens, sanitizeForTerminal, table, truncate } from './format';
import { bool, HELP_OPTION, JSON_OPTION, type Values, type VerbSpec } from './options';

export const inspectVerb: VerbSpec = {
  name: 'inspect',
  args: '<file>',
  summary: 'Rounds, token figures and totals of a transcript; reads only, sends nothing.',
  options: [JSON_OPTION, HELP_OPTION],
  run: runInspect,
};

export async function runInspect(values: Values, positionals: string[]): Promise<number> {
  const file = await readableTranscript(onePositional(positionals, 'inspect'));
  const showProgress = process.stderr.isTTY === true;
  const analysis = await inspectFile(file, {
    onProgress: showProgress ? (read, total) => process.stderr.write(`\rreading ${Math.round((100 * read) / total)}%`) : undefined,
  });
  if (showProgress) process.stderr.write('\r\x1b[K');
  const report = analysis.report;
  process.stdout.write(bool(values, 'json') ? JSON.stringify(report, null, 2) + '\n' : renderReport(report));
  return 0;
}

export function renderReport(report: InspectReport): string {
  const rows = report.rounds.map((r) => [
    String(r.index) + (r.inContext ? '' : ' (hist)'),
    r.firstLine === r.lastLine ? String(r.firstLine) : `${r.firstLine}-${r.lastLine}`,
    truncate(r.model ?? '-', 18),
    truncate(sanitizeForTerminal(r.startsAtBoundary ? '── compact boundary ──' : r.label), 44),
    `${formatTokens(r.tokens.added)} ${r.tokens.source === 'usage' ? 'usage' : 'est'}`,
    `${formatTokens(r.cumulative.tokens)} ${r.cumulative.source === 'usage' ? 'usage' : 'est'}`,
  ]);
  const t = report.totals;
  const out: string[] = [];
  const agent = `${report.format.agent}${report.format.version ? ` ${report.format.version}` : ''}${report.format.container === 'json' ? ', one JSON document' : ''}`;
  out.push(`${report.file} (${sanitizeForTerminal(agent)}): ${report.lines} lines, ${(report.bytes / 1e6).toFixed(2)} MB${report.subagentFile ? ' (subagent transcript)' : ''}`);
  out.push('');
  out.push(table(['round', 'lines', 'model', 'what', 'adds', 'context'], rows, new Set([4, 5])));
  out.push('');
  out.push(
    `${t.rounds} rounds (${t.activeRounds} in the active context), ${t.toolUses} tool calls, ` +
      `${formatTokens(t.toolResultChars)} chars of tool results`,
  );
  out.push(
    `context now: ${formatTokens(t.currentContextTokens)} tokens (${t.currentContextSource})` +
      (t.contextTokens !== null ? `; newest request by usage: ${formatTokens(t.contextTokens)}` : '; no usage in the active context') +
      `; estimate calibration ×${t.calibrationFactor} from ${t.calibrationSamples} rounds`,
  );
  if (report.compactBoundaries.length) out.push(`compact boundaries at lines ${report.compactBoundaries.map((b) => b.line).join(', ')}`);
  for (const s of report.sidechains) {
    out.push(`sidechain ${s.id} (${s.source}${s.file ? `: ${s.file}` : ''}): ${s.lines} lines, ${s.rounds} rounds, context ${formatTokens(s.contextTokens)}`);
  }
  for (const m of report.malformed) out.push(`malformed line ${m.line}: ${m.error}`);
  for (const n of report.chainNotes) out.push(`note: ${n}`);
  return out.join('\n') + '\n';
}
