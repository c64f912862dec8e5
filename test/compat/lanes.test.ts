// Lanes (./lanes.ts) start only the jobs whose test mocha will run: a contributor running one compat test with
// --grep does not wait for every real-CLI job of its file. Checked on a small suite (./lanes-grep.suite.ts) run by
// mocha in a child process, with --grep in parallel mode as the tier runs (a worker's own runner gets the selection),
// and with --grep --invert in a serial run (as `--no-config` runs a file): the jobs that ran are read from the file
// the suite appends to.
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../support/fixtures';
import { tempDir } from '../support/temp';

const MOCHA = join(repoRoot, 'node_modules', 'mocha', 'bin', 'mocha.js');
const SUITE = join(repoRoot, 'test', 'compat', 'lanes-grep.suite.ts');

/** Runs the suite with `args`; returns the jobs that started (sorted) and mocha's output. */
async function jobsRun(args: string[]): Promise<{ jobs: string[]; output: string; code: number | null }> {
  const dir = tempDir('ac-lanes-grep-');
  try {
    const record = join(dir, 'jobs');
    writeFileSync(record, '');
    const child = spawn(
      process.execPath,
      [MOCHA, '--no-config', '--node-option', 'import=tsx', '--reporter', 'dot', ...args, SUITE],
      { cwd: repoRoot, env: { ...process.env, LANES_GREP_RECORD: record }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    const jobs = readFileSync(record, 'utf8').split('\n').filter(Boolean).sort();
    return { jobs, output, code };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('compat lanes honour mocha --grep', function () {
  this.timeout(120_000);

  it('--grep, in parallel mode: only the selected job starts, and its test passes', async () => {
    const run = await jobsRun(['--parallel', '--grep', 'beta']);
    assert.equal(run.code, 0, run.output);
    assert.deepEqual(run.jobs, ['beta job']);
    assert.match(run.output, /1 passing/);
  });

  it('--grep with --invert, in a serial run: every job but the excluded one starts', async () => {
    const run = await jobsRun(['--grep', 'beta', '--invert']);
    assert.equal(run.code, 0, run.output);
    assert.deepEqual(run.jobs, ['alpha job', 'gamma job']);
    assert.match(run.output, /2 passing/);
  });
});
