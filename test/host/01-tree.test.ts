/**
 * Activation, the Rounds tree and Preview Compaction, in a real extension host,
 * checked against the engine run on the same file (src/core, bundled into this test).
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { inspectFile, type Analysis } from '../../src/core/inspect';
import { planCompaction } from '../../src/core/compact/plan';
import { contextNow } from '../../src/core/context';
import type { CompactionPlan } from '../../src/core/compact/types';
import type { AgentCompactorApi } from '../../src/extension/api';
import {
  EXTENSION_ID,
  configuredSettings,
  getApi,
  roundNodes,
  showTranscript,
  withTimeout,
  workspaceDir,
} from './helpers';

const FIXTURE = 'with-compactions.jsonl'; // copied into the workspace by the runner (a compact boundary, history groups)
const TARGET = 20_000;

/** "+1,234" → 1234 */
const parseNumber = (s: string) => Number(s.replace(/[^\d]/g, ''));

describe('host: activation, rounds tree and preview on a shared fixture', function () {
  this.timeout(120_000);
  let api: AgentCompactorApi;
  let file: string;
  let engine: Analysis;

  before(() => {
    file = path.join(workspaceDir(), FIXTURE);
  });

  it('a Claude Code transcript from the workspace is followed once the extension is active (by content, any name)', async () => {
    const ext = vscode.extensions.getExtension<AgentCompactorApi>(EXTENSION_ID);
    assert.ok(ext, `${EXTENSION_ID} is installed`);
    // activationEvents: the agents' session files by path or name (00-activation.test.ts), the views and commands;
    // not every JSON or JSON Lines file; nothing activates it at startup.
    const events = ext.packageJSON.activationEvents as string[];
    assert.ok(events.includes('onLanguage:agent-session'), JSON.stringify(events));
    assert.ok(!events.includes('*') && !events.includes('onStartupFinished'), JSON.stringify(events));
    api = await getApi();
    assert.equal(typeof api.getRoundsTree, 'function', 'activate() returns the test API');
    // A fixture's own name is no agent's: VS Code opens it as JSON Lines, and the active extension reads it by content.
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
    assert.equal(doc.languageId, 'jsonl');
    await showTranscript(api, file);
    assert.equal(api.getState().status, 'ready');
  });

  it('the tree has one item per round the engine finds, with token figures and their source', async () => {
    api ??= await getApi();
    await showTranscript(api, file);
    engine = await inspectFile(file);
    const rounds = engine.report.rounds;
    assert.ok(rounds.length > 50, `fixture has many rounds (${rounds.length})`);

    const tree = api.getRoundsTree(1);
    const nodes = roundNodes(tree);
    assert.equal(nodes.length, rounds.length, 'round items in the tree = rounds computed by inspectFile');
    assert.deepEqual(
      nodes.map((n) => n.round),
      rounds.map((r) => r.index),
      'same rounds, in order',
    );
    // History (before the compact boundary) is grouped, and the boundary is shown.
    assert.ok(
      tree.some((n) => n.kind === 'boundary'),
      'a compact boundary separator is shown',
    );
    assert.equal(
      tree.filter((n) => n.kind === 'history').length,
      new Set(rounds.filter((r) => !r.inContext).map((r) => r.segment)).size,
    );

    for (const n of nodes) {
      const r = rounds.find((x) => x.index === n.round)!;
      // Tokens first, readable at the default side-bar width: "+608 · #12 Bash" ("+~608" for an estimate).
      const m = /^\+(~?)([\d,]+) · #(\d+) /.exec(n.label);
      assert.ok(m, `label of round ${r.index} leads with its tokens: ${n.label}`);
      assert.equal(parseNumber(m[2]), r.tokens.added, `round ${r.index}: tokens added`);
      assert.equal(
        m[1] === '~' ? 'estimate' : 'usage',
        r.tokens.source,
        `round ${r.index}: source of the added tokens`,
      );
      assert.equal(Number(m[3]), r.index);
      assert.ok(!/\*\*|```/.test(n.label), `no markdown in the label: ${n.label}`);
      // "context 15,800 (usage)"
      const d = /^context (.+) \((usage|estimate)\)$/.exec(n.description ?? '');
      assert.ok(d, `round ${r.index} description carries the context after it with its source: ${n.description}`);
      assert.equal(d[2], r.cumulative.source, `round ${r.index}: source of the context size`);
      assert.equal(n.contextValue, 'round.keep', 'no plan yet: nothing is marked');
    }
    const header = tree[0];
    assert.equal(header.kind, 'header');
    // The header leads with the one context figure (src/core/context.ts), the file name after it.
    const ctx = contextNow(engine.report);
    assert.equal(
      header.label,
      `context ${ctx.source === 'estimate' ? '~' : ''}${ctx.tokens.toLocaleString('en-US')} tokens (${ctx.source})`,
    );
    assert.equal(header.description, `${FIXTURE} · ${rounds.length} rounds · Claude Code`);
    console.log(
      `      ${nodes.length} rounds; header: ${header.description}; e.g. ${nodes[nodes.length - 1].label} — ${nodes[nodes.length - 1].description}`,
    );
  });

  it("Reveal Round takes what VS Code gives it: a round item of the tree (its menu), the item's own click", async () => {
    api ??= await getApi();
    await showTranscript(api, file);
    engine ??= await inspectFile(file);
    const node = roundNodes(api.getRoundsTree(1)).find((n) => n.contextValue.startsWith('round.') && n.round! > 3)!;
    const round = engine.report.rounds[node.round!];
    // The context menu and the inline button pass the tree node itself.
    const viaNode = await withTimeout(
      vscode.commands.executeCommand<{ firstLine: number; lastLine: number; shownIn: string }>(
        'agentCompactor.revealRound',
        node,
      ),
      30_000,
      'Reveal Round (node)',
    );
    assert.deepEqual(
      [viaNode.firstLine, viaNode.lastLine, viaNode.shownIn],
      [round.firstLine, round.lastLine, 'editor'],
    );
    const editor = vscode.window.activeTextEditor;
    assert.equal(editor?.document.uri.fsPath, file);
    assert.equal(editor.selection.start.line, round.firstLine - 1, "the round's first line is selected");
    assert.equal(editor.selection.end.line, round.lastLine - 1, "to the round's last line");
    // A click runs the item's own command with its own arguments.
    assert.ok(node.command, 'a round item reveals itself when clicked');
    const viaClick = await withTimeout(
      vscode.commands.executeCommand<{ firstLine: number }>(node.command.command, ...node.command.args),
      30_000,
      'Reveal Round (click)',
    );
    assert.equal(viaClick.firstLine, round.firstLine);
  });

  it('Preview Compaction marks exactly the rounds the engine plans to summarize or drop', async () => {
    api ??= await getApi();
    await showTranscript(api, file);
    engine ??= await inspectFile(file);
    const plan = await withTimeout(
      vscode.commands.executeCommand<CompactionPlan>('agentCompactor.preview', { targetTokens: TARGET }),
      60_000,
      'preview',
    );
    assert.ok(plan, 'preview returns the plan');
    assert.equal(api.getLastPlan(), plan, 'the plan shown is the one returned');

    const expected = await planCompaction(engine, { ...configuredSettings(file), targetTokens: TARGET });
    assert.equal(plan.nothingToDo, false);
    assert.equal(expected.nothingToDo, false);
    const actions = (p: CompactionPlan) => p.rounds.map((r) => `${r.index}:${r.action}`);
    assert.deepEqual(
      actions(plan),
      actions(expected),
      'same action for every round as planCompaction with the same settings',
    );
    assert.equal(plan.summarizedRounds, expected.summarizedRounds);
    assert.equal(plan.droppedRounds, expected.droppedRounds);
    assert.equal(plan.postTokens, expected.postTokens);
    assert.deepEqual(
      plan.toolResults.map((d) => `${d.toolUseId}:${d.action}`),
      expected.toolResults.map((d) => `${d.toolUseId}:${d.action}`),
      'same tool-result decisions',
    );

    const marked = new Map(expected.rounds.filter((r) => r.action !== 'keep').map((r) => [r.index, r.action]));
    assert.ok(marked.size > 0, 'the plan marks some rounds');
    const tree = api.getRoundsTree(1);
    assert.equal(tree[1].kind, 'plan', 'a plan summary item follows the header');
    for (const n of roundNodes(tree)) {
      const action = marked.get(n.round!) ?? 'keep';
      assert.equal(n.mark, action, `round ${n.round} mark`);
      assert.equal(n.contextValue, `round.${action}`);
      if (action === 'keep') assert.ok(!/^\[(summarize|drop)\]/.test(n.label), n.label);
      else
        assert.match(n.label, new RegExp(`^\\+~?[\\d,]+ · \\[${action}\\] #${n.round} `), `marked label: ${n.label}`);
    }
    // (The editor's marks are checked where they are drawn: in the UI suite, CodeLens above marked rounds.)
    // The plan line: the same whole-context figure as the header, before → after.
    const figure = tree[0].label.replace(/^context (\S+) tokens.*$/, '$1');
    assert.ok(tree[1].label.startsWith(`context ${figure} → `), `${tree[1].label} carries the header's ${figure}`);
    assert.match(tree[1].description ?? '', /^\d+ rounds? \/ [\d,]+ tokens would be summarized or dropped$/);
    console.log(`      ${tree[1].label}; ${marked.size} rounds marked`);
  });

  it('Clear Compaction Preview removes the marks', async () => {
    api ??= await getApi();
    assert.equal(await vscode.commands.executeCommand('agentCompactor.clearPreview'), true);
    await api.whenIdle();
    assert.equal(api.getLastPlan(), null);
    assert.ok(roundNodes(api.getRoundsTree(1)).every((n) => n.mark === 'keep'));
  });
});
