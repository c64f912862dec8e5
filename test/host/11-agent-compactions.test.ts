/**
 * The compactions a file records, in a real extension host: the Rounds tree's boundary node says who compacted, the
 * trigger, before → after against the next request and what it cost; the Context Map lists it; and the status bar's
 * tooltip carries the next turn's cost — as it is, and after a preview the plan's own cost line (the one the plan
 * node's tooltip shows).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
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
    assert.match(tip, /Fork From Before This Compaction \(context menu\) writes a new session/);
  });

  it('Fork From Before This Compaction, run on the boundary node: a new session beside it, the original untouched', async () => {
    const boundary = api.getRoundsTree(1).find((n) => n.kind === 'boundary');
    assert.ok(boundary && boundary.contextValue === 'boundary');
    const before = fs.readFileSync(file);
    const files = fs.readdirSync(path.dirname(file));
    // As the context menu calls it (the node itself), with the confirmation answered by a programmatic call's option.
    const result = await withTimeout(
      vscode.commands.executeCommand<{ output: string; sessionId: string; messages: number }>(
        'agentCompactor.forkBeforeCompaction',
        { file: boundary.file, compaction: (boundary as { compaction?: number }).compaction, confirm: false },
      ),
      60_000,
      'fork before the compaction',
    );
    assert.ok(result, 'a fork was written');
    assert.equal(path.dirname(result.output), path.dirname(file));
    assert.deepEqual(fs.readFileSync(file), before, 'the original is untouched');
    assert.deepEqual(fs.readdirSync(path.dirname(file)).sort(), [...files, path.basename(result.output)].sort());
    const lines = before.toString('utf8').split('\n');
    assert.equal(fs.readFileSync(result.output, 'utf8'), lines.slice(0, 575).join('\n') + '\n');
    // The fork is shown: no compaction in it, its last round the one the compaction summarized.
    await waitFor(
      () => (api.getRoundsTree(1).some((n) => n.kind === 'header' && n.file === result.output) ? true : undefined),
      30_000,
      'the fork in the Rounds view',
    );
    assert.equal(api.getRoundsTree(1).filter((n) => n.kind === 'boundary').length, 0);
    // Back to the original (the fork was shown without an editor of its own), then the fork goes.
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await showTranscript(api, file);
    fs.rmSync(result.output);
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
    // Its cost section's next-turn line: the cache as the session left it and the next turn's input as it is.
    assert.match(
      shown.cost.nextTurn,
      /^Prompt cache: cache expired \d+ days ago \(written for 1 hour, last used at \d\d:\d\d UTC\); the next turn's input as it is ≈ \$[\d.]+ \(at [\w.-]+ rates\)\.$/,
    );
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
