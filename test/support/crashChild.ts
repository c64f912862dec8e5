// The crash child (test/support/crash-child.ts) bundled like the CLI, so that a run starts with a plain `node`, no
// compile on load: a slow start would only make the kill runs longer. Each test file bundles to a file of its own
// (`name`): files of the integration tier run side by side, and one must never spawn a bundle another is writing.
import { join } from 'node:path';
import { build } from 'esbuild';
import { repoRoot } from './fixtures';

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
  });
  return outfile;
}
