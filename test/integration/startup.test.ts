// What a run of the built CLI loads (issue 34, start fast): the Anthropic SDK is a bundle of its own beside the others
// (dist/anthropic-sdk.js, scripts/build.mjs), required only when a summary is asked of the API. A preload records
// every module the run loaded (require.cache at exit); the run through the fake Messages API is the control that the
// record sees the SDK when it is loaded.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startFakeAnthropic } from '../support/fake-anthropic';
import { fixture, repoRoot } from '../support/fixtures';
import { buildTranscript } from '../support/reliability';
import { assertCliBuilt, CLI } from '../support/cli';
import { tempDir } from '../support/temp';

const DIST = join(repoRoot, 'dist');
const SDK_BUNDLE = join(DIST, 'anthropic-sdk.js');
const RANKS = join(DIST, 'o200k_base.cjs');
const KEY = 'sk-ant-api03-startup-test-key';
// Also whether the run formatted a number by locale: the first such call loads ICU's locale data (≈ 12 ms of CPU).
const PRELOAD = `let localeCalls = 0;
const toLocaleString = Number.prototype.toLocaleString;
Number.prototype.toLocaleString = function (...args) {
  localeCalls++;
  return toLocaleString.apply(this, args);
};
const NumberFormat = Intl.NumberFormat;
Intl.NumberFormat = function (...args) {
  localeCalls++;
  return new NumberFormat(...args);
};
process.on('exit', () => {
  require('fs').writeFileSync(
    process.env.AC_TEST_LOADED,
    JSON.stringify({ modules: Object.keys(require.cache), localeCalls }),
  );
});
`;

interface LoadedRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Every module file the run had loaded when it exited. */
  loaded: string[];
  /** Calls of Number.prototype.toLocaleString and Intl.NumberFormat. */
  localeCalls: number;
}

describe('start-up: what a run of the built CLI loads', function () {
  this.timeout(60_000);
  let dir: string;
  let preload: string;
  let runs = 0;

  before(() => {
    assertCliBuilt();
    dir = tempDir('ac-startup-');
    preload = join(dir, 'preload.js');
    writeFileSync(preload, PRELOAD);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** The built CLI with the preload; asynchronous, for the fake API in this process. */
  function run(args: string[], extraEnv: Record<string, string> = {}): Promise<LoadedRun> {
    const record = join(dir, `loaded-${++runs}.json`);
    const env: NodeJS.ProcessEnv = { ...process.env, AC_TEST_LOADED: record, ...extraEnv };
    for (const k of Object.keys(env)) if (k.startsWith('ANTHROPIC_') && !(k in extraEnv)) delete env[k];
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, ['--require', preload, CLI, ...args], { env, cwd: dir });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('error', reject);
      child.on('close', (code) => {
        try {
          const { modules: loaded, localeCalls } = JSON.parse(readFileSync(record, 'utf8')) as {
            modules: string[];
            localeCalls: number;
          };
          // The record is the run's own: the CLI bundle itself is in it.
          assert.ok(loaded.includes(CLI), `the record holds the CLI: ${loaded.join(', ')}`);
          resolve({ code, stdout, stderr, loaded, localeCalls });
        } catch (e) {
          reject(new Error(`${e instanceof Error ? e.message : String(e)}\nstderr: ${stderr}`));
        }
      });
    });
  }

  const sdkModules = (r: LoadedRun) => r.loaded.filter((p) => p === SDK_BUNDLE || /[\\/]@anthropic-ai[\\/]/.test(p));

  it('--version prints the version and a newline, and loads neither the SDK nor the tokenizer ranks nor ICU', async () => {
    const { version } = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string };
    const r = await run(['--version']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `${version}\n`);
    assert.equal(r.stderr, '');
    assert.deepEqual(sdkModules(r), []);
    assert.equal(r.loaded.includes(RANKS), false);
    // The help's notes are made at load with digits grouped by hand (src/cli/options.ts groupDigits).
    assert.equal(r.localeCalls, 0);
  });

  it('the record sees a number formatted by locale (the control of the check above)', async () => {
    // plan's text names the tool results it would trim with their sizes, by toLocaleString.
    const transcript = join(dir, 'big-results.jsonl');
    writeFileSync(
      transcript,
      buildTranscript({ rounds: 8, textChars: 200, resultChars: () => 40_000 }).join('\n') + '\n',
    );
    const r = await run(['plan', transcript, '--max-result-chars', '1000']);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.localeCalls > 0, r.stdout);
  });

  it('inspect, plan and an extractive compact of a small transcript never load the SDK', async () => {
    const small = fixture('plan-mode.jsonl');
    const transcript = join(dir, 's.jsonl');
    writeFileSync(
      transcript,
      buildTranscript({ rounds: 16, textChars: 1_500, resultChars: () => 300 }).join('\n') + '\n',
    );
    const cases: string[][] = [
      ['inspect', small],
      ['inspect', small, '--json'],
      ['plan', transcript, '--target-tokens', '6000', '--keep-recent-tokens', '2000'],
      ['compact', transcript, '--target-tokens', '6000', '--keep-recent-tokens', '2000', '--out', join(dir, 'x.jsonl')],
    ];
    for (const args of cases) {
      // A key in the environment does not make a verb load the SDK: only the choice of the API summarizer does.
      const r = await run(args, { ANTHROPIC_API_KEY: KEY });
      assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
      assert.ok(r.stdout.length > 0, args.join(' '));
      assert.deepEqual(sdkModules(r), [], args.join(' '));
    }
  });

  it('compact --summarizer anthropic loads dist/anthropic-sdk.js and summarizes through it', async () => {
    const transcript = join(dir, 'api.jsonl');
    writeFileSync(
      transcript,
      buildTranscript({ rounds: 16, textChars: 1_500, resultChars: (i) => (i % 4 === 0 ? 3_000 : 300) }).join('\n') +
        '\n',
    );
    const fake = await startFakeAnthropic({ scenario: { kind: 'text' } });
    try {
      const r = await run(
        [
          'compact',
          transcript,
          '--target-tokens',
          '6000',
          '--keep-recent-tokens',
          '2000',
          '--summarizer',
          'anthropic',
          '--base-url',
          fake.url,
          '--out',
          join(dir, 'api-out.jsonl'),
          '--json',
        ],
        { ANTHROPIC_API_KEY: KEY },
      );
      assert.equal(r.code, 0, r.stderr);
      const result = JSON.parse(r.stdout) as { summarizer: string; attempts: { strategy: string; outcome: string }[] };
      assert.equal(result.summarizer, 'anthropic', r.stdout);
      assert.deepEqual(
        result.attempts.map((a) => [a.strategy, a.outcome]),
        [['anthropic', 'ok']],
      );
      assert.equal(fake.messageRequests().length, 1);
      // The bundle beside the CLI, not the package from node_modules (the CLI is installed without it).
      assert.deepEqual(sdkModules(r), [SDK_BUNDLE]);
    } finally {
      await fake.close();
    }
  });

  it('the CLI and extension bundles leave the SDK out and require the file beside them', () => {
    const sdk = readFileSync(SDK_BUNDLE, 'utf8');
    // A string of the SDK's own code (the header naming its language), to tell whether a bundle holds the SDK.
    const marker = 'X-Stainless-Lang';
    assert.ok(sdk.includes(marker), 'the marker is in the SDK bundle');
    for (const name of ['cli.js', 'extension.js']) {
      const text = readFileSync(join(DIST, name), 'utf8');
      assert.equal(text.includes(marker), false, `dist/${name} holds the SDK`);
      assert.ok(text.includes('require("./anthropic-sdk.js")'), `dist/${name} requires the SDK beside it`);
    }
  });
});
