// Shared argument and input handling for the CLI verbs: exit codes, numbers, the transcript path.
import { open, stat } from 'node:fs/promises';
import { errnoReason } from '../core/io/atomic';
import type { Capability } from '../core/formats/agent';
import { unsupported } from '../core/formats/registry';
import { readSessionIndex } from '../core/inspect';
import { sanitizeForTerminal } from './format';

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;
export const EXIT_CANCELLED = 130;

/** Unusable arguments or input: exit 2 with the message as a one-line reason. */
export class UsageError extends Error {}

/** A path as the user gave it, safe to print. */
export const shown = (path: string) => sanitizeForTerminal(path);

/** A positive whole number; accepts 40000, 40_000, 40,000 and 40k. */
export function intOption(value: string, name: string): number {
  const text = value.trim().replace(/[_,]/g, '');
  const k = /^(\d+(?:\.\d+)?)k$/i.exec(text);
  const n = k ? Math.round(Number(k[1]) * 1000) : /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n) || n <= 0)
    throw new UsageError(
      `--${name} must be a whole number of at least 1 (like 40000 or 40k), got '${sanitizeForTerminal(value)}'`,
    );
  return n;
}

export function onePositional(positionals: string[], verb: string): string {
  if (positionals.length === 0)
    throw new UsageError(`${verb}: which transcript? Give one .jsonl file (see 'agent-compactor ${verb} --help')`);
  if (positionals.length > 1)
    throw new UsageError(
      `${verb}: expected one transcript file, got ${positionals.length} (see 'agent-compactor ${verb} --help')`,
    );
  return positionals[0];
}

/** One line for a file-system error reading a path the user named, or null when it is not one of those (writes fail as CompactError 'write-failed'). */
export function describeFsError(err: unknown): string | null {
  const e = err as NodeJS.ErrnoException;
  if (!e || typeof e !== 'object' || typeof e.code !== 'string') return null;
  const p = typeof e.path === 'string' ? shown(e.path) : 'the file';
  switch (e.code) {
    case 'ENOENT':
      return `no such file: ${p}`;
    case 'ENOTDIR':
      return `no such file: ${p} (a part of the path is not a folder)`;
    case 'EISDIR':
      return `${p} is a folder, not a transcript`;
    case 'EACCES':
    case 'EPERM':
    case 'ELOOP':
    case 'ENAMETOOLONG':
      return `cannot read ${p}: ${errnoReason(e)}`;
    default:
      return null;
  }
}

/** Checks that `path` names a readable regular file; throws a UsageError with a one-line reason otherwise. */
export async function readableTranscript(path: string): Promise<string> {
  let st;
  try {
    st = await stat(path);
  } catch (err) {
    throw new UsageError(describeFsError(err) ?? `cannot read ${shown(path)}: ${(err as Error).message}`);
  }
  if (st.isDirectory())
    throw new UsageError(`${shown(path)} is a folder, not a transcript (give a session's .jsonl file)`);
  if (!st.isFile()) throw new UsageError(`${shown(path)} is not a regular file, not a transcript`);
  try {
    await (await open(path, 'r')).close();
  } catch (err) {
    throw new UsageError(describeFsError(err) ?? `cannot read ${shown(path)}: ${(err as Error).message}`);
  }
  return path;
}

/**
 * Exits 2 with the reason when `file` is a session of an agent for which `what` is not available (its module's
 * capabilities). A file that cannot be read as a session passes: undo and restore must work on a damaged one.
 */
export async function refuseUnsupported(file: string, what: Capability, verb: string): Promise<void> {
  let format;
  try {
    format = (await readSessionIndex(file)).format;
  } catch {
    return;
  }
  const why = unsupported(format, what);
  if (why) throw new UsageError(`${verb}: ${shown(file)}: ${why}`);
}
