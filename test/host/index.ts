/**
 * Tests module loaded by VS Code's extension host (extensionTestsPath points
 * at the folder holding the bundle of this file, dist-test/host/). It runs
 * every `*.test.js` bundle next to it with mocha, inside the real extension
 * host, with the real `vscode` API. Works under code-server's smoke-test
 * driver (test/host/run.ts) and under @vscode/test-electron
 * (test/host/run-electron.ts).
 *
 * Mocha is bundled into this file by scripts/build-host-tests.mjs.
 * Env (via extensionEnvironment): AGENT_COMPACTOR_TEST_GREP filters tests; AGENT_COMPACTOR_TEST_TRUST=untrusted
 * (the workspace is open in Restricted Mode) runs the *-restricted.test.js files, otherwise every other file.
 * Any pending (skipped) test fails the run.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import Mocha from 'mocha';

export async function run(): Promise<void> {
  const mocha = new Mocha({ ui: 'bdd', timeout: 60_000, color: false, reporter: 'spec' });
  const grep = process.env.AGENT_COMPACTOR_TEST_GREP;
  if (grep) mocha.grep(grep);

  const dir = __dirname;
  // The runner opens the workspace trusted (every suite but Restricted Mode) or untrusted (*-restricted.test.js only).
  const untrusted = process.env.AGENT_COMPACTOR_TEST_TRUST === 'untrusted';
  const files = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.test.js') && f.endsWith('-restricted.test.js') === untrusted)
    .sort();
  if (files.length === 0) throw new Error(`no ${untrusted ? '*-restricted' : '*'}.test.js files in ${dir}`);
  for (const f of files) mocha.addFile(path.join(dir, f));

  const started = Date.now();
  await new Promise<void>((resolve, reject) => {
    try {
      const runner = mocha.run((failures) => {
        const s = runner.stats;
        const passed = s?.passes ?? 0;
        const failed = s?.failures ?? failures;
        const pending = s?.pending ?? 0;
        // A plain closing line any CI log reader understands.
        console.log(
          `host${untrusted ? ' (Restricted Mode)' : ''}: ${passed} passed, ${failed} failed, ${pending} pending (${Date.now() - started} ms, VS Code extension host)`,
        );
        if (failures > 0) reject(new Error(`${failures} host test(s) failed`));
        else if (pending > 0)
          reject(new Error(`${pending} host test(s) pending (skipped): a test that does not run does not pass`));
        else if (passed === 0) reject(new Error('no host test ran'));
        else resolve();
      });
    } catch (e) {
      reject(e instanceof Error ? e : new Error(String(e)));
    }
  });
}
