// Builds the extension host bundle, the CLI bundle, the webview bundle and the benchmark.
import { build } from 'esbuild';
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const production = process.argv.includes('--production');
const common = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  sourcemap: production ? false : 'linked',
  minify: production,
  logLevel: 'warning',
  define: { VERSION: JSON.stringify(pkg.version) },
  // The tokenizer's ranks (2 MB of source) stay out of the bundles: a copy beside them is loaded on first count only
  // (src/core/tokens/exact.ts).
  external: ['js-tiktoken/ranks/*'],
};
mkdirSync('dist', { recursive: true });
copyFileSync(createRequire(import.meta.url).resolve('js-tiktoken/ranks/o200k_base'), 'dist/o200k_base.cjs');

const jobs = [
  build({ ...common, entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli.js' }),
  // Exact token counting off the main thread (src/core/tokens/pool.ts finds it beside the running bundle).
  build({ ...common, entryPoints: ['src/core/tokens/worker.ts'], outfile: 'dist/tokens-worker.js' }),
];
if (existsSync('src/extension/activate.ts')) {
  jobs.push(
    build({
      ...common,
      entryPoints: ['src/extension/activate.ts'],
      outfile: 'dist/extension.js',
      external: [...common.external, 'vscode'],
    }),
  );
}
if (existsSync('src/webview/main.ts')) {
  jobs.push(
    build({
      ...common,
      platform: 'browser',
      format: 'iife',
      target: 'es2022',
      entryPoints: ['src/webview/main.ts'],
      outfile: 'dist/webview.js',
    }),
  );
}
if (existsSync('src/webview/map.ts')) {
  jobs.push(
    build({
      ...common,
      platform: 'browser',
      format: 'iife',
      target: 'es2022',
      entryPoints: ['src/webview/map.ts'],
      outfile: 'dist/map.js',
    }),
  );
}
if (existsSync('bench/bench.ts')) {
  jobs.push(build({ ...common, entryPoints: ['bench/bench.ts'], outfile: 'dist/bench.js' }));
}
if (existsSync('scripts/build-host-tests.mjs')) {
  jobs.push(import('./build-host-tests.mjs').then((m) => m.default?.()));
}
await Promise.all(jobs);
