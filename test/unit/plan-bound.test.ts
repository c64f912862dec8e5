// What bounds a plan (core/compact/bound.ts), on real sessions: a Codex rollout whose result stays ~47k for any target
// from 100k up (the keep-recent limit, said on the plan line, in the CLI and in --json), a target at or above the
// context plans nothing, and a target under the system prompt and tools is explained by them.
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { inspectFile } from '../../src/core/inspect';
import { planCompaction } from '../../src/core/compact/plan';
import { planBound } from '../../src/core/compact/bound';
import { renderPlan } from '../../src/cli/plan';
import { contextChangeText, hasSummary, planDetail, planSummary } from '../../src/extension/model/planText';
import { contextNow } from '../../src/core/context';
import { fixture, sharedFixtures } from '../support/fixtures';

const codex142 = join(sharedFixtures, 'codex', 'rollout-0.142.jsonl');
const codex140 = join(sharedFixtures, 'codex', 'rollout-0.140.jsonl');

describe('What bounds a plan', function () {
  this.timeout(120_000);

  it('a Codex rollout compacted for 100k and 150k keeps ~the same: the keep-recent limit bounds it, and every plan surface says so', async () => {
    const analysis = await inspectFile(codex142, { subagents: false, appendable: false });
    const context = contextNow(analysis.report);
    const results: number[] = [];
    for (const target of [100_000, 150_000]) {
      const plan = await planCompaction(analysis, { targetTokens: target });
      assert.equal(plan.nothingToDo, false);
      const bound = planBound(plan);
      assert.equal(bound.kind, 'keep-recent', `${target}: ${bound.text}`);
      assert.ok(bound.resultTokens < target, `${bound.resultTokens} < ${target}`);
      assert.equal(bound.resultTokens, Math.round(plan.postTokens + plan.overheadTokens));
      assert.match(
        bound.text,
        /^kept verbatim capped at 40k by Keep Recent Tokens: result \d+k, below your \d+k target/,
      );
      results.push(bound.resultTokens);
      // The Rounds view's plan node, its tooltip and the confirmation dialog all use these texts.
      assert.match(
        contextChangeText(plan, context),
        new RegExp(
          `below the ${target.toLocaleString('en-US')} target: kept verbatim capped at 40k by Keep Recent Tokens$`,
        ),
      );
      assert.match(planSummary(plan, context), /kept verbatim capped at 40k by Keep Recent Tokens/);
      assert.match(planDetail(plan, context), /What bounds the result: kept verbatim capped at 40k/);
      assert.match(renderPlan(plan), /^bound: kept verbatim capped at 40k by Keep Recent Tokens/m);
    }
    assert.equal(results[0], results[1], 'the same result for both targets: the target is not what bounds it');
    // With a larger keep-recent limit the same target keeps more: the limit really is the bound.
    const wider = await planCompaction(analysis, { targetTokens: 150_000, keepRecentTokens: 120_000 });
    assert.ok(Math.round(wider.postTokens + wider.overheadTokens) > results[1]);
  });

  it('a Claude Code session whose kept rounds shrink under budgeting: the keep-recent limit still names the bound (issue 37, item 6)', async () => {
    // 165 rounds summarized, ~37k kept after budgeting, the next older round ~1.9k: the planner sized the tail before
    // the budget at over 40k, so Keep Recent Tokens, not the 100k target, is why the result is ~57k.
    const analysis = await inspectFile(fixture('v2.1.97-images.jsonl'), { subagents: false });
    const context = contextNow(analysis.report);
    const plan = await planCompaction(analysis, { targetTokens: 100_000 });
    const bound = planBound(plan);
    assert.equal(bound.kind, 'keep-recent', bound.text);
    assert.ok(bound.resultTokens < 70_000, String(bound.resultTokens));
    assert.match(renderPlan(plan), /^bound: kept verbatim capped at 40k by Keep Recent Tokens: result \d+k, below/m);
    assert.match(planSummary(plan, context), /below the 100,000 target: kept verbatim capped at 40k by Keep Recent/);
    // With room for the next older round under the limit, the plan keeps it: the limit really is the bound.
    const wider = await planCompaction(analysis, { targetTokens: 100_000, keepRecentTokens: 60_000 });
    assert.ok(wider.keptTokens > plan.keptTokens);
  });

  it('a target at or above the context now plans nothing, and says so (the rounds estimate more than the context here)', async () => {
    const analysis = await inspectFile(codex140, { subagents: false, appendable: false });
    const context = contextNow(analysis.report);
    const target = Math.ceil(context.tokens / 1000) * 1000 + 1000;
    const plan = await planCompaction(analysis, { targetTokens: target });
    // The transcript's estimate is over the target's room for it: the rule is the context, not the estimate.
    assert.ok(plan.preTokens > plan.messageTarget, `pre ${plan.preTokens} vs room ${plan.messageTarget}`);
    assert.equal(plan.nothingToDo, true);
    assert.equal(plan.summarizedRounds, 0);
    const bound = planBound(plan);
    assert.equal(bound.kind, 'nothing-to-do');
    assert.match(bound.text, /target is at or above the context now/);
    assert.match(planSummary(plan, context), /^Nothing to compact: .*\(at or above the context now\)$/);
    assert.match(
      renderPlan(plan),
      /^bound: nothing to compact with your \d+k target: the target is at or above the context now/m,
    );
  });

  it('a target just above the context that still budgets tool results: nothing needs compacting, and what would change is named (issue 37, item 5)', async () => {
    // The plan line said "0 rounds / 0 tokens … → 59,2xx" without saying where ~48k go; the dialog "kept verbatim +
    // summary" with no summary, and offered Review Summary.
    const analysis = await inspectFile(fixture('with-compactions.jsonl'), { subagents: false });
    const context = contextNow(analysis.report);
    const target = Math.ceil(context.tokens / 1000) * 1000;
    const plan = await planCompaction(analysis, { targetTokens: target, maxToolResultChars: 2000 });
    assert.equal(plan.nothingToDo, false, 'over-long tool results still become previews');
    assert.equal(plan.summarizedRounds + plan.droppedRounds, 0);
    const bound = planBound(plan);
    assert.equal(bound.kind, 'nothing-to-do', bound.text);
    assert.match(
      bound.text,
      /^nothing needs compacting with your \d+k target: the context now \([\d,]+\) is within it; compacting anyway would make it ~\d+k: /,
    );
    assert.match(bound.stillChanges ?? '', /^\d+ over-long tool results would become previews \(~\d+k less\)/);
    assert.match(
      bound.stillChanges ?? '',
      /a resume starts without the ~7\.4k the agent attached after its compaction$/,
    );
    const summary = planSummary(plan, context);
    assert.match(
      summary,
      /^Nothing needs compacting: .*\(at or above the context now\); compacting anyway would make it [\d,]+: \d+ over-long/,
    );
    assert.doesNotMatch(summary, /0 rounds/);
    assert.match(planDetail(plan, context), /kept verbatim, no summary\)/);
    assert.equal(hasSummary(plan), false, 'no Review Summary offer');
    assert.match(
      contextChangeText(plan, context),
      /: nothing needs compacting with the [\d,]+ target; compacting anyway, \d+ over-long/,
    );
    assert.match(renderPlan(plan), /^no round summarized or dropped, \d+ tool results replaced by previews; /m);
    assert.match(renderPlan(plan), /^bound: nothing needs compacting with your/m);
    // A plan that summarizes has a summary to review.
    assert.equal(hasSummary(await planCompaction(analysis, { targetTokens: 60_000 })), true);
  });

  it('a target below the system prompt and tools is bounded by them; the floor is never above the context', async () => {
    const analysis = await inspectFile(fixture('with-compactions.jsonl'), { subagents: false });
    const plan = await planCompaction(analysis, { targetTokens: 10_000 });
    const bound = planBound(plan);
    assert.equal(bound.kind, 'overhead');
    assert.ok(bound.floorTokens >= plan.overheadTokens && bound.floorTokens <= bound.contextTokens);
    assert.match(
      planSummary(plan, contextNow(analysis.report)),
      /above the 10,000 target: the system prompt and tools alone take ~\d+k/,
    );
  });
});
