// Exact token counts (js-tiktoken o200k_base, bundled ranks) and the worker-thread pool.
import { strict as assert } from 'node:assert';
import { copyFileSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { countTokensExact } from '../../src/core/tokens/exact';
import { countInWorker, setTokenWorkerPath, stopTokenWorker } from '../../src/core/tokens/pool';
import { agentFixtures, repoRoot } from '../support/fixtures';
import { tempDir } from '../support/temp';

describe('countTokensExact (o200k_base)', function () {
  this.timeout(60_000);

  it('counts known strings', () => {
    assert.equal(countTokensExact(''), 0);
    assert.equal(countTokensExact('hello world'), 2);
    assert.equal(countTokensExact('Hello, world!'), 4);
    assert.equal(countTokensExact('The quick brown fox jumps over the lazy dog.'), 10);
    assert.equal(countTokensExact('function add(a, b) {\n  return a + b;\n}\n'), 14);
    assert.equal(countTokensExact('日本語のテキスト'), 6);
  });

  it('counts special-token text as ordinary text instead of throwing', () => {
    assert.equal(countTokensExact('<|endoftext|>'), 7);
  });

  it("counts as js-tiktoken's encoder does: every agent's shared fixtures, in slices, and text it finds hard", () => {
    // The product counts with its own map over the same ranks (src/core/tokens/o200k.ts: js-tiktoken's constructor
    // cost about a second of CPU a process); the library's encoder is the reference.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { Tiktoken } = require('js-tiktoken/lite');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const enc = new Tiktoken(require('js-tiktoken/ranks/o200k_base'));
    const texts = [
      '<|endoftext|><|endofprompt|>',
      'lone surrogates \ud800 and \udfff, a pair 🎉, combining é, RTL שלום, CJK 日本語のテキスト, ÄÖÜß',
      'a'.repeat(300),
      ' '.repeat(70) + '\n\n\r\n\t x',
      "don't I'LL we've THEY'RE",
      '12345678901234567890 3.14159 0x1F',
    ];
    let files = 0;
    for (const agent of ['claude-code', 'codex', 'gemini-cli', 'cline', 'copilot-cli'])
      for (const file of agentFixtures(agent)) {
        files++;
        const text = readFileSync(file, 'utf8');
        // Twelve slices spread over each file (tool output, JSON escapes, code, prose, images' base64 alike).
        for (let k = 0; k < 12; k++) {
          const at = Math.floor((k * text.length) / 12);
          texts.push(text.slice(at, at + 3000));
        }
      }
    assert.ok(files >= 20, `${files} fixture files read`);
    const differing = texts.filter((t) => countTokensExact(t) !== enc.encode(t, [], []).length);
    assert.deepEqual(
      differing.map((t) => t.slice(0, 60)),
      [],
      'every text counts as the library encodes it',
    );
  });

  it('gives the same count for a long text encoded in pieces as in one pass', () => {
    // js-tiktoken ships CommonJS builds but declares ESM types: required as src/core/tokens/exact.ts does.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { Tiktoken } = require('js-tiktoken/lite');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const enc = new Tiktoken(require('js-tiktoken/ranks/o200k_base'));
    const text = readFileSync(join(repoRoot, 'src', 'core', 'chain.ts'), 'utf8').repeat(30);
    assert.ok(text.length > 3 * 65536);
    assert.equal(countTokensExact(text), enc.encode(text, [], []).length);
  });
});

describe('countInWorker', function () {
  this.timeout(60_000);
  after(() => stopTokenWorker());

  it('counts off the main thread, in order, with the same results', async () => {
    const dir = tempDir('ac-tokw-');
    const out = join(dir, 'tokens-worker.js');
    await build({
      entryPoints: [join(repoRoot, 'src', 'core', 'tokens', 'worker.ts')],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      outfile: out,
      logLevel: 'warning',
    });
    // The ranks beside the bundle, as scripts/build.mjs puts them (the bundle leaves them out).
    copyFileSync(require.resolve('js-tiktoken/ranks/o200k_base'), join(dir, 'o200k_base.cjs'));
    setTokenWorkerPath(out);
    const texts = ['hello world', '', 'The quick brown fox jumps over the lazy dog.', 'x'.repeat(1000)];
    const [a, b] = await Promise.all([countInWorker(texts), countInWorker(['Hello, world!'])]);
    assert.deepEqual(
      a,
      texts.map((t) => countTokensExact(t)),
    );
    assert.deepEqual(b, [4]);
    assert.deepEqual(await countInWorker([]), []);
    // The bundle holds the encoder, not the ranks' 2 MB (every process that loads a bundle parses and keeps it).
    assert.ok(statSync(out).size < 200_000, `the worker bundle is ${statSync(out).size} bytes`);
  });
});
