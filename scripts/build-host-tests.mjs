// Bundles the in-extension-host test suite into dist-test/host/:
//   test/host/index.ts    -> dist-test/host/index.js   (exports run(), mocha bundled in)
//   test/host/*.test.ts   -> dist-test/host/*.test.js  (one bundle per test file)
// `vscode` stays external (the extension host provides it).
// Usage: node scripts/build-host-tests.mjs, or `(await import('./build-host-tests.mjs')).default()`
import * as esbuild from 'esbuild';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const srcDir = path.join(root, 'test', 'host');
const outDir = path.join(root, 'dist-test', 'host');

/** Build the bundles; resolves when they are written. */
export default async function buildHostTests() {
  const entries = [
    path.join(srcDir, 'index.ts'),
    ...fs
      .readdirSync(srcDir)
      .filter((f) => f.endsWith('.test.ts'))
      .sort()
      .map((f) => path.join(srcDir, f)),
  ];
  const t0 = Date.now();
  fs.rmSync(outDir, { recursive: true, force: true });
  await esbuild.build({
    absWorkingDir: root,
    entryPoints: entries,
    outbase: srcDir,
    outdir: outDir,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
    sourcemap: 'linked',
    logLevel: 'warning',
    // mocha's parallel mode (never used here) resolves worker files at run time.
    logOverride: { 'require-resolve-not-external': 'silent' },
  });
  console.log(
    `built ${entries.length} host test bundle(s) into ${path.relative(root, outDir)}/ in ${Date.now() - t0} ms`,
  );
}

// Run when executed directly (`node scripts/build-host-tests.mjs`), not when imported.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildHostTests();
}
