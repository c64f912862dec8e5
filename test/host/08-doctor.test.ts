/**
 * Resume Health in the real VS Code: a session with lines missing from the middle of its main chain shows the
 * doctor's figures on the Rounds tree's Resume Health line and its problems in the Problems panel at their lines;
 * Repair Session writes a fork that loads everything again and shows it; a broken line appended to the watched file
 * brings the diagnostics back without a reload.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { inspectFile } from '../../src/core/inspect';
import type { RepairResult } from '../../src/core/repair/repair';
import type { AgentCompactorApi } from '../../src/extension/api';
import { fixture, getApi, sha256, showTranscript, waitFor, withTimeout, workspaceDir } from './helpers';

const BROKEN_ID = '5d7c1e2a-9b3f-4c8d-a1e6-0f2b4c6d8e10';

/** Writes a copy of the fixture with two user/assistant lines removed from the middle of its main chain. */
async function brokenCopy(): Promise<{ file: string; removed: number[] }> {
  const src = fixture('v2.1.97-live-after.jsonl');
  const a = await inspectFile(src, { subagents: false });
  const msgs = a.chain.main.map((i) => a.index.entries[i]).filter((e) => e.kind === 'user' || e.kind === 'assistant');
  const at = Math.floor(msgs.length * 0.8);
  const removed = [msgs[at].line, msgs[at + 1].line];
  const file = path.join(workspaceDir(), `${BROKEN_ID}.jsonl`);
  const lines = fs.readFileSync(src, 'utf8').split('\n');
  fs.writeFileSync(file, lines.filter((_, k) => !removed.includes(k + 1)).join('\n'));
  return { file, removed };
}

const ours = (uri: vscode.Uri) => vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'Agent Compactor');

describe('host: Resume Health, diagnostics and Repair Session', function () {
  this.timeout(180_000);
  let api: AgentCompactorApi;

  before(async () => {
    api = await getApi();
  });

  it('a broken session: the health line, an error at the break in the Problems panel; repair into a fork that loads everything', async () => {
    const { file } = await brokenCopy();
    const original = sha256(file);
    await showTranscript(api, file);
    const health = api.getResumeHealth();
    assert.ok(health, 'a health report for the shown transcript');
    assert.ok(health.reachability < 0.5, `resume loads little: ${health.reachability}`);
    const dangling = health.problems.find((p) => p.kind === 'dangling-parent' && p.severity === 'error');
    assert.ok(dangling, JSON.stringify(health.problems.slice(0, 3)));

    const line = api.getRoundsTree(0).find((n) => n.id.endsWith('#resumeHealth'));
    assert.ok(line, 'a Resume Health line');
    assert.equal(line.label.startsWith('Resume Health: '), true, line.label);
    assert.match(line.label, new RegExp(`\\(${health.reachableMessages}/${health.totalMessages} messages\\)`));

    const uri = vscode.Uri.file(file);
    await waitFor(() => ours(uri).length > 0, 10_000, 'diagnostics on the transcript');
    const diags = ours(uri);
    const atBreak = diags.find((d) => d.range.start.line === dangling.line - 1);
    assert.ok(atBreak, `a diagnostic at line ${dangling.line}: ${diags.map((d) => d.range.start.line + 1).join(',')}`);
    assert.equal(atBreak.severity, vscode.DiagnosticSeverity.Error);
    assert.equal(atBreak.code, 'dangling-parent');

    const result = await withTimeout(
      vscode.commands.executeCommand<RepairResult>('agentCompactor.repairSession', { file, confirm: false }),
      60_000,
      'Repair Session',
    );
    assert.ok(result?.output, 'a fork was written');
    assert.equal(result.mode, 'fork');
    assert.equal(path.dirname(result.output), path.dirname(file), 'beside the original');
    assert.equal(sha256(file), original, 'the original is untouched');
    assert.ok(result.changes.length >= 1);
    await waitFor(
      () => api.getCurrentFile() === result.output && api.getState().status === 'ready',
      30_000,
      'the repaired fork in the Rounds tree',
    );
    const after = api.getResumeHealth();
    assert.ok(after && after.reachability === 1, `the fork loads everything: ${after?.reachability}`);
    assert.equal(after.apiValid, true);
    const fixed = vscode.Uri.file(result.output);
    assert.deepEqual(
      ours(fixed).filter((d) => d.severity === vscode.DiagnosticSeverity.Error),
      [],
      'no error on the repaired fork',
    );
    assert.deepEqual(ours(uri), [], 'the original no longer shown: its diagnostics are cleared');
  });

  it('a broken line appended to the watched transcript brings an error to the Problems panel without a reload', async () => {
    const file = path.join(workspaceDir(), 'appended-health.jsonl');
    fs.writeFileSync(file, fs.readFileSync(fixture('v2.1.97-live-before.jsonl')));
    await showTranscript(api, file);
    const uri = vscode.Uri.file(file);
    assert.equal(
      api.getResumeHealth()?.healthy,
      true,
      JSON.stringify(
        api
          .getResumeHealth()
          ?.problems.filter((p) => p.severity !== 'info')
          .slice(0, 3),
      ),
    );
    assert.deepEqual(
      ours(uri).filter((d) => d.severity === vscode.DiagnosticSeverity.Error),
      [],
    );
    const lines = fs.readFileSync(file, 'utf8').trimEnd().split('\n').length;
    const orphan = {
      type: 'user',
      uuid: 'appended-1',
      parentUuid: 'never-written',
      isSidechain: false,
      sessionId: 's',
      timestamp: '2030-01-01T00:00:00.000Z',
      message: { role: 'user', content: 'after a lost line' },
    };
    fs.appendFileSync(file, JSON.stringify(orphan) + '\n');
    const d = await waitFor(
      () => ours(uri).find((x) => x.severity === vscode.DiagnosticSeverity.Error && x.code === 'dangling-parent'),
      30_000,
      'an error diagnostic for the appended line',
    );
    assert.equal(d.range.start.line, lines, 'at the appended line');
    assert.equal(api.getResumeHealth()?.healthy, false);
  });
});
