// `agent-compactor repair <file> [--out FILE | --in-place]`: links every broken parent and turns tool results whose call
// is gone into text, so that resume loads the whole active context; writes a fork by default.
import { repairFile, resumeStillBroken, type RepairResult } from '../core/repair/repair';
import { CompactError } from '../core/compact/types';
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE, onePositional, readableTranscript, UsageError } from './args';
import { printErr, printJson, printOut, sanitizeForTerminal } from './format';
import { bool, HELP_OPTION, JSON_OPTION, SIZE_NOTE, str, type Values, type VerbSpec } from './options';

/** Up to this many changes are listed one a line; a repair of more lists the first few of each kind and counts the rest. */
const LISTED_CHANGES = 20;
/** Of each kind, when summarized. */
const LISTED_PER_KIND = 5;

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
    {
      flag: 'verbose',
      type: 'boolean',
      help: `list every change (by default a repair of more than ${LISTED_CHANGES} changes lists the first few of each kind and counts the rest)`,
      default: 'off',
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
  else printOut(renderRepair(result, bool(values, 'verbose')));
  return resumeStillBroken(result.after) ? EXIT_FAILURE : EXIT_OK;
}

export function renderRepair(r: RepairResult, verbose = false): string {
  const out: string[] = [];
  const pct = (x: number) => `${(Math.floor(x * 1000) / 10).toFixed(1)}%`;
  if (r.notRepaired) out.push(`nothing to repair: ${r.notRepaired}`);
  const kinds: [string, string[]][] = [
    [
      'tool results turned into text',
      r.converted.map((c) => `line ${c.line}: tool_result ${c.toolIds.join(', ')} -> text block (${c.reason})`),
    ],
    [
      'parent links changed',
      r.changes.map((c) => `line ${c.line}: parentUuid ${c.from ?? 'null'} -> ${c.to} (line ${c.toLine}: ${c.reason})`),
    ],
    ['lines left as they are', r.skipped.map((s) => `line ${s.line}: left as it is: ${s.reason}`)],
  ];
  const total = kinds.reduce((n, [, lines]) => n + lines.length, 0);
  // Thousands of changes would scroll the outcome off the screen: the first few of each kind, and how many in all.
  const summarize = !verbose && total > LISTED_CHANGES;
  for (const [kind, lines] of kinds) {
    if (!lines.length) continue;
    if (summarize) out.push(`${lines.length} ${kind}${lines.length > LISTED_PER_KIND ? ', the first:' : ':'}`);
    for (const line of summarize ? lines.slice(0, LISTED_PER_KIND) : lines) out.push(summarize ? `  ${line}` : line);
    if (summarize && lines.length > LISTED_PER_KIND) out.push(`  … and ${lines.length - LISTED_PER_KIND} more`);
  }
  if (summarize) out.push(`${total} changes in all (every one: --verbose or --json)`);
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
