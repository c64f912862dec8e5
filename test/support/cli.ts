// One way for tests to run the command line.
//
// - `runCliInProcess` (cliInProcess.ts): the verb called as `agent-compactor` would call it (src/cli/main.ts's `main`), with its output
//   captured, in this process. For what the CLI computes and prints: figures, text, JSON, exit codes of refusals.
// - `runCli` / `runCliAsync`: the built bundle (`node dist/cli.js`) in a child process. For what only a real process
//   shows: wiring of the bundle, signals, the terminal, locks across processes, hostile files that could block.
//
// The bundle is built once per tier by the tier's script (`npm run test:integration` builds first); a test never
// builds it, so tests running side by side never read a half-written bundle. `assertCliBuilt` says when the bundle
// is missing or older than the source, rather than testing yesterday's code.
import { spawn, spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './fixtures';

export const CLI = join(repoRoot, 'dist', 'cli.js');

export interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
  signal?: NodeJS.Signals | null;
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(p));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

let checked = false;
/** Throws when dist/cli.js is missing or older than a file in src/ (run `npm run build`). Checked once a process. */
export function assertCliBuilt(): void {
  if (checked) return;
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` (npm run test:integration does)`);
  const built = statSync(CLI).mtimeMs;
  const source = newestMtime(join(repoRoot, 'src'));
  if (source > built) {
    throw new Error(`${CLI} is older than src/: run \`npm run build\` (npm run test:integration does)`);
  }
  checked = true;
}

/** The environment without any Anthropic variable (nothing leaves the machine by accident), plus `extra`. */
export function cliEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const e = { ...process.env };
  for (const k of Object.keys(e)) if (k.startsWith('ANTHROPIC_')) delete e[k];
  return { ...e, ...extra };
}

/** `node dist/cli.js ...args`, synchronously. `env` defaults to cliEnv(). */
export function runCli(args: string[], opts: SpawnSyncOptions = {}): CliRun {
  assertCliBuilt();
  const r = spawnSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    env: cliEnv(),
    ...opts,
  });
  return { status: r.status, stdout: String(r.stdout ?? ''), stderr: String(r.stderr ?? ''), signal: r.signal };
}

/** `node dist/cli.js ...args` without blocking this process (for tests whose servers live in it). */
export function runCliAsync(
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; cwd?: string; onSpawn?: (kill: (s: NodeJS.Signals) => void) => void } = {},
): Promise<CliRun> {
  assertCliBuilt();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: opts.env ?? cliEnv(), cwd: opts.cwd });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (status, signal) => resolve({ status, stdout, stderr, signal }));
    opts.onSpawn?.((s) => child.kill(s));
  });
}
