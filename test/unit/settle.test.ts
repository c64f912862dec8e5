// Settling a plan is a function of values: the plan with its summary written (its real size instead of the reserve,
// the rounds the summarizer left out) is a new plan, the plan given is left exactly as it was (deep-frozen here, so a
// change to it throws), and the settlement says what changed. The review path applies the settled plan it showed.
import { strict as assert } from 'node:assert';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { applyCompaction, draftSummary, withSummaryText } from '../../src/core/compact/compact';
import { planDetails, type PlanDetails } from '../../src/core/compact/plan';
import { settleSummary, settlementText, settleWritten, withNotes } from '../../src/core/compact/settle';
import { inspectFile } from '../../src/core/inspect';
import type { Analysis } from '../../src/core/analysis';
import { buildTranscript } from '../support/reliability';
import { tempDir } from '../support/temp';

const SETTINGS = { targetTokens: 6_000, keepRecentTokens: 2_000, summaryTokens: 1_000 };

/** `o` and everything it holds frozen: in strict mode (ES modules, TypeScript) a write to any of it throws. */
function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object' && !Object.isFrozen(o)) {
    Object.freeze(o);
    for (const v of Object.values(o)) deepFreeze(v);
  }
  return o;
}

describe('settling a plan', () => {
  let dir: string;
  let file: string;
  let analysis: Analysis;
  let details: PlanDetails;

  before(async () => {
    dir = tempDir('ac-settle-');
    file = join(dir, '11111111-2222-4333-8444-555555555555.jsonl');
    writeFileSync(file, buildTranscript({ rounds: 16, textChars: 1_500 }).join('\n') + '\n');
    analysis = await inspectFile(file, { subagents: false });
    details = await planDetails(analysis, SETTINGS);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('returns a new plan and leaves the plan it was given as it was', () => {
    const given = deepFreeze(structuredClone(details.plan));
    const before = structuredClone(given);
    const summarized = given.rounds.filter((r) => r.inContext && r.action === 'summarize').map((r) => r.index);
    assert.ok(summarized.length >= 2, 'the plan summarizes rounds');
    const settled = settleSummary(
      analysis,
      { ...details, plan: given },
      { summary: 'A short summary.', dropped: [summarized[0]], clipped: 'the summary was clipped' },
    );
    assert.deepEqual(given, before, 'the plan given is unchanged');
    assert.notEqual(settled.details.plan, given);
    assert.equal(settled.details.plan.rounds[summarized[0]].action, 'drop');
    assert.equal(given.rounds[summarized[0]].action, 'summarize');
    assert.equal(settled.details.plan.droppedRounds, given.droppedRounds + 1);
    assert.equal(settled.details.plan.summarizedRounds, given.summarizedRounds - 1);
    assert.deepEqual(settled.details.plan.notes, [...given.notes, 'the summary was clipped']);
    // The other settling steps are values too.
    const written = settleWritten(given, 123, ['a note of the run']);
    assert.equal(written.postTokens, 123);
    assert.deepEqual(written.notes, [...given.notes, 'a note of the run']);
    assert.deepEqual(withNotes(given, { before: ['first'] }).notes, ['first', ...given.notes]);
    assert.deepEqual(given, before, 'the plan given is still unchanged');
  });

  it('says what changed: the summary as written against its reserve, the rounds dropped, the promised size', () => {
    const plan = details.plan;
    const summarized = plan.rounds.filter((r) => r.inContext && r.action === 'summarize').map((r) => r.index);
    const { details: after, changes } = settleSummary(analysis, details, {
      summary: 'word '.repeat(400),
      dropped: [summarized[0]],
      clipped: null,
    });
    assert.equal(changes.summaryTokens.planned, SETTINGS.summaryTokens, 'the reserve the plan counted');
    assert.ok(changes.summaryTokens.written > 0 && changes.summaryTokens.written < SETTINGS.summaryTokens);
    assert.deepEqual(changes.postTokens, { planned: plan.postTokens, settled: after.plan.postTokens });
    assert.equal(
      after.plan.postTokens,
      after.plan.keptTokens + changes.summaryTokens.written + changes.resentTokens.settled,
    );
    assert.deepEqual(changes.dropped, [summarized[0]]);
    assert.deepEqual(changes.notes, []);
    const text = settlementText(changes);
    assert.match(text, new RegExp(`the summary is about ${changes.summaryTokens.written} tokens, 1000 were planned`));
    assert.match(text, new RegExp(`round ${summarized[0]} dropped instead of summarized`));
    assert.match(text, new RegExp(`about ${plan.postTokens} → ${after.plan.postTokens} tokens after compaction`));
    // A summary of exactly the size planned, nothing dropped: nothing to say.
    const same = settleSummary(analysis, after, { summary: 'word '.repeat(400), dropped: [], clipped: null });
    assert.equal(settlementText(same.changes), '');
  });

  it('a drafted summary settles the plan it returns, and Apply writes that settled plan', async () => {
    const draft = await draftSummary(file, { summarizer: 'extractive', settings: SETTINGS });
    assert.equal(draft.planned.plan, draft.plan, 'the plan shown is the plan carried to Apply');
    assert.equal(draft.planned.details.plan, draft.plan);
    assert.equal(draft.settled.summaryTokens.planned, SETTINGS.summaryTokens);
    assert.equal(draft.settled.postTokens.settled, draft.plan.postTokens);
    const shown = structuredClone(draft.plan);
    const result = await applyCompaction(withSummaryText(draft.planned, draft.summary));
    assert.equal(result.replanned, undefined);
    assert.deepEqual(draft.plan, shown, 'applying leaves the plan shown as it was');
    assert.deepEqual(
      result.plan.rounds.map((r) => `${r.index}:${r.action}`),
      shown.rounds.map((r) => `${r.index}:${r.action}`),
    );
    assert.equal(result.summarizer, 'given');
    assert.deepEqual(result.promised?.tokens, Math.round(shown.postTokens + shown.overheadTokens));
  });
});
