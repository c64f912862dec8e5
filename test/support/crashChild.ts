// The crash child (test/support/crash-child.ts) bundled like the CLI, so that a run starts with a plain `node`, no
// compile on load: a slow start would only make the kill runs longer. Each test file bundles to a file of its own
// (`name`): files of the integration tier run side by side, and one must never spawn a bundle another is writing.
import { join } from 'node:path';
import { build, type Plugin } from 'esbuild';
import { repoRoot } from './fixtures';

/**
 * The Anthropic SDK left out of a child's bundle and required from node_modules on first use, as the product's bundles
 * require it from beside them (scripts/build.mjs): a child that never summarizes through the API never parses its
 * 1.3 MB. A require, by absolute path: the bundle may be written outside the repository, and Node's import() of a
 * CommonJS file would give module.exports as `default`, not the client class.
 */
const sdkFromPackage: Plugin = {
  name: 'anthropic-sdk-from-package',
  setup(b) {
    b.onResolve({ filter: /^@anthropic-ai\/sdk$/ }, () => ({ path: 'sdk', namespace: 'sdk-from-package' }));
    b.onLoad({ filter: /.*/, namespace: 'sdk-from-package' }, () => ({
      contents: `module.exports = require(${JSON.stringify(require.resolve('@anthropic-ai/sdk'))});`,
      loader: 'js',
    }));
    b.onResolve({ filter: /.*/, namespace: 'sdk-from-package' }, (a) => ({ path: a.path, external: true }));
  },
};

/** Bundles the crash child to `dist-test/<name>` and returns its path. For a before hook, after assertCliBuilt(). */
export function bundleCrashChild(name: string): Promise<string> {
  return bundleChild('crash-child.ts', name);
}

/**
 * Bundles `entry` (a child of the tests, in test/support/) to `<dir>/<name>` (by default `dist-test/<name>`) and
 * returns its path: a child started with a plain `node`, no compile on load.
 */
export async function bundleChild(entry: string, name: string, dir = join(repoRoot, 'dist-test')): Promise<string> {
  const outfile = join(dir, name);
  await build({
    entryPoints: [join(__dirname, entry)],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    logLevel: 'warning',
    plugins: [sdkFromPackage],
  });
  return outfile;
}
