// Issue 33, item 6: responses served in fast mode (`usage.speed: "fast"`) are priced as the provider bills them, at a
// multiple of the model's standard rates (the multiples ccusage 20.0.24 applies: 2× on claude-opus-4-8, 6× on
// claude-opus-4-6; test/compat/ccusage.test.ts checks the totals against the real binary). Sessions derived from a
// shared fixture whose every response records `"speed":"standard"`.
import { strict as assert } from 'node:assert';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { analysisCost } from '../../src/core/contextMap';
import { sessionCost, withPriceOverrides } from '../../src/core/cost';
import { inspectFile } from '../../src/core/inspect';
import { sessionStats } from '../../src/core/sessionStats';
import { indexTranscript } from '../../src/core/transcript';
import { runCliInProcess } from '../support/cliInProcess';
import { atSpeed } from '../support/fastSession';
import { tempDir } from '../support/temp';

describe('fast mode is priced at its multiple of the standard rates (issue 33, item 6)', function () {
  this.timeout(120_000);
  let dir: string;
  before(() => (dir = tempDir('ac-cost-fast-')));
  after(() => rmSync(dir, { recursive: true, force: true }));

  const write = (name: string, text: string) => {
    const f = join(dir, name);
    writeFileSync(f, text);
    return f;
  };

  for (const [model, multiple] of [
    ['claude-opus-4-8', 2],
    ['claude-opus-4-6', 6],
  ] as const) {
    it(`${model}: a session answered in fast mode costs ${multiple}× the same session at standard speed, on every surface`, async () => {
      const standard = analysisCost(await inspectFile(write(`${model}-standard.jsonl`, atSpeed(model, 'standard'))));
      const fastFile = write(`${model}-fast.jsonl`, atSpeed(model, 'fast'));
      const fast = analysisCost(await inspectFile(fastFile));
      assert.ok(standard.total.usd > 0);
      const ratio = fast.total.usd / standard.total.usd;
      assert.ok(Math.abs(ratio - multiple) < 1e-9, `fast / standard = ${ratio}`);
      assert.deepEqual(fast.fastUnknown, []);
      const row = await sessionStats(fastFile);
      assert.ok(Math.abs(row.costUsd - fast.total.usd) < 1e-9, `the Sessions row: ${row.costUsd}`);
      const run = await runCliInProcess(['inspect', '--json', fastFile]);
      const cli = (JSON.parse(run.stdout) as { cost: { total: { usd: number } } }).cost;
      assert.ok(Math.abs(cli.total.usd - fast.total.usd) < 1e-9, `inspect --json: ${cli.total.usd}`);
    });
  }

  it("the user's prices give a fast multiple (--prices, agentCompactor.prices) and keep the built-in one otherwise", async () => {
    const sonnet = (await indexTranscript(write('sonnet-fast-own.jsonl', atSpeed('claude-sonnet-4-6', 'fast'))))
      .entries;
    const standard = sessionCost(sonnet).total.usd;
    const given = sessionCost(sonnet, withPriceOverrides({ 'claude-sonnet-4-6': { fast: 3 } }));
    assert.ok(Math.abs(given.total.usd / standard - 3) < 1e-9, `${given.total.usd} / ${standard}`);
    assert.deepEqual(given.fastUnknown, []);
    const opus = (await indexTranscript(write('opus-fast-own.jsonl', atSpeed('claude-opus-4-8', 'fast')))).entries;
    const cheaper = sessionCost(opus, withPriceOverrides({ 'claude-opus-4-8': { input: 2.5, output: 12.5 } }));
    assert.ok(Math.abs(cheaper.total.usd / sessionCost(opus).total.usd - 0.5) < 1e-9, 'half the rates, still 2× fast');
  });

  it('a model whose fast rate we do not know is priced at standard rates and the figure says so', async () => {
    const model = 'claude-sonnet-4-6';
    const standard = analysisCost(await inspectFile(write('sonnet-standard.jsonl', atSpeed(model, 'standard'))));
    const fastFile = write('sonnet-fast.jsonl', atSpeed(model, 'fast'));
    const fast = analysisCost(await inspectFile(fastFile));
    assert.equal(fast.total.usd, standard.total.usd);
    assert.deepEqual(fast.fastUnknown, [model]);
    assert.deepEqual(standard.fastUnknown, []);
    const run = await runCliInProcess(['inspect', fastFile]);
    assert.match(
      run.stdout,
      /claude-sonnet-4-6 answered in fast mode, whose rate is not in the price table: priced at the standard rates/,
    );
  });
});
