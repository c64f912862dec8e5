// Plan, then apply that plan: the plan a caller was shown is the plan written (round by round, token figures), the
// shown plan object is left as it was shown, and a file that changed between the two (a live agent appended a line)
// is planned again over what it now holds, with the change said in the result, its plan's notes and the CLI's and
// the extension's result text, never applied silently.
import { strict as assert } from 'node:assert';
import { appendFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { applyCompaction, planCompactionOf } from '../../src/core/compact/compact';
import { saveDecisions } from '../../src/core/compact/savedDecisions';
import { chooseRounds, noDecisions } from '../../src/core/compact/decisions';
import { inspectFile } from '../../src/core/inspect';
import type { CompactionPlan } from '../../src/core/compact/types';
import { renderCompactResult } from '../../src/cli/compact';
import { resultSummary } from '../../src/extension/model/planText';
import { buildTranscript } from '../support/reliability';
import { tempDir } from '../support/temp';

const SETTINGS = { targetTokens: 6_000, keepRecentTokens: 2_000, summaryTokens: 1_000 };

/** What a plan decides, round by round, with its token figures. */
function decided(p: CompactionPlan) {
  return {
    rounds: p.rounds.map((r) => `${r.index}:${r.action}:${r.by}:${r.tokensAfter}`),
    keptTokens: p.keptTokens,
    preTokens: p.preTokens,
    toolResults: p.toolResults,
    conflicts: p.conflicts,
  };
}

describe('plan, then apply that plan', () => {
  let dir: string;
  let file: string;
  let lines: string[];

  beforeEach(() => {
    dir = tempDir('ac-plan-apply-');
    file = join(dir, '11111111-2222-4333-8444-555555555555.jsonl');
    lines = buildTranscript({ rounds: 16, textChars: 1_500 });
    writeFileSync(file, lines.join('\n') + '\n');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes exactly the plan it was given and leaves that plan as it was shown', async () => {
    const planned = await planCompactionOf(file, { summarizer: 'extractive', settings: SETTINGS });
    const shown = structuredClone(planned.plan);
    const result = await applyCompaction(planned);
    assert.equal(result.replanned, undefined);
    assert.deepEqual(decided(result.plan), decided(shown), 'the plan applied is the plan shown');
    assert.deepEqual(planned.plan, shown, 'applying leaves the shown plan as it was shown');
    const out = await inspectFile(result.output, { subagents: false });
    assert.equal(
      out.rounds.filter((r) => r.inContext && !r.startsAtBoundary).length,
      shown.rounds.filter((r) => r.inContext && r.action === 'keep').length,
      'the rounds written are the rounds kept',
    );
  });

  it('follows the decisions it was planned with, not ones saved after it was shown', async () => {
    const planned = await planCompactionOf(file, { summarizer: 'extractive', settings: SETTINGS });
    // The user decides something else after seeing the plan (the saved decisions change on disk).
    await saveDecisions(file, chooseRounds(noDecisions(), [planned.plan.rounds.length - 2], 'drop'));
    const result = await applyCompaction(planned);
    assert.deepEqual(decided(result.plan), decided(planned.plan));
    assert.ok(
      result.plan.rounds.every((r) => r.by === 'plan'),
      'no decision saved later is applied',
    );
  });

  it('a line appended between plan and apply: planned again over the file as it is, and said so', async () => {
    const planned = await planCompactionOf(file, { summarizer: 'extractive', settings: SETTINGS });
    const shown = structuredClone(planned.plan);
    // A live agent appends the next prompt to the chain.
    const last = JSON.parse(lines[lines.length - 1]) as Record<string, unknown>;
    const next: Record<string, unknown> = {
      ...last,
      type: 'user',
      parentUuid: last.uuid,
      uuid: '00000000-0000-4000-8000-999999999999',
      message: { role: 'user', content: 'One more thing: also update the changelog.' },
    };
    delete next.requestId;
    appendFileSync(file, JSON.stringify(next) + '\n');
    const grownTo = readFileSync(file);

    const result = await applyCompaction(planned);
    assert.ok(result.replanned, 'the result says it was planned again');
    assert.match(
      result.replanned,
      new RegExp(`changed after the plan was made \\(${grownTo.length - planned.basis.size} bytes were appended`),
    );
    assert.ok(result.plan.preTokens > shown.preTokens, 'the plan applied counts the appended prompt');
    assert.ok(
      result.replanned.includes(
        `about ${shown.preTokens} → ${shown.postTokens} tokens planned, now ${result.plan.preTokens} →`,
      ),
      `it says how the figures changed: ${result.replanned}`,
    );
    assert.equal(result.plan.notes[0], result.replanned, "the applied plan's first note says it");
    assert.deepEqual(planned.plan, shown, 'the shown plan is left as it was shown');
    const out = readFileSync(result.output);
    assert.deepEqual(
      out.subarray(0, grownTo.length),
      grownTo,
      'the fork starts with every byte of the file as it now is',
    );
    assert.ok(
      out.subarray(grownTo.length).includes('also update the changelog'),
      'the appended prompt is kept as the newest round',
    );
    // Both result texts say it.
    assert.match(
      renderCompactResult(result, 'extractive', 'm'),
      /^note: the transcript changed after the plan was made/m,
    );
    assert.match(resultSummary(result), /Not the plan you confirmed: the transcript changed after the plan was made/);
  });
});
