/**
 * The extension as fast as the CLI (issue 34): the first Rounds view of a transcript, from Open Transcript (the API's
 * load) to the views showing it with nothing queued, against `agent-compactor inspect --json` of the same file run
 * from the extension host right after, as a user runs it (Node's start-up included). Both read the same figures (the
 * test's assertion); the CPU time of each, and their ratio, are printed (speed is the bench's to hold, not a test's:
 * a busy machine stretches the two unevenly). Runs right after activation, before any other suite has read these
 * files.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { contextNow } from '../../src/core/context';
import { EXTENSION_ID, fixture, getApi, withTimeout } from './helpers';

/** Loaded into the CLI with `--require`: writes the process's CPU time (user + system, µs) when it exits. */
const CPU_PRELOAD = `process.on('exit', () => {
  const u = process.cpuUsage();
  require('node:fs').writeFileSync(process.env.AC_CPU_FILE, String(u.user + u.system));
});
`;

/** `node dist/cli.js inspect --json <file>` run from the extension host: its report and its CPU time in ms. */
function cliInspect(cli: string, file: string, dir: string): Promise<{ report: any; cpuMs: number }> {
  const preload = path.join(dir, 'cpu.cjs');
  const cpuFile = path.join(dir, 'cpu.txt');
  fs.writeFileSync(preload, CPU_PRELOAD);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--require', preload, cli, 'inspect', '--json', file], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ELECTRON_RUN_AS_NODE: '1', AC_CPU_FILE: cpuFile },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve({ report: JSON.parse(out), cpuMs: Number(fs.readFileSync(cpuFile, 'utf8')) / 1000 })
        : reject(new Error(`inspect exit ${code}: ${err}`)),
    );
  });
}

describe('host: the first view of a transcript, against the CLI', function () {
  this.timeout(300_000);
  let dir: string;
  before(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-first-view-'))));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  for (const name of ['with-compactions.jsonl', 'v2.1.97-images.jsonl', 'v2.1.97-live-before.jsonl']) {
    it(`${name}: the first Rounds view reads what inspect --json reads; their CPU times printed`, async () => {
      const api = await getApi();
      const cli = path.join(vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath, 'dist', 'cli.js');
      const file = fixture(name);
      const cpu0 = process.cpuUsage();
      assert.equal(await withTimeout(api.load(file), 120_000, `loading ${name}`), true);
      await withTimeout(api.whenIdle(), 120_000, 'the store to be idle');
      const used = process.cpuUsage(cpu0);
      const viewMs = (used.user + used.system) / 1000;
      const report = api.getAnalysis()?.report;
      assert.ok(report, `the extension shows ${name}`);
      const cliRun = await cliInspect(cli, file, dir);
      // Every field of the view's rounds as the CLI prints it (the CLI adds each round's breakdown and cost).
      const shown = JSON.parse(JSON.stringify({ rounds: report.rounds, totals: report.totals }));
      const printed = cliRun.report;
      const sameFields = (r: Record<string, unknown>, i: number) =>
        Object.fromEntries(Object.keys(r).map((k) => [k, printed.rounds[i]?.[k]]));
      assert.ok(shown.rounds.length > 0, 'the view shows rounds');
      assert.equal(shown.rounds.length, printed.rounds.length, 'as many rounds');
      assert.deepEqual(
        { rounds: shown.rounds, totals: shown.totals, context: contextNow(report).tokens },
        { rounds: shown.rounds.map(sameFields), totals: printed.totals, context: printed.context.tokens },
      );
      console.log(
        `      ${name}: first view ${viewMs.toFixed(0)} ms of CPU, CLI inspect ${cliRun.cpuMs.toFixed(0)} ms (${(viewMs / cliRun.cpuMs).toFixed(2)}×)`,
      );
    });
  }
});
