/**
 * What a compaction costs, as the Rounds tree shows it in a real extension host: after a preview, the plan line's
 * tooltip carries the next turn's cost as it is and compacted and when it pays for itself (the fixture's cache expired
 * long ago, so both turns write everything and the smaller context pays at once).
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { CompactionPlan } from '../../src/core/compact/types';
import type { AgentCompactorApi } from '../../src/extension/api';
import { copyFixture, getApi, showTranscript, withTimeout } from './helpers';

describe('host: the cost of a compaction in the plan tooltip', function () {
  this.timeout(180_000);
  let api: AgentCompactorApi;

  before(async () => {
    api = await getApi();
  });

  it('preview: the plan node says the next turn as it is and compacted, and that it pays at once', async () => {
    const file = copyFixture('v2.1.97-live-after.jsonl', 'cost-of-compaction.jsonl');
    await showTranscript(api, file);
    const plan = await withTimeout(
      vscode.commands.executeCommand<CompactionPlan>('agentCompactor.preview', { file, targetTokens: 40_000 }),
      60_000,
      'preview',
    );
    assert.ok(plan && !plan.nothingToDo, 'a plan that compacts');
    const planNode = api.getRoundsTree(1).find((n) => n.kind === 'plan');
    assert.ok(planNode, 'the tree has a plan line');
    assert.match(
      String(planNode.tooltip),
      /\nCost: next turn as it is \$[\d.]+ \(cache expired \d+ days ago\), compacted \$[\d.]+; it pays for itself at once; saves ≈ \$[\d.]+ over the next 20 \(input tokens at [\w.-]+ rates\)\.$/,
    );
  });
});
