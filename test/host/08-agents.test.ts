/**
 * Other agents' sessions in a real extension host: a Codex CLI rollout and a Cline task show their rounds with the
 * agent named in the header; the Codex one can be previewed (compaction works for it), the Cline one is read-only:
 * its compact context key is off and a compaction asked for anyway is refused with the reason, writing nothing.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { inspectFile } from '../../src/core/inspect';
import type { AgentCompactorApi } from '../../src/extension/api';
import { getApi, roundNodes, showTranscript, waitFor, withTimeout, workspaceDir } from './helpers';

function sharedAgentFile(...parts: string[]): string {
  const root = process.env.AGENT_COMPACTOR_FIXTURES_DIR;
  assert.ok(root, 'AGENT_COMPACTOR_FIXTURES_DIR is set by the runner');
  const p = path.join(root, ...parts);
  assert.ok(fs.existsSync(p), `fixture ${p} exists`);
  return p;
}

describe('host: Codex CLI and Cline sessions', function () {
  this.timeout(180_000);
  let api: AgentCompactorApi;

  before(async () => {
    api = await getApi();
  });

  it('a Codex rollout shows its rounds, the header names Codex CLI, and a preview plans it', async () => {
    const file = path.join(workspaceDir(), 'rollout-2026-01-02T03-04-05-019ed917-1cf7-72a3-92f5-c0aa98fb134e.jsonl');
    fs.copyFileSync(sharedAgentFile('codex', 'rollout-0.140.jsonl'), file);
    fs.chmodSync(file, 0o644);
    await showTranscript(api, file);
    const engine = await inspectFile(file);
    const tree = api.getRoundsTree(1);
    assert.match(tree[0].label, /^context ~?[\d,]+ tokens \((usage|estimate)\)$/);
    assert.match(tree[0].description ?? '', /^rollout-.+\.jsonl · \d+ rounds · Codex CLI$/);
    assert.equal(roundNodes(tree).length, engine.report.rounds.length);
    await vscode.commands.executeCommand('agentCompactor.preview', { file, targetTokens: 40_000 });
    await waitFor(() => api.getRoundsTree(1).some((n) => n.kind === 'plan'), 60_000, 'a plan for the rollout');
  });

  it('a Cline task shows its rounds read-only: compaction is refused with the reason and nothing is written', async () => {
    const dir = path.join(workspaceDir(), 'cline-task');
    fs.mkdirSync(dir, { recursive: true });
    for (const name of ['api_conversation_history.json', 'ui_messages.json'])
      fs.copyFileSync(sharedAgentFile('cline', 'task-opus', name), path.join(dir, name));
    const file = path.join(dir, 'api_conversation_history.json');
    await vscode.commands.executeCommand('agentCompactor.openTranscript', { file });
    await waitFor(
      () => api.getCurrentFile() === file && api.getState().status === 'ready',
      60_000,
      'the Cline task to show',
    );
    const tree = api.getRoundsTree(1);
    assert.match(tree[0].description ?? '', /^api_conversation_history\.json · \d+ rounds · Cline \/ Roo Code$/);
    assert.match(tree[0].tooltip ?? '', /read-only/);
    // Resume Health models Claude Code's loader: no health line, no diagnostics for another agent's session.
    assert.ok(!tree.some((n) => n.label.startsWith('Resume Health')), 'no Resume Health line');
    assert.equal(api.getResumeHealth(), undefined);
    assert.deepEqual(vscode.languages.getDiagnostics(vscode.Uri.file(file)), []);
    const before = fs.readdirSync(dir).sort();
    await assert.rejects(
      Promise.resolve(vscode.commands.executeCommand('agentCompactor.compact', { file, summarizer: 'extractive' })),
      /read-only/,
    );
    assert.deepEqual(fs.readdirSync(dir).sort(), before);
  });

  it('a Claude Code transcript saved as one JSON array under any name is followed; other JSON is not', async () => {
    const dir = path.join(workspaceDir(), 'logs');
    fs.mkdirSync(dir, { recursive: true });
    const records = fs
      .readFileSync(sharedAgentFile('claude-code', 'example.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as unknown);
    const chat = path.join(dir, 'chat.json');
    fs.writeFileSync(chat, JSON.stringify(records, null, 2));
    const other = path.join(dir, 'settings.json');
    fs.writeFileSync(other, JSON.stringify([{ type: 'tree', path: 'a' }], null, 2));
    // Opening it is all a person does: the views follow it as they follow a .jsonl.
    await showTranscript(api, chat);
    const engine = await inspectFile(chat);
    assert.equal(roundNodes(api.getRoundsTree(1)).length, engine.report.rounds.length);
    assert.ok(engine.report.rounds.length > 1);
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(vscode.Uri.file(other)));
    await withTimeout(api.whenIdle(), 30_000, 'the store to be idle');
    assert.equal(api.getCurrentFile(), chat, 'a JSON file that is no session leaves the shown transcript as it was');
    // Back to it from another file: followed again.
    const example = path.join(workspaceDir(), 'example.jsonl');
    await showTranscript(api, example);
    await showTranscript(api, chat);
  });
});
