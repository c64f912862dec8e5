// The command line in this process: `main(args)` of src/cli/main.ts, as `agent-compactor` calls it, with its output
// captured (see cli.ts for the built bundle in a child process, and which to use when).
import { main } from '../../src/cli/main';
import type { CliRun } from './cli';

let queue: Promise<unknown> = Promise.resolve();

/**
 * The CLI's `main(args)` in this process, its stdout and stderr captured. `env` entries are set for the call (an
 * `undefined` value removes the variable; Anthropic variables are removed unless given) and restored after it, as is
 * the working folder. Calls are serialized: one process has one stdout.
 */
export function runCliInProcess(
  args: string[],
  opts: { env?: Record<string, string | undefined>; cwd?: string } = {},
): Promise<CliRun> {
  const run = queue.then(() => runNow(args, opts));
  queue = run.catch(() => undefined);
  return run;
}

async function runNow(
  args: string[],
  opts: { env?: Record<string, string | undefined>; cwd?: string },
): Promise<CliRun> {
  const env: Record<string, string | undefined> = {};
  for (const k of Object.keys(process.env)) if (k.startsWith('ANTHROPIC_')) env[k] = undefined;
  Object.assign(env, opts.env);
  const saved = new Map<string, string | undefined>();
  for (const [k, v] of Object.entries(env)) {
    saved.set(k, process.env[k]);
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  const cwd = process.cwd();
  if (opts.cwd) process.chdir(opts.cwd);
  const out: string[] = [];
  const err: string[] = [];
  // Replaced on the stream objects and put back as they were (own property or none), so nothing is rebound.
  const ownOut = Object.getOwnPropertyDescriptor(process.stdout, 'write');
  const ownErr = Object.getOwnPropertyDescriptor(process.stderr, 'write');
  const capture =
    (into: string[]) =>
    (chunk: string | Uint8Array, ...rest: unknown[]): boolean => {
      into.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      const done = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
      done?.();
      return true;
    };
  Object.defineProperty(process.stdout, 'write', { value: capture(out), configurable: true, writable: true });
  Object.defineProperty(process.stderr, 'write', { value: capture(err), configurable: true, writable: true });
  const exitCode = process.exitCode;
  try {
    const status = await main(args);
    return { status, stdout: out.join(''), stderr: err.join('') };
  } finally {
    restore(process.stdout, ownOut);
    restore(process.stderr, ownErr);
    process.exitCode = exitCode;
    if (opts.cwd) process.chdir(cwd);
    for (const [k, v] of saved) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

function restore(stream: NodeJS.WriteStream, own: PropertyDescriptor | undefined): void {
  if (own) Object.defineProperty(stream, 'write', own);
  else delete (stream as { write?: unknown }).write;
}
