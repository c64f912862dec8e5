/**
 * Steering by hand in a real extension host, as a user does it from the Rounds tree: pin two rounds, drop one,
 * summarize up to a round; the tree marks the user's decisions and its plan line says so; Review Summary writes
 * the summary into an editor, the test edits it there, Apply Summary compacts in place with exactly that text;
 * Undo Last Compaction puts the session and its state file back byte for byte.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { CompactionPlan, CompactResult } from '../../src/core/compact/types';
import { SUMMARY_PREFIX } from '../../src/core/compact/summarize/prompt';
import { statePath } from '../../src/core/compact/state';
import type { AgentCompactorApi } from '../../src/extension/api';
import { copyFixture, getApi, roundNodes, showTranscript, withTimeout } from './helpers';

type Json = Record<string, unknown>;

function toolCalls(lines: Json[]): Set<string> {
  const ids = new Set<string>();
  for (const o of lines) {
    const c = (o.message as Json | undefined)?.content;
    if (Array.isArray(c))
      for (const b of c as Json[]) if (b.type === 'tool_use' && typeof b.id === 'string') ids.add(b.id);
  }
  return ids;
}

describe('host: steer the compaction by hand, review the summary, apply, undo', function () {
  this.timeout(180_000);
  let api: AgentCompactorApi;

  before(async () => {
    api = await getApi();
  });

  it('pin two rounds, drop one, summarize up to a round; apply an edited summary; undo restores byte for byte', async () => {
    const file = copyFixture('v2.1.97-live-after.jsonl', 'steer-by-hand.jsonl');
    await showTranscript(api, file);
    const analysis = api.getAnalysis()!;
    const active = analysis.rounds
      .filter((r) => r.inContext && !r.startsAtBoundary && r.toolUses.length > 0)
      .map((r) => r.index);
    assert.ok(active.length >= 8, `${active.length} active rounds with tool calls`);
    const [upTo, pinA, dropped, pinB] = [active[1], active[3], active[4], active[6]];
    const run = <T>(id: string, arg: unknown) =>
      withTimeout(Promise.resolve(vscode.commands.executeCommand<T>(id, arg)), 60_000, id);

    await run<CompactionPlan>('agentCompactor.keepRound', { file, rounds: [pinA, pinB] });
    await run<CompactionPlan>('agentCompactor.dropRound', { file, rounds: [dropped] });
    const plan = await run<CompactionPlan>('agentCompactor.summarizeUpTo', { file, round: upTo });
    assert.ok(plan, 'a decision returns the new plan');
    for (const r of [pinA, pinB]) assert.deepEqual([plan.rounds[r].action, plan.rounds[r].by], ['keep', 'user']);
    assert.deepEqual([plan.rounds[dropped].action, plan.rounds[dropped].by], ['drop', 'user']);
    for (const r of analysis.rounds.filter((x) => x.inContext && x.index <= upTo))
      assert.deepEqual([plan.rounds[r.index].action, plan.rounds[r.index].by], ['summarize', 'user']);

    // The tree: a mark of their own for the user's decisions, and the plan line counts them.
    const tree = api.getRoundsTree(1);
    const byIndex = new Map(roundNodes(tree).map((n) => [n.round, n]));
    assert.equal(byIndex.get(pinA)!.contextValue, 'round.keep.user');
    assert.match(byIndex.get(pinA)!.label, new RegExp(`^\\+~?[\\d,]+ · \\[pinned\\] #${pinA} `));
    assert.equal(byIndex.get(dropped)!.contextValue, 'round.drop.user');
    const planLine = tree.find((n) => n.kind === 'plan')!;
    assert.match(planLine.label, /^context ~?[\d,]+ → [\d,]+ tokens(, (above|below) the [\d,]+ target.*)?$/);
    assert.match(planLine.description ?? '', /^2 kept by you, 1 dropped by you, \d+ summarized by you$/);

    // Review: the summary opens in an editor; edit it there; apply exactly that text, in place.
    const original = fs.readFileSync(file);
    const stateBefore = fs.readFileSync(statePath(file));
    const draft = await run<{ summary: string; document: string }>('agentCompactor.reviewSummary', {
      file,
      summarizer: 'extractive',
      writeMode: 'inPlace',
      open: false,
    });
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === draft.document)!;
    assert.equal(doc.getText(), draft.summary);
    const edit = new vscode.WorkspaceEdit();
    const edited = `Edited by hand in the host test: keep the retry logic.\n\n${draft.summary}`;
    edit.replace(doc.uri, new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)), edited);
    assert.ok(await vscode.workspace.applyEdit(edit));
    const result = await run<CompactResult>('agentCompactor.applySummary', { file });
    assert.ok(result, 'Apply Summary returns the result');
    assert.equal(result.mode, 'in-place');
    assert.equal(result.summarizer, 'given');

    const appended = fs
      .readFileSync(file)
      .subarray(original.length)
      .toString('utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Json);
    const summaryLine = appended.find((o) => o.isCompactSummary === true)!;
    assert.equal(
      (summaryLine.message as Json).content,
      SUMMARY_PREFIX + edited,
      'the file holds exactly the edited summary',
    );
    const written = toolCalls(appended);
    for (const r of [pinA, pinB])
      for (const u of analysis.rounds[r].toolUses)
        assert.ok(written.has(u.id), `pinned round ${r}'s call ${u.id} is written`);
    for (const u of analysis.rounds[dropped].toolUses)
      assert.ok(!written.has(u.id), `dropped round ${dropped}'s call ${u.id} is not written`);

    // What the agent will see, before and after, in words: read-only documents for the diff editor.
    const diff = await run<{ before: string; after: string }>('agentCompactor.showConversationDiff', {});
    const after = await vscode.workspace.openTextDocument(vscode.Uri.parse(diff.after));
    const beforeDoc = await vscode.workspace.openTextDocument(vscode.Uri.parse(diff.before));
    assert.match(after.getText(), /^── 1\. User ─+\n {4}This session is being continued/);
    assert.ok(after.getText().includes('Edited by hand in the host test: keep the retry logic.'));
    assert.ok(!beforeDoc.getText().includes('Edited by hand in the host test'));
    assert.ok(after.getText().includes('→ tool call ') && after.getText().includes('← tool result ['));

    // Undo: the session and its state file (with the decisions) exactly as before.
    assert.equal(await run<boolean>('agentCompactor.undoLastCompaction', { confirm: false }), true);
    assert.ok(fs.readFileSync(file).equals(original), 'the session is restored byte for byte');
    assert.ok(fs.readFileSync(statePath(file)).equals(stateBefore), 'its state file too');
    await withTimeout(api.whenIdle(), 60_000, 'idle');
    const again = api.getLastPlan();
    assert.ok(again && again.rounds[pinA].by === 'user', 'the restored decisions steer the plan again');
  });

  it('Compact applies the plan it showed: the decisions the extension holds, not ones written to disk behind it', async () => {
    const file = copyFixture('v2.1.97-live-after.jsonl', 'steer-plan-shown.jsonl');
    await showTranscript(api, file);
    const analysis = api.getAnalysis()!;
    const older = analysis.rounds
      .filter((r) => r.inContext && !r.startsAtBoundary && r.toolUses.length > 0)
      .map((r) => r.index);
    const pinned = older[2];
    const run = <T>(id: string, arg: unknown) =>
      withTimeout(Promise.resolve(vscode.commands.executeCommand<T>(id, arg)), 60_000, id);
    await run<CompactionPlan>('agentCompactor.summarizeUpTo', { file, round: older[0] });
    const shown = await run<CompactionPlan>('agentCompactor.keepRound', { file, rounds: [pinned] });
    assert.deepEqual([shown.rounds[pinned].action, shown.rounds[pinned].by], ['keep', 'user']);
    // Another writer changes the saved decisions on disk after the plan was shown (the CLI, another window).
    const onDisk = JSON.parse(fs.readFileSync(statePath(file), 'utf8')) as {
      steering: { rounds: Record<string, string> };
    };
    onDisk.steering.rounds[String(pinned)] = 'drop';
    fs.writeFileSync(statePath(file), JSON.stringify(onDisk));

    const result = await run<CompactResult>('agentCompactor.compact', {
      file,
      confirm: false,
      summarizer: 'extractive',
      open: false,
    });
    assert.ok(result, 'the compaction ran');
    assert.equal(result.replanned, undefined, 'the transcript did not change');
    const userRounds = (p: CompactionPlan) =>
      p.rounds.filter((r) => r.by === 'user').map((r) => `${r.index}:${r.action}`);
    assert.deepEqual(userRounds(result.plan), userRounds(shown), 'the decisions applied are the ones the plan showed');
    assert.deepEqual(result.plan.conflicts, shown.conflicts);
    const written = toolCalls(
      fs
        .readFileSync(result.output)
        .subarray(fs.statSync(file).size)
        .toString('utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Json),
    );
    for (const u of analysis.rounds[pinned].toolUses)
      assert.ok(written.has(u.id), `the pinned round's call ${u.id} is written`);
  });
});
