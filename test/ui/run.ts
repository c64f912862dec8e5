/**
 * Runs the Playwright UI scenarios (test/ui/*.ui.ts) with mocha, on the
 * machine's Node, against a real VS Code workbench (code-server + headless
 * Chromium, see test/support/workbench.ts): one code-server and one Chromium
 * for the whole run, started by the first file's Workbench.open() and stopped
 * here at the end; each file gets its own window, workspace folder and
 * settings. Screenshots go to test-results/screenshots/.
 *
 *   bash scripts/provision-vscode.sh      # once; cached in .vscode-test/
 *   npm run build                         # dist/extension.js
 *   node --import tsx test/ui/run.ts [filter]
 *
 * Env:
 *   AGENT_COMPACTOR_EXTENSION_PATH  extension folder to install (default: repo root)
 *   AGENT_COMPACTOR_UI_TEST_TIMEOUT_MS  overall limit (default 1500000: a loaded machine is slow, not broken)
 *   KEEP_TEST_TMP=1, UI_TEST_DEBUG=1
 * An optional argument keeps only the *.ui.ts files whose name contains it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import Mocha from 'mocha';
import { repoRoot } from '../support/code-server';
import { screenshotsDir, stopAllWorkbenches } from '../support/workbench';

const log = (msg: string) => console.log(`[ui-tests] ${msg}`);

export async function runUiTests(opts: { filter?: string; timeoutMs?: number } = {}): Promise<number> {
  const t0 = Date.now();
  const dir = path.join(repoRoot, 'test', 'ui');
  const files = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.ui.ts') && (!opts.filter || f.includes(opts.filter)))
    .sort()
    .map((f) => path.join(dir, f));
  if (files.length === 0) throw new Error(`no *.ui.ts files in ${dir}${opts.filter ? ` matching ${opts.filter}` : ''}`);

  const mocha = new Mocha({ ui: 'bdd', timeout: 120_000, color: false, reporter: 'spec' });
  for (const f of files) mocha.addFile(f);
  await mocha.loadFilesAsync();

  const timeoutMs = opts.timeoutMs ?? Number(process.env.AGENT_COMPACTOR_UI_TEST_TIMEOUT_MS ?? 1_500_000);
  const failures = await new Promise<number>((resolve) => {
    const timer = setTimeout(() => {
      log(`FAILED: timed out after ${timeoutMs} ms; stopping the workbench`);
      runner.abort();
      resolve(-1);
    }, timeoutMs);
    const runner = mocha.run((n) => {
      clearTimeout(timer);
      const s = runner.stats;
      console.log(
        `ui: ${s?.passes ?? 0} passed, ${s?.failures ?? n} failed${s?.pending ? `, ${s.pending} skipped` : ''}`,
      );
      resolve(n);
    });
  });
  await stopAllWorkbenches();
  if (fs.existsSync(screenshotsDir)) log(`screenshots: ${path.relative(repoRoot, screenshotsDir)}/`);
  log(`${failures === 0 ? 'PASSED' : 'FAILED'} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return failures === 0 ? 0 : 1;
}

if (require.main === module) {
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(sig, () => {
      log(`${sig}: stopping browser and code-server`);
      void Promise.race([stopAllWorkbenches(), new Promise((r) => setTimeout(r, 15_000))]).then(() =>
        process.exit(sig === 'SIGINT' ? 130 : 143),
      );
    });
  }
  runUiTests({ filter: process.argv[2] }).then(
    (code) => process.exit(code),
    async (e: unknown) => {
      console.error(`[ui-tests] ERROR: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
      await stopAllWorkbenches();
      process.exit(1);
    },
  );
}
