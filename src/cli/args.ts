// Shared argument handling for the CLI verbs (node:util parseArgs).
import { parseArgs, type ParseArgsConfig } from 'node:util';

export const EXIT_USAGE = 2;

export class UsageError extends Error {}

export function parse<T extends NonNullable<ParseArgsConfig['options']>>(argv: string[], options: T, usage: string) {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError(`${err instanceof Error ? err.message : String(err)}\nusage: ${usage}`);
  }
}

export function intOption(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value.replace(/[_,]/g, '').replace(/k$/i, '000'));
  if (!Number.isInteger(n) || n <= 0) throw new UsageError(`--${name} must be a positive whole number, got '${value}'`);
  return n;
}

export function onePositional(positionals: string[], usage: string): string {
  if (positionals.length !== 1) throw new UsageError(`expected one transcript file\nusage: ${usage}`);
  return positionals[0];
}
