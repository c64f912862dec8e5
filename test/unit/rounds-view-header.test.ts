// The Rounds views' headers: the plan's count is a badge in our own container only. In the Explorer a badge lands
// on the Explorer's activity-bar icon and reads like unsaved files (a user walk found it there).
import { strict as assert } from 'node:assert';
import { inspectFile } from '../../src/core/inspect';
import { planCompaction } from '../../src/core/compact/plan';
import { planFigures } from '../../src/extension/model/planText';
import { roundsViewHeader } from '../../src/extension/model/roundsViewHeader';
import { fixture } from '../support/fixtures';

describe('Rounds view headers', () => {
  it('a plan: a badge in the container, the count in the Explorer view description and no badge there', async () => {
    const file = fixture('with-compactions.jsonl');
    const analysis = await inspectFile(file, { subagents: false });
    const plan = await planCompaction(analysis, { targetTokens: 20_000, keepRecentTokens: 2_000 });
    assert.equal(plan.nothingToDo, false);
    const rounds = planFigures(plan).rounds;
    assert.ok(rounds > 1);
    const container = roundsViewHeader(file, plan, 'container');
    assert.deepEqual(container.badge, { value: rounds, tooltip: `${rounds} rounds would be summarized or dropped` });
    assert.equal(container.description, 'with-compactions.jsonl');
    const explorer = roundsViewHeader(file, plan, 'explorer');
    assert.equal(explorer.badge, undefined);
    assert.equal(explorer.description, `with-compactions.jsonl · plan: ${rounds} rounds to summarize or drop`);
  });

  it('no plan, or nothing to do: the file name only, no badge anywhere', async () => {
    const file = fixture('with-compactions.jsonl');
    const analysis = await inspectFile(file, { subagents: false });
    const idle = await planCompaction(analysis, { targetTokens: 10_000_000 });
    for (const place of ['container', 'explorer'] as const) {
      assert.deepEqual(roundsViewHeader(file, null, place), {
        description: 'with-compactions.jsonl',
        badge: undefined,
      });
      assert.deepEqual(roundsViewHeader(file, idle, place).badge, undefined);
      assert.deepEqual(roundsViewHeader(undefined, null, place), { description: undefined, badge: undefined });
    }
  });
});
