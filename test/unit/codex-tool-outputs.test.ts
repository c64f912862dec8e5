// Issue 33, Codex: the confirmation counts the tool outputs the kept rounds carry as Codex sends them
// (`function_call_output`, `custom_tool_call_output`), counted here from the rollout's own records.
import { strict as assert } from 'node:assert';
import { chmodSync, copyFileSync, readFileSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { compactFile } from '../../src/core/compact/compact';
import { planCompaction } from '../../src/core/compact/plan';
import { loadSavedPlanInputs } from '../../src/core/compact/savedDecisions';
import { contextNow } from '../../src/core/context';
import { inspectFile } from '../../src/core/inspect';
import { confirmationText, planFigures } from '../../src/extension/model/planText';
import { buildBudgetState } from '../../src/extension/model/budget';
import { isBudgetState } from '../../src/webview/protocol';
import { agentFixtures } from '../support/fixtures';
import { tempDir } from '../support/temp';

const codexFixture = (name: string): string => agentFixtures('codex').find((f) => basename(f) === name)!;

describe('the Codex confirmation counts the tool outputs Codex sends (issue 33)', function () {
  this.timeout(300_000);

  for (const name of ['rollout-0.140.jsonl', 'rollout-0.142.jsonl']) {
    it(`${name}: "Tool results: … kept" counts the kept rounds' function_call_output and custom_tool_call_output`, async () => {
      const file = codexFixture(name);
      const analysis = await inspectFile(file, { subagents: false });
      const plan = await planCompaction(analysis, { targetTokens: 60_000 }, undefined, undefined, null);
      // Counted from the rollout's own records, by the lines of the rounds the plan keeps.
      const lines = readFileSync(file, 'utf8').split('\n');
      let outputs = 0;
      for (const r of plan.rounds) {
        if (!r.inContext || r.action !== 'keep') continue;
        for (let l = r.firstLine; l <= r.lastLine; l++) {
          const o = JSON.parse(lines[l - 1]) as { type: string; payload: { type?: string } };
          if (o.type === 'response_item' && /^(function|custom_tool)_call_output$/.test(o.payload.type ?? ''))
            outputs++;
        }
      }
      assert.ok(outputs > 0, 'the kept rounds carry tool outputs');
      const { detail } = confirmationText(plan, contextNow(analysis.report), {
        mode: 'fork',
        summarizer: 'extractive',
        baseUrl: 'https://api.anthropic.com',
        agent: 'codex',
      });
      const said = /Tool results: (\d[\d,]*) replaced by previews(?:[^,]*)?, (\d[\d,]*) kept\./.exec(detail);
      assert.ok(said, detail);
      assert.equal(Number(said[1]), 0, 'Codex has no previews');
      assert.equal(Number(said[2].replace(/,/g, '')), outputs);
    });
  }

  it('a fork compacted again: the outputs the first compaction kept whole are kept, none said replaced earlier', async () => {
    const dir = tempDir('ac-codex-kept-');
    try {
      const file = join(dir, 'rollout-0.140.jsonl');
      copyFileSync(codexFixture('rollout-0.140.jsonl'), file);
      chmodSync(file, 0o644);
      const fork = await compactFile(file, { summarizer: 'extractive', settings: { targetTokens: 60_000 } });
      const keptFirst = planFigures(fork.plan).keptResults;
      assert.ok(keptFirst > 0);
      const analysis = await inspectFile(fork.output, { subagents: false });
      const { state, decisions } = await loadSavedPlanInputs(fork.output);
      assert.ok(Object.keys(state.decisions).length > 0, 'the first compaction saved its decisions');
      const again = await planCompaction(analysis, { targetTokens: 60_000 }, state, decisions, null);
      assert.ok(
        again.toolResults.some((t) => t.action === 'frozen'),
        'its decisions are re-applied',
      );
      const f = planFigures(again);
      assert.equal(f.frozenResults, 0, 'no preview was ever written');
      assert.equal(f.keptResults, again.toolResults.length);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the Budget Preview of a Codex plan: its outputs kept whole, no limit named, no budget given as the reason', async () => {
    const file = codexFixture('rollout-0.140.jsonl');
    const analysis = await inspectFile(file, { subagents: false });
    const plan = await planCompaction(analysis, { targetTokens: 60_000 }, undefined, undefined, null);
    const state = buildBudgetState(file, analysis, plan);
    assert.ok(isBudgetState(state), 'the page accepts it');
    assert.ok(state.wireMessages.length > 0 && state.toolResults.length > 0);
    assert.ok(state.wireMessages.every((w) => w.limit === null && w.afterChars === w.beforeChars));
    assert.ok(state.toolResults.every((t) => t.decision === 'kept' && !/budget|limit/.test(t.reason)));
  });
});
