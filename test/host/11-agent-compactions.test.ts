/**
 * The compactions a file records, in a real extension host: the Rounds tree's boundary node says who compacted, the
 * trigger, before → after against the next request and what it cost; the Context Map lists it; and the status bar's
 * tooltip carries the next turn's cost — as it is, and after a preview the plan's own cost line (the one the plan
 * node's tooltip shows).
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { CompactionPlan } from '../../src/core/compact/types';
import type { AgentCompactorApi } from '../../src/extension/api';
import type { MapState } from '../../src/webview/mapProtocol';
import { copyFixture, getApi, showTranscript, waitFor, withTimeout } from './helpers';

describe('host: compactions the agent made, and the status bar cost', function () {
  this.timeout(180_000);
  let api: AgentCompactorApi;
  let file: string;

  before(async () => {
    api = await getApi();
    file = copyFixture('with-compactions.jsonl', 'agent-compacted.jsonl');
    await showTranscript(api, file);
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it("the Rounds tree marks Claude Code's automatic compaction: trigger, before → after, next request, cost", () => {
    const boundary = api.getRoundsTree(1).find((n) => n.kind === 'boundary');
    assert.ok(boundary, 'a boundary node');
    assert.equal(boundary.label, '──── auto compaction by Claude Code ────');
    assert.equal(boundary.description, '167,174 → not recorded; next request 51,732 · line 576');
    const tip = String(boundary.tooltip);
    assert.match(tip, /^Compaction 1: auto compaction by Claude Code, line 576\. Rounds above it are history/);
    assert.match(tip, /\nContext: 167,174 → not recorded; next request 51,732\.\n/);
    assert.match(tip, /\nIts own request \(the summary\): not recorded\.\n/);
    assert.match(tip, /Agent Compactor does not fork a session from before a compaction/);
  });

  it('the Context Map lists it', async () => {
    const state = await withTimeout(
      vscode.commands.executeCommand<MapState>('agentCompactor.openContextMap', { file }),
      60_000,
      'open the map',
    );
    assert.deepEqual(
      state.compactions.map((c) => [c.line, c.title, c.figures, c.cost]),
      [[576, 'auto compaction by Claude Code', '167,174 → not recorded; next request 51,732', 'not recorded']],
    );
    const shown = await waitFor(() => api.getContextMap(file)?.state, 30_000, 'the map state');
    assert.deepEqual(shown.compactions, state.compactions);
  });

  it("the status bar's tooltip: the next turn's cost as it is; with a preview, the plan's cost line", async () => {
    await showTranscript(api, file);
    const tooltipWith = (text: string) => {
      const t = api.getStatusBarTooltip();
      return t?.includes(text) ? t : undefined;
    };
    const asIs = await waitFor(() => tooltipWith('agent-compacted.jsonl'), 30_000, 'the status bar tooltip');
    assert.match(
      asIs,
      /\n\nPrompt cache: cache expired \d+ days ago[^\n]*; the next turn's input as it is ≈ \$[\d.]+ \(at [\w.-]+ rates\)\.\n\n/,
    );
    const plan = await withTimeout(
      vscode.commands.executeCommand<CompactionPlan>('agentCompactor.preview', { file, targetTokens: 20_000 }),
      60_000,
      'preview',
    );
    assert.ok(plan && !plan.nothingToDo, 'a plan that compacts');
    const planNode = api.getRoundsTree(1).find((n) => n.kind === 'plan');
    const costLine = String(planNode?.tooltip)
      .split('\n')
      .find((l) => l.startsWith('Cost: next turn as it is '));
    assert.ok(costLine, `the plan's tooltip has its cost line: ${planNode?.tooltip}`);
    const planned = await waitFor(() => tooltipWith(costLine), 30_000, 'the plan cost line in the status bar tooltip');
    assert.match(planned, /compacted \$[\d.]+; it pays for itself/);
  });
});
