/**
 * The Context Map in a real extension host: Open Context Map on a shared fixture posts the figures
 * the engine computes for the same file (one bar per round, stacks adding up to the running
 * context, the session cost of src/core/cost), a panel per transcript, a target set through a
 * preview reaches the map, and the prices setting changes the cost it shows.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { inspectFile } from '../../src/core/inspect';
import { sessionCost } from '../../src/core/cost';
import type { AgentCompactorApi } from '../../src/extension/api';
import type { MapState } from '../../src/webview/mapProtocol';
import { getApi, showTranscript, waitFor, workspaceDir } from './helpers';

const FIXTURE = 'with-compactions.jsonl';
const OTHER = 'example.jsonl';

const total = (stack: number[]) => stack.reduce((a, b) => a + b, 0);

describe('host: Context Map', function () {
  this.timeout(120_000);
  let api: AgentCompactorApi;
  let file: string;

  before(async () => {
    file = path.join(workspaceDir(), FIXTURE);
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
    await vscode.window.showTextDocument(doc, { preview: false });
    api = await getApi();
    await showTranscript(api, file);
  });

  after(async () => {
    await vscode.workspace
      .getConfiguration('agentCompactor')
      .update('prices', undefined, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('Open Context Map returns the engine figures of the file: a bar per round, its cost', async () => {
    const state = await vscode.commands.executeCommand<MapState>('agentCompactor.openContextMap', { file });
    assert.ok(state, 'the command returns the state it posted');
    const engine = await inspectFile(file);
    assert.equal(state.rounds.length, engine.report.rounds.length);
    assert.ok(
      state.rounds.some((r) => r.boundary),
      'compaction boundaries',
    );
    for (const r of state.rounds) assert.ok(total(r.stack) > 0);
    const cost = sessionCost(engine.index.entries);
    assert.ok(Math.abs(state.cost.totalUsd - cost.total.usd) < 1e-9, `${state.cost.totalUsd} vs ${cost.total.usd}`);
    assert.equal(api.getContextMap(file)?.state?.rounds.length, state.rounds.length);
  });

  it('one panel per transcript; a preview target reaches the map with the plan marks', async () => {
    const other = path.join(workspaceDir(), OTHER);
    const mapGroups = () =>
      vscode.window.tabGroups.all.filter((g) =>
        g.tabs.some((t) => t.input instanceof vscode.TabInputWebview && t.label.startsWith('Context Map:')),
      );
    // The workbench reports a new tab to the extension host a moment after the panel opens.
    await waitFor(() => mapGroups().length === 1 || undefined, 30_000, 'the first map to show as a tab');
    const groupsBefore = vscode.window.tabGroups.all.length;
    const second = await vscode.commands.executeCommand<MapState>('agentCompactor.openContextMap', { file: other });
    assert.equal(second.fileName, OTHER);
    // A further map is a tab beside the first, not a new group squeezing the rest.
    const groupsNow = () => vscode.window.tabGroups.all.map((g) => g.tabs.map((t) => t.label).join(', ')).join(' | ');
    await waitFor(
      () => mapGroups().some((g) => g.tabs.some((t) => t.label === `Context Map: ${OTHER}`)) || undefined,
      30_000,
      'the second map to show as a tab',
    );
    assert.equal(vscode.window.tabGroups.all.length, groupsBefore, `no new editor group: ${groupsNow()}`);
    assert.equal(mapGroups().length, 1, `both maps in one group: ${groupsNow()}`);
    assert.ok(api.getContextMap(file), 'the first map is still open');
    assert.equal(api.getContextMap(other)?.state?.fileName, OTHER);
    await vscode.commands.executeCommand('agentCompactor.openContextMap', { file });
    await vscode.commands.executeCommand('agentCompactor.preview', { file, targetTokens: 20_000 });
    const planned = await waitFor(
      () => {
        const s = api.getContextMap(file)?.state;
        return s && s.planned && s.targetTokens === 20_000 ? s : undefined;
      },
      30_000,
      'the map to show the plan',
    );
    assert.ok(
      planned.rounds.some((r) => r.mark !== 'keep'),
      'rounds summarized or dropped',
    );
    const plan = api.getLastPlan();
    assert.ok(plan);
    for (const r of plan.rounds) assert.equal(planned.rounds[r.index].mark, r.action, `round ${r.index}`);
  });

  it('the prices setting changes the cost the map shows', async () => {
    // The store shows this map's transcript (with two maps open, the other panel's activation can load its own file
    // late on a busy machine; a map of a transcript the store does not show keeps its last picture until shown).
    await showTranscript(api, file);
    const before = api.getContextMap(file)!.state!.cost.totalUsd;
    await vscode.workspace
      .getConfiguration('agentCompactor')
      .update('prices', { 'claude-opus-4-5': { input: 10, output: 50 } }, vscode.ConfigurationTarget.Global);
    const after = await waitFor(
      () => {
        const s = api.getContextMap(file)?.state;
        return s && Math.abs(s.cost.totalUsd - 2 * before) < 1e-6 ? s : undefined;
      },
      30_000,
      'the doubled prices to reach the map',
    );
    assert.match(after.cost.priceSource, /overridden by settings for claude-opus-4-5/);
  });
});
