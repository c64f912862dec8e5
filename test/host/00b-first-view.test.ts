/**
 * The extension as fast as the CLI (issue 34): the first Rounds view of a transcript, from Open Transcript (the API's
 * load) to the views showing it with nothing queued, against `agent-compactor inspect --json` of the same file run
 * from the extension host right after, as a user runs it (Node's start-up included). At most 1.5× the CLI; the ratio
 * is printed. Runs right after activation, before any other suite has read these files (a later read finds token
 * counts already made).
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { EXTENSION_ID, fixture, getApi, withTimeout } from './helpers';

/** CPU and wall time of `node dist/cli.js inspect --json <file>`, run from the extension host. */
function cliInspect(cli: string, file: string): Promise<{ wallMs: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [cli, 'inspect', '--json', file], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
    });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve({ wallMs: performance.now() - t0 }) : reject(new Error(`inspect exit ${code}: ${err}`)),
    );
  });
}

describe('host: the first view of a transcript, against the CLI', function () {
  this.timeout(300_000);

  for (const name of ['with-compactions.jsonl', 'v2.1.97-images.jsonl', 'v2.1.97-live-before.jsonl']) {
    it(`${name}: the first Rounds view, against inspect --json in the same run`, async () => {
      const api = await getApi();
      const ext = vscode.extensions.getExtension(EXTENSION_ID)!;
      const cli = path.join(ext.extensionPath, 'dist', 'cli.js');
      const file = fixture(name);
      const t0 = performance.now();
      assert.equal(await withTimeout(api.load(file), 120_000, `loading ${name}`), true);
      await withTimeout(api.whenIdle(), 120_000, 'the store to be idle');
      const viewMs = performance.now() - t0;
      const cliRun = await cliInspect(cli, file);
      const ratio = viewMs / cliRun.wallMs;
      console.log(
        `      ${name}: first view ${viewMs.toFixed(0)} ms, CLI inspect ${cliRun.wallMs.toFixed(0)} ms (${ratio.toFixed(2)}×)`,
      );
      assert.ok(ratio <= 1.5, `the first view took ${ratio.toFixed(2)}× the CLI's inspect of the same file`);
    });
  }
});
