// Session cost against the real ccusage (pinned, provisioned by scripts/provision-ccusage.sh), the
// tool users already run for the same figure: each shared Claude Code fixture alone under a private
// HOME, `ccusage session --json --offline` (its built-in price table), and our `sessionCost` of the
// same file, within 1%. Each file is priced as if alone, in as few ccusage runs as that allows
// (ccusageSessions): two fixtures of one session (live-before and live-after) share responses, which
// ccusage would count once across the files of a run, so they never share one.
import { strict as assert } from 'node:assert';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { sessionCost } from '../../src/core/cost';
import { indexTranscript } from '../../src/core/transcript';
import { claudeFixtures } from '../support/fixtures';
import { CCUSAGE, ccusageSessions, type CcusageSession } from '../support/ccusage';
import { atSpeed } from '../support/fastSession';
import { tempDir } from '../support/temp';

describe('session cost agrees with ccusage 20.0.24 (real binary, offline)', function () {
  this.timeout(600_000);
  const FAST_MODELS = ['claude-opus-4-8', 'claude-opus-4-6'];
  let fastDir: string;
  const fastFile = (model: string) => join(fastDir, `fast-${model}.jsonl`);
  /** ccusage's figures for every file below, priced once on first use. */
  let priced: Map<string, CcusageSession | null> | undefined;
  const theirsFor = (file: string): CcusageSession | null => {
    priced ??= ccusageSessions([...claudeFixtures(), ...FAST_MODELS.map(fastFile)]);
    assert.ok(priced.has(file), `${file} was priced`);
    return priced.get(file)!;
  };
  before(() => {
    if (!existsSync(CCUSAGE))
      throw new Error(`ccusage not provisioned at ${CCUSAGE}: run bash scripts/provision-ccusage.sh`);
    fastDir = tempDir('ac-ccusage-fast-');
    for (const model of FAST_MODELS) writeFileSync(fastFile(model), atSpeed(model, 'fast'));
  });
  after(() => rmSync(fastDir, { recursive: true, force: true }));

  const compared: string[] = [];
  for (const file of claudeFixtures()) {
    const name = basename(file);
    it(`${name}: within 1% of ccusage's totalCost`, async () => {
      const theirs = theirsFor(file);
      const ours = sessionCost((await indexTranscript(file)).entries);
      if (!theirs) {
        assert.equal(ours.total.usd, 0, `${name}: ccusage found no usage, we priced $${ours.total.usd}`);
        return;
      }
      // A model ccusage has no price for counts $0 there; we price it and report the difference.
      const unpricedThere = theirs.modelBreakdowns.filter(
        (m) => m.cost === 0 && m.inputTokens + m.outputTokens + m.cacheCreationTokens + m.cacheReadTokens > 0,
      );
      if (unpricedThere.length) {
        for (const m of unpricedThere) {
          const ourModel = ours.byModel.get(m.modelName);
          assert.ok(ourModel && ourModel.usd > 0, `${name}: ${m.modelName} unpriced by ccusage and by us`);
        }
        return;
      }
      const diff = Math.abs(ours.total.usd - theirs.totalCost);
      assert.ok(
        diff <= 0.01 * theirs.totalCost,
        `${name}: ours $${ours.total.usd.toFixed(6)}, ccusage $${theirs.totalCost.toFixed(6)}`,
      );
      for (const m of theirs.modelBreakdowns) {
        const o = ours.byModel.get(m.modelName)?.usd ?? 0;
        assert.ok(
          Math.abs(o - m.cost) <= 0.01 * m.cost + 1e-9,
          `${name} ${m.modelName}: ours $${o}, ccusage $${m.cost}`,
        );
      }
      compared.push(name);
    });
  }

  // Fast mode (usage speed: fast), issue 33 item 6: ccusage multiplies the model's rates (its
  // fast-multiplier-overrides.json); ours must give the same total. It names the model `<model>-fast`.
  for (const model of FAST_MODELS) {
    it(`a session answered in fast mode by ${model}: within 1% of ccusage's totalCost`, async () => {
      const file = fastFile(model);
      const theirs = theirsFor(file);
      assert.ok(theirs && theirs.totalCost > 0, 'ccusage prices it');
      assert.ok(
        theirs.modelBreakdowns.some((m) => m.modelName === `${model}-fast`),
        'ccusage read it as fast',
      );
      const ours = sessionCost((await indexTranscript(file)).entries);
      assert.ok(
        Math.abs(ours.total.usd - theirs.totalCost) <= 0.01 * theirs.totalCost,
        `ours $${ours.total.usd.toFixed(6)}, ccusage $${theirs.totalCost.toFixed(6)}`,
      );
    });
  }

  it('compared at least ten fixtures with every model priced by both', () => {
    assert.ok(compared.length >= 10, `compared: ${compared.join(', ')}`);
  });
});
