/**
 * Fixes of issue 25 that unit tests checked, here in the real VS Code: a Cline task's cost is priced at its model
 * with Cline's own recorded figure beside ours; a fork we wrote costs only the responses it received itself (none);
 * a Gemini CLI round lists each tool call once.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { inspectFile } from '../../src/core/inspect';
import type { AgentCompactorApi } from '../../src/extension/api';
import type { CompactResult } from '../../src/core/compact/types';
import { copyFixture, getApi, roundNodes, showTranscript, waitFor, withTimeout, workspaceDir } from './helpers';

function sharedAgentFile(...parts: string[]): string {
  const root = process.env.AGENT_COMPACTOR_FIXTURES_DIR;
  assert.ok(root, 'AGENT_COMPACTOR_FIXTURES_DIR is set by the runner');
  const p = path.join(root, ...parts);
  assert.ok(fs.existsSync(p), `fixture ${p} exists`);
  return p;
}

describe('host: every number the same, in costs and calls as each session received them', function () {
  this.timeout(180_000);
  let api: AgentCompactorApi;

  before(async () => {
    api = await getApi();
  });

  it("a Cline task: the status bar's cost has Cline's own recorded figure beside ours", async () => {
    const dir = path.join(workspaceDir(), 'cline-cost-task');
    fs.mkdirSync(dir, { recursive: true });
    for (const name of ['api_conversation_history.json', 'ui_messages.json'])
      fs.copyFileSync(sharedAgentFile('cline', 'task-opus', name), path.join(dir, name));
    const file = path.join(dir, 'api_conversation_history.json');
    await vscode.commands.executeCommand('agentCompactor.openTranscript', { file });
    await waitFor(() => api.getCurrentFile() === file && api.getState().status === 'ready', 60_000, 'the Cline task');
    // Cline's own figure: the cost it recorded for each request in ui_messages.json.
    const ui = JSON.parse(fs.readFileSync(path.join(dir, 'ui_messages.json'), 'utf8')) as {
      say?: string;
      text?: string;
    }[];
    const recorded = ui
      .filter((m) => m.say === 'api_req_started')
      .reduce((s, m) => s + ((JSON.parse(m.text!) as { cost?: number }).cost ?? 0), 0);
    assert.ok(recorded > 1, `Cline recorded a cost: ${recorded}`);
    const tooltip = await waitFor(() => api.getStatusBarTooltip(), 30_000, 'the status bar tooltip');
    const m = /Cost: \$([\d.]+) over \d+ responses; the agent's own figure: \$([\d.]+)/.exec(tooltip);
    assert.ok(m, tooltip);
    assert.ok(Number(m[1]) > 0, `ours is priced at Cline's model, not $0: ${m[1]}`);
    assert.equal(m[2], recorded.toFixed(2));
  });

  it('a fork we wrote costs the responses it received itself: none, the copied ones named', async () => {
    const file = copyFixture('v2.1.97-live-after.jsonl', 'loops-cost.jsonl');
    await showTranscript(api, file);
    const result = await withTimeout(
      vscode.commands.executeCommand<CompactResult>('agentCompactor.compact', {
        file,
        confirm: false,
        summarizer: 'extractive',
        targetTokens: 40_000,
      }),
      120_000,
      'compact',
    );
    await waitFor(() => api.getCurrentFile() === result.output && api.getState().status === 'ready', 60_000, 'fork');
    await api.whenIdle();
    const tooltip = api.getStatusBarTooltip() ?? '';
    assert.match(tooltip, /Cost: \$0\.00 over 0 responses/);
    const original = await inspectFile(file, { subagents: false });
    const responses = new Set(original.index.entries.filter((e) => e.kind === 'assistant').map((e) => e.messageId));
    assert.ok(responses.size > 100, 'the original received many');
  });

  it('a Gemini CLI round lists each tool call once', async () => {
    const file = path.join(workspaceDir(), 'session-tools.json');
    fs.copyFileSync(sharedAgentFile('gemini-cli', 'session-tools.json'), file);
    await vscode.commands.executeCommand('agentCompactor.openTranscript', { file });
    await waitFor(() => api.getCurrentFile() === file && api.getState().status === 'ready', 60_000, 'the chat');
    const engine = await inspectFile(file);
    const rounds = roundNodes(api.getRoundsTree(2));
    let calls = 0;
    for (const node of rounds) {
      const r = engine.rounds[node.round!];
      const listed = (node.children ?? []).filter((c) => c.kind === 'tool');
      assert.equal(listed.length, r.toolUses.length, `round ${r.index}: ${listed.map((c) => c.label).join(', ')}`);
      assert.equal(new Set(listed.map((c) => c.id)).size, listed.length, 'no call twice');
      calls += listed.length;
    }
    assert.ok(calls > 0, 'the chat has tool calls');
  });
});
