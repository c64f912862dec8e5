// The one disposable temporary folder of the suite: `tempDir(prefix)` makes a new folder under the system's temporary
// folder, named by the test that asks, and every folder made so is removed when the test process ends (a mocha
// worker, the host or UI runner), whether or not the test removed it itself. Tests that wrote the folder's removal in
// an `after` hook still may; one that forgot no longer leaves it behind (a day of runs had left 3,000 folders, 23 GB,
// in /tmp).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made = new Set<string>();

/** A new empty folder `<tmp>/<prefix>XXXXXX`, removed when this process exits. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.add(dir);
  return dir;
}

/** Leaves `dir` (made by tempDir) in place when the process ends: a test asked to keep it for a person to look at. */
export function keepTempDir(dir: string): void {
  made.delete(dir);
}

/** Removes every folder tempDir made (and forgets them); what is already gone is skipped. */
export function removeTempDirs(): void {
  for (const dir of made) rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  made.clear();
}

process.once('exit', removeTempDirs);
