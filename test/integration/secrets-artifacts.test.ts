// The API key must not end up in what the project ships or publishes: the bundles, the .vsix,
// and the committed reports. The build runs with a canary key in its environment, as a
// developer's shell would have it, and every byte produced is searched for it.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { repoRoot } from '../support/fixtures';
import { tempDir } from '../support/temp';

const KEY_SHAPE = /sk-ant-[A-Za-z0-9_-]{16,}/;

describe('secrets in shipped artifacts', function () {
  this.timeout(300_000);
  const canary = `sk-ant-api03-canary-${randomBytes(12).toString('hex')}`;
  const env = { ...process.env, ANTHROPIC_API_KEY: canary };
  const out = tempDir('ac-vsix-');
  const vsix = join(out, 'agent-compactor.vsix');

  // The package is made from a copy of what the .vsix takes (manifest, docs, media) with its own production build,
  // so the dist/ that other tests run beside this one is never rebuilt under them.
  const pkg = join(out, 'package');
  const dist = join(pkg, 'dist');

  before(() => {
    mkdirSync(pkg);
    for (const name of ['package.json', 'README.md', 'CHANGELOG.md', 'LICENSE', '.vscodeignore']) {
      copyFileSync(join(repoRoot, name), join(pkg, name));
    }
    cpSync(join(repoRoot, 'media'), join(pkg, 'media'), { recursive: true });
    const build = spawnSync(process.execPath, ['scripts/build.mjs', '--production', '--outdir', dist], {
      cwd: repoRoot,
      env,
      encoding: 'utf8',
    });
    assert.equal(build.status, 0, build.stderr);
    const vsce = join(repoRoot, 'node_modules', '@vscode', 'vsce', 'vsce');
    const pack = spawnSync(
      process.execPath,
      [vsce, 'package', '--no-dependencies', '--no-rewrite-relative-links', '--allow-missing-repository', '-o', vsix],
      { cwd: pkg, env, encoding: 'utf8' },
    );
    assert.equal(pack.status, 0, pack.stderr + pack.stdout);
  });

  it('the .vsix holds the bundles and no trace of the key', () => {
    const list = spawnSync('unzip', ['-Z1', vsix], { encoding: 'utf8' });
    assert.equal(list.status, 0, list.stderr);
    const names = list.stdout.trim().split('\n');
    assert.ok(
      names.includes('extension/dist/extension.js') &&
        names.includes('extension/dist/webview.js') &&
        // required by extension.js on the first summary through the API (scripts/build.mjs)
        names.includes('extension/dist/anthropic-sdk.js'),
      names.join(', '),
    );
    assert.ok(
      !names.some((n) => /\.(ts|map)$|node_modules|test\/|fixtures/.test(n)),
      `sources, maps, tests or fixtures in the vsix: ${names.join(', ')}`,
    );
    const all = spawnSync('unzip', ['-p', vsix], { maxBuffer: 64 << 20 });
    assert.equal(all.status, 0);
    const bytes = all.stdout as Buffer;
    assert.ok(bytes.length > 100_000, 'the vsix content was read');
    assert.equal(bytes.includes(canary), false, 'the key is in the vsix');
    assert.equal(KEY_SHAPE.test(bytes.toString('latin1')), false, 'a key-shaped string is in the vsix');
  });

  it('the built bundles hold no trace of the key', () => {
    const bundles = readdirSync(dist).filter((n) => n.endsWith('.js'));
    assert.ok(
      bundles.includes('extension.js') && bundles.includes('cli.js') && bundles.includes('anthropic-sdk.js'),
      bundles.join(', '),
    );
    for (const name of bundles) {
      const text = readFileSync(join(dist, name), 'latin1');
      assert.equal(text.includes(canary), false, `the key is in dist/${name}`);
    }
  });

  it('the committed reports hold no key-shaped string', () => {
    for (const rel of ['bench/RESULTS.md', 'bench/COMPARE.md', 'docs/RELIABILITY.md', 'README.md']) {
      const p = join(repoRoot, rel);
      assert.ok(existsSync(p), `${rel} exists`);
      assert.equal(KEY_SHAPE.test(readFileSync(p, 'utf8')), false, `key-shaped string in ${rel}`);
    }
  });
});
