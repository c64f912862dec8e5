/**
 * The same in-extension-host mocha suite (dist-test/host/), run in a desktop
 * VS Code through @vscode/test-electron 2.5, for developers who have one.
 * (CI and this project's machines use test/host/run.ts with code-server.)
 *
 *   npm run build
 *   VSCODE_EXECUTABLE_PATH=/path/to/code node --import tsx test/host/run-electron.ts
 *
 * Without VSCODE_EXECUTABLE_PATH, @vscode/test-electron downloads VS Code
 * (VSCODE_VERSION, default 'stable') into .vscode-test/, which needs access
 * to VS Code's download servers. On a headless Linux box, run it under
 * `xvfb-run -a`.
 *
 * Env: AGENT_COMPACTOR_EXTENSION_PATH, AGENT_COMPACTOR_TEST_GREP,
 * AGENT_COMPACTOR_EXPECT_VSCODE_VERSION (version prefix the smoke test
 * checks; default here: any).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runTests } from '@vscode/test-electron';
import { repoRoot } from '../support/code-server';
import { createWorkspace, fixturesDir } from '../support/workspace';
import { tempDir } from '../support/temp';

async function main(): Promise<number> {
  const extensionDevelopmentPath = path.resolve(repoRoot, process.env.AGENT_COMPACTOR_EXTENSION_PATH ?? '.');
  const extensionTestsPath = path.join(repoRoot, 'dist-test', 'host');
  if (!fs.existsSync(path.join(extensionTestsPath, 'index.js'))) {
    throw new Error(`${extensionTestsPath}/index.js does not exist: run \`node scripts/build-host-tests.mjs\` first`);
  }
  const workspace = createWorkspace();
  const tmp = tempDir('agent-compactor-electron-');
  try {
    const env: Record<string, string> = {
      AGENT_COMPACTOR_TEST: '1',
      AGENT_COMPACTOR_TEST_HOST: 'electron',
      AGENT_COMPACTOR_TEST_WORKSPACE: workspace.dir,
      AGENT_COMPACTOR_FIXTURES_DIR: fixturesDir,
      AGENT_COMPACTOR_REPO_ROOT: repoRoot,
      AGENT_COMPACTOR_EXPECT_VSCODE_VERSION: process.env.AGENT_COMPACTOR_EXPECT_VSCODE_VERSION ?? '',
    };
    if (process.env.AGENT_COMPACTOR_TEST_GREP) env.AGENT_COMPACTOR_TEST_GREP = process.env.AGENT_COMPACTOR_TEST_GREP;
    fs.mkdirSync(path.join(tmp, 'user-data', 'User'), { recursive: true });
    fs.writeFileSync(
      path.join(tmp, 'user-data', 'User', 'settings.json'),
      JSON.stringify({ 'workbench.startupEditor': 'none', 'telemetry.telemetryLevel': 'off', 'update.mode': 'none' }),
    );
    return await runTests({
      vscodeExecutablePath: process.env.VSCODE_EXECUTABLE_PATH || undefined,
      version: process.env.VSCODE_VERSION || undefined,
      extensionDevelopmentPath,
      extensionTestsPath,
      extensionTestsEnv: env,
      launchArgs: [
        workspace.dir,
        '--disable-extensions', // every extension but the one under development
        '--disable-workspace-trust',
        '--skip-welcome',
        '--skip-release-notes',
        '--user-data-dir',
        path.join(tmp, 'user-data'),
        '--extensions-dir',
        path.join(tmp, 'extensions'),
      ],
    });
  } finally {
    workspace.dispose();
    fs.rmSync(tmp, { recursive: true, force: true, maxRetries: 3 });
  }
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(`[host-tests:electron] FAILED: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  },
);
