// The smallest reachable target is exactly where the plan stops saying the target cannot be reached.
import { strict as assert } from 'node:assert';
import { basename } from 'node:path';
import { planCompaction } from '../../src/core/compact/plan';
import { smallestReachableTarget } from '../../src/core/compact/reach';
import { inspectFile } from '../../src/core/inspect';
import { claudeFixtures } from '../support/fixtures';

const cannotReach = (notes: readonly string[]) => notes.some((n) => /cannot reach the [\d]+-token target/.test(n));

describe('smallest reachable target', function () {
  this.timeout(300_000);
  for (const file of claudeFixtures()) {
    it(`${basename(file)}: reachable at the figure, not one token below`, async () => {
      const analysis = await inspectFile(file, { subagents: false });
      const smallest = await smallestReachableTarget(analysis, {});
      const at = await planCompaction(analysis, { targetTokens: smallest, keepRecentTokens: 1 });
      assert.equal(cannotReach(at.notes), false, `at ${smallest}: ${at.notes.join('; ')}`);
      assert.ok(at.nothingToDo || at.postTokens - at.settings.summaryTokens < smallest, 'what is kept fits');
      const below = await planCompaction(analysis, { targetTokens: smallest - 1, keepRecentTokens: 1 });
      assert.equal(cannotReach(below.notes), true, `at ${smallest - 1}: ${below.notes.join('; ')}`);
      assert.ok(smallest >= (analysis.report.totals.overheadTokens ?? 0));
    });
  }
});
