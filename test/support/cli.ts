// The built command line (`node dist/cli.js`), for the tests that need it in a child process: wiring of the bundle,
// signals, the terminal, locks across processes, hostile files that could block. What a verb computes and prints is
// tested in-process instead (`runCliInProcess`, cliInProcess.ts). Hundreds of short runs that must each stay out of
// this process and be bounded in time (the hostile sidecars), one case after another in a child: cliBatch.ts.
//
// The bundle is built once per tier by the tier's script (`npm run test:integration` builds first); a test never
// builds it, so tests running side by side never read a half-written bundle. `assertCliBuilt` says when the bundle
// is missing or older than the source, rather than testing yesterday's code.
import * as assert from 'node:assert/strict';
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
/** A refusal as the CLI must print it: exit 2, nothing on stdout, one `agent-compactor:` line matching `re`, no stack. */
export function oneLineError(r: CliRun, re: RegExp): void {
  assert.equal(r.status, 2, r.stderr);
  assert.equal(r.stdout, '');
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.match(r.stderr, /^agent-compactor: /);
  assert.match(r.stderr, re);
  assert.doesNotMatch(r.stderr, /ENOENT|EACCES|EISDIR|lstat|stat '|at .*\.js:\d+/);
}

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
