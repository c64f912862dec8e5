// One table per verb: the parser's options and the help text are both made from it, so they cannot drift.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { MAX_TRANSCRIPT_LINES, MAX_TRANSCRIPT_RECORDS } from '../core/transcript';
import { UsageError } from './args';

export interface OptionSpec {
  /** Long name, without the dashes. */
  flag: string;
  short?: string;
  type: 'string' | 'boolean';
  /** May be given more than once. */
  multiple?: boolean;
  /** Placeholder for the value in the help (string options). */
  value?: string;
  /** One line: what it does. */
  help: string;
  /** One line: what happens without it. */
  default?: string;
}

export type Values = Record<string, string | boolean | string[] | undefined>;

export interface VerbSpec {
  name: string;
  /** Positional arguments, as shown in the usage line. */
  args: string;
  summary: string;
  options: readonly OptionSpec[];
  /** Extra lines after the options. */
  notes?: readonly string[];
  run(values: Values, positionals: string[]): Promise<number>;
}

export const HELP_OPTION: OptionSpec = { flag: 'help', short: 'h', type: 'boolean', help: 'print this help and exit' };
export const JSON_OPTION: OptionSpec = {
  flag: 'json',
  type: 'boolean',
  help: 'print the result as JSON on stdout instead of text',
  default: 'text',
};

export const EXIT_CODES: readonly [string, string][] = [
  ['0', 'success (also when there is nothing to compact)'],
  [
    '1',
    'failure (e.g. the API rejected the key, the file changed while it was being compacted, or a file could not be written)',
  ],
  [
    '2',
    'unusable input or arguments (a missing, unreadable, non-transcript or too large file, a folder, a bad option, an existing output, the original named as the output)',
  ],
  ['130', 'cancelled (Ctrl-C, SIGINT); nothing was written'],
];

export function parseConfig(options: readonly OptionSpec[]): NonNullable<ParseArgsConfig['options']> {
  const config: NonNullable<ParseArgsConfig['options']> = {};
  for (const o of options)
    config[o.flag] = {
      type: o.type,
      ...(o.short ? { short: o.short } : {}),
      ...(o.multiple ? { multiple: true } : {}),
    };
  return config;
}

/** Parses a verb's arguments with exactly the options its table lists. */
export function parseVerbArgs(spec: VerbSpec, argv: string[]): { values: Values; positionals: string[] } {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      options: parseConfig(spec.options),
      allowPositionals: true,
      strict: true,
    });
    return { values: values as Values, positionals };
  } catch (err) {
    const e = err as Error;
    // Node's own messages run on ("To specify a positional argument …"): keep the first sentence.
    const first = e.message.split(/\.\s/)[0];
    const reason = first.charAt(0).toLowerCase() + first.slice(1);
    throw new UsageError(`${spec.name}: ${reason} (see 'agent-compactor ${spec.name} --help')`);
  }
}

export const str = (values: Values, flag: string): string | undefined =>
  typeof values[flag] === 'string' ? values[flag] : undefined;
export const bool = (values: Values, flag: string): boolean => values[flag] === true;
export const list = (values: Values, flag: string): string[] => (Array.isArray(values[flag]) ? values[flag] : []);

function optionLabel(o: OptionSpec): string {
  return `${o.short ? `-${o.short}, ` : ''}--${o.flag}${o.value ? ` ${o.value}` : ''}`;
}

/** The usage line and one line per option: flag, meaning, default. */
export function renderVerbSection(spec: VerbSpec): string {
  const width = Math.max(...spec.options.map((o) => optionLabel(o).length));
  const lines = [`agent-compactor ${spec.name} ${spec.args} [options]`, `  ${spec.summary}`, ''];
  for (const o of spec.options) {
    const extra = [o.multiple ? 'repeatable' : null, o.default ? `default: ${o.default}` : null]
      .filter(Boolean)
      .join('; ');
    lines.push(`  ${optionLabel(o).padEnd(width)}  ${o.help}${extra ? ` (${extra})` : ''}`);
  }
  for (const n of spec.notes ?? []) lines.push(`  ${n}`);
  return lines.join('\n');
}

export function renderExitCodes(): string {
  return ['Exit codes:', ...EXIT_CODES.map(([code, meaning]) => `  ${code.padEnd(4)} ${meaning}`)].join('\n');
}

/**
 * A whole number ≥ 0 with its thousands grouped (1,234,567), as `toLocaleString('en-US')` writes it, without ICU: the
 * notes below are made at every start of the CLI, and the first toLocaleString of a process loads ICU's locale data
 * (≈ 10 ms of CPU, several times that on a loaded machine), a run of `--version` or `inspect` paying it for help text
 * it never prints.
 */
export function groupDigits(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+$)/g, ',');
}

/** The memory caps (core/transcript.ts), for the verbs that read a whole transcript. */
export const SIZE_NOTE = `A transcript of over ${groupDigits(MAX_TRANSCRIPT_LINES)} lines, or holding over ${groupDigits(MAX_TRANSCRIPT_RECORDS)} records (messages, events, malformed lines), is refused (exit 2) as soon as the line past the limit is read, so that one file cannot use up the memory.`;

export const NUMBERS_NOTE = 'Numbers are whole and at least 1, written 40000, 40_000, 40,000 or 40k.';
