// Builds the extension host bundle, the CLI bundle, the webview bundle and the benchmark.
import { build } from 'esbuild';
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const production = process.argv.includes('--production');
// --outdir DIR: the bundles a package needs into DIR instead of dist/ (a test packages a .vsix from a copy, so that
// tests reading dist/ beside it never see a half-written bundle). Only dist/ gets the benchmark and host tests.
const outdirAt = process.argv.indexOf('--outdir');
const outdir = outdirAt >= 0 ? process.argv[outdirAt + 1] : 'dist';
const intoDist = outdirAt < 0;
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
// The Anthropic SDK (with its dependencies 1.3 MB of the bundles' 1.9 MB) is a file of its own beside the bundles,
// required on the first summary through the API only (src/core/compact/summarize/anthropic.ts imports it dynamically):
// every other run of the CLI, and the extension's activation, no longer parses it.
const SDK_FILE = 'anthropic-sdk.js';
const sdkBeside = {
  name: 'anthropic-sdk-beside',
  setup(b) {
    // The import becomes a require of the sibling file, resolved against the bundle's own folder. A require, not a
    // dynamic import() left as is: Node's import() of a CommonJS file gives module.exports as `default`, not the
    // class; esbuild's interop on a require gives the SDK's own default export.
    b.onResolve({ filter: /^@anthropic-ai\/sdk$/ }, () => ({ path: SDK_FILE, namespace: 'sdk-beside' }));
    b.onLoad({ filter: /.*/, namespace: 'sdk-beside' }, () => ({
      contents: `module.exports = require('./${SDK_FILE}');`,
      loader: 'js',
    }));
    b.onResolve({ filter: /^\.\//, namespace: 'sdk-beside' }, (a) => ({ path: a.path, external: true }));
  },
};
mkdirSync(outdir, { recursive: true });
copyFileSync(createRequire(import.meta.url).resolve('js-tiktoken/ranks/o200k_base'), `${outdir}/o200k_base.cjs`);

const jobs = [
  build({ ...common, entryPoints: ['src/cli/main.ts'], outfile: `${outdir}/cli.js`, plugins: [sdkBeside] }),
  build({
    ...common,
    stdin: { contents: "export { default } from '@anthropic-ai/sdk';", resolveDir: '.', sourcefile: 'anthropic-sdk' },
    outfile: `${outdir}/${SDK_FILE}`,
  }),
  // Exact token counting off the main thread (src/core/tokens/pool.ts finds it beside the running bundle).
  build({ ...common, entryPoints: ['src/core/tokens/worker.ts'], outfile: `${outdir}/tokens-worker.js` }),
];
if (existsSync('src/extension/activate.ts')) {
  jobs.push(
    build({
      ...common,
      entryPoints: ['src/extension/activate.ts'],
      outfile: `${outdir}/extension.js`,
      external: [...common.external, 'vscode'],
      plugins: [sdkBeside],
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
      outfile: `${outdir}/webview.js`,
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
      outfile: `${outdir}/map.js`,
    }),
  );
}
if (intoDist && existsSync('bench/bench.ts')) {
  jobs.push(build({ ...common, entryPoints: ['bench/bench.ts'], outfile: 'dist/bench.js' }));
}
if (intoDist && existsSync('scripts/build-host-tests.mjs')) {
  jobs.push(import('./build-host-tests.mjs').then((m) => m.default?.()));
}
await Promise.all(jobs);
