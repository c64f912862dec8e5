// `agent-compactor repair <file> [--out FILE | --in-place]`: links every broken parent and turns tool results whose call
// is gone into text, so that resume loads the whole active context; writes a fork by default.
import { repairFile, resumeStillBroken, type RepairResult } from '../core/repair';
import { CompactError } from '../core/compact/types';
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE, onePositional, readableTranscript, UsageError } from './args';
import { printErr, printJson, printOut, sanitizeForTerminal } from './format';
import { bool, HELP_OPTION, JSON_OPTION, SIZE_NOTE, str, type Values, type VerbSpec } from './options';

export const repairVerb: VerbSpec = {
  name: 'repair',
  args: '<file>',
  summary:
    'Links each dangling parentUuid to the entry before it on the same line of work and turns each tool result whose call is gone into a text block saying so, so resume loads every message again; every other line stays byte-identical.',
  options: [
    {
      flag: 'out',
      type: 'string',
      value: 'FILE',
      help: 'write the repaired transcript to FILE (must not exist)',
      default: 'a fork: a new session <uuid>.jsonl beside the original',
    },
    {
      flag: 'in-place',
      type: 'boolean',
      help: 'replace the original, after a backup beside it (<file>.bak-<time>)',
      default: 'off: a fork',
    },
    JSON_OPTION,
    HELP_OPTION,
  ],
  notes: [
    'Exit 0 when resume loads the transcript whole and valid afterwards (repaired, or nothing needed repair), 1 when problems remain (including ones repair cannot fix, such as a uuid written twice) or the file changed while it was read, 2 on unusable input or a session of an agent repair does not mend (it relinks Claude Code transcripts; other agents exit 2 with the reason).',
    SIZE_NOTE,
  ],
  run: runRepair,
};

export async function runRepair(values: Values, positionals: string[]): Promise<number> {
  const file = await readableTranscript(onePositional(positionals, 'repair'));
  const out = str(values, 'out');
  const inPlace = bool(values, 'in-place');
  if (out !== undefined && inPlace) throw new UsageError('repair: give --out or --in-place, not both');
  let result: RepairResult;
  try {
    result = await repairFile(file, { out, inPlace });
  } catch (err) {
    if (err instanceof CompactError) {
      printErr(`agent-compactor: ${sanitizeForTerminal(err.message)}\n`);
      return err.code === 'exists' || err.code === 'unsafe-path' || err.code === 'unsupported-format'
        ? EXIT_USAGE
        : EXIT_FAILURE;
    }
    throw err;
  }
  if (bool(values, 'json')) printJson(JSON.stringify(result, null, 2) + '\n');
  else printOut(renderRepair(result));
  return resumeStillBroken(result.after) ? EXIT_FAILURE : EXIT_OK;
}

export function renderRepair(r: RepairResult): string {
  const out: string[] = [];
  const pct = (x: number) => `${(Math.floor(x * 1000) / 10).toFixed(1)}%`;
  if (r.notRepaired) out.push(`nothing to repair: ${r.notRepaired}`);
  for (const c of r.converted)
    out.push(`line ${c.line}: tool_result ${c.toolIds.join(', ')} -> text block (${c.reason})`);
  for (const c of r.changes)
    out.push(`line ${c.line}: parentUuid ${c.from ?? 'null'} -> ${c.to} (line ${c.toLine}: ${c.reason})`);
  for (const s of r.skipped) out.push(`line ${s.line}: left as it is: ${s.reason}`);
  out.push(
    `resume loads ${r.before.reachableMessages} of ${r.before.totalMessages} messages (${pct(r.before.reachability)}) before, ${r.after.reachableMessages} of ${r.after.totalMessages} (${pct(r.after.reachability)}) after; rebuilt request ${r.after.apiValid ? 'valid' : 'INVALID'}`,
  );
  if (!r.output && resumeStillBroken(r.after))
    out.push(
      `what resume still loses or breaks is not something repair can fix: ${[...new Set(r.after.problems.filter((p) => p.severity === 'error').map((p) => p.kind))].join(', ') || 'the rebuilt request'} (see \`agent-compactor doctor\`)`,
    );
  if (r.output)
    out.push(
      `wrote ${sanitizeForTerminal(r.output)} (${r.mode}${r.backup ? `; backup ${sanitizeForTerminal(r.backup)}` : ''})`,
    );
  for (const n of r.notes) out.push(`note: ${sanitizeForTerminal(n)}`);
  if (r.resumeCommand) out.push(`resume: ${sanitizeForTerminal(r.resumeCommand)}`);
  return out.join('\n') + '\n';
}
