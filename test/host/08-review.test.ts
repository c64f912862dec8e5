/**
 * Review Summary's checklist in a real extension host: the summary's editor shows, as CodeLenses, what it keeps of the
 * summarized part's facts and one "Add" per missing fact; clicking one adds the fact and the count goes up; the Apply
 * lens compacts with exactly the edited text and closes the summary without a save prompt. Apply writes the plan the
 * review was drafted from; if the session grew meanwhile, it is planned again and the result says so.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { CompactionPlan, CompactResult } from '../../src/core/compact/types';
import { resultSummary } from '../../src/extension/model/planText';
import { SUMMARY_PREFIX } from '../../src/core/compact/summarize/prompt';
import type { AgentCompactorApi } from '../../src/extension/api';
import { copyFixture, fixture, getApi, showTranscript, waitFor, withTimeout } from './helpers';

type Json = Record<string, unknown>;

/** The kept facts counted by the checklist lens ("Keeps 1/2 requests · 0/3 errors"). */
function keptOf(title: string): number {
  return [...title.matchAll(/(\d+)\/\d+/g)].reduce((n, m) => n + Number(m[1]), 0);
}

describe('host: review checklist beside the summary, add a missing fact, apply from the lens', function () {
  this.timeout(180_000);
  let api: AgentCompactorApi;

  before(async () => {
    api = await getApi();
  });

  it('the checklist counts go up when a missing fact is added; Apply writes that text and closes the summary', async () => {
    const file = copyFixture('v2.1.97-live-after.jsonl', 'review-checklist.jsonl');
    await showTranscript(api, file);
    const run = <T>(id: string, arg: unknown) =>
      withTimeout(Promise.resolve(vscode.commands.executeCommand<T>(id, arg)), 60_000, id);
    const original = fs.readFileSync(file);
    const draft = await run<{ summary: string; document: string }>('agentCompactor.reviewSummary', {
      file,
      summarizer: 'extractive',
      writeMode: 'inPlace',
      targetTokens: 30_000,
    });
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === draft.document)!;
    const lenses = () =>
      withTimeout(
        Promise.resolve(vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', doc.uri)),
        30_000,
        'lenses',
      );
    const titles = async () => (await lenses()).map((l) => l.command?.title ?? '');
    assert.ok(
      (await titles()).some((t) => t.startsWith('Keeps ')),
      'the checklist shows on the drafted summary',
    );

    // The user cuts the summary down to one line: the checklist counts fall, and it offers to add what is missing.
    const edit = new vscode.WorkspaceEdit();
    edit.replace(
      doc.uri,
      new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)),
      'Cut down by hand in the host test.',
    );
    assert.ok(await vscode.workspace.applyEdit(edit));
    const before = await waitFor(
      async () => {
        const l = await lenses();
        const title = l.find((x) => x.command?.title.startsWith('Keeps '))?.command?.title;
        const add = l.find((x) => x.command?.title.startsWith('Add: '));
        const adds = l.filter((x) => x.command?.title.startsWith('Add: ')).length;
        const more = l.find((x) => /^and \d+ more missing$/.test(x.command?.title ?? ''));
        return title && add ? { kept: keptOf(title), add, adds, more } : undefined;
      },
      30_000,
      'the checklist of the cut summary',
    );
    assert.ok(before.adds <= 6, `${before.adds} Add lenses: the first few, not a row of every missing fact`);
    assert.ok(before.adds < 6 || before.more, 'the rest are counted');
    await run<boolean>(before.add.command!.command, before.add.command!.arguments![0]);
    assert.match(
      doc.getText(),
      /^Cut down by hand in the host test\.\n\nAlso:\n- /,
      'the fact is added under "Also:" at the end',
    );
    const after = await waitFor(
      async () => {
        const title = (await titles()).find((t) => t.startsWith('Keeps '));
        return title && keptOf(title) > before.kept ? keptOf(title) : undefined;
      },
      30_000,
      'the checklist counts the added fact',
    );
    assert.ok(after > before.kept);

    // Apply from its lens: exactly the text in the editor is written, and the summary's editor closes (no save prompt).
    const applyLens = (await lenses()).find((l) => l.command?.command === 'agentCompactor.applySummary')!;
    assert.ok(
      (await lenses()).some((l) => l.command?.command === 'agentCompactor.discardSummary'),
      'Discard is offered too',
    );
    const text = doc.getText();
    const result = await run<CompactResult>(applyLens.command!.command, applyLens.command!.arguments![0]);
    assert.ok(result, 'Apply Summary returns the result');
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
      SUMMARY_PREFIX + text,
      'the file holds exactly the summary with the added fact',
    );
    await waitFor(
      () => !vscode.window.visibleTextEditors.some((e) => e.document.uri.toString() === draft.document) || undefined,
      30_000,
      'the summary editor closes',
    );
    assert.ok(
      !vscode.workspace.textDocuments.some((d) => d.uri.toString() === draft.document && d.isDirty),
      'nothing is left dirty',
    );
  });

  it('Apply writes the plan the review was drafted from, with the text as edited (not a plan made again for it)', async () => {
    const file = copyFixture('v2.1.97-live-before.jsonl', 'review-plan.jsonl');
    await showTranscript(api, file);
    const run = <T>(id: string, arg: unknown) =>
      withTimeout(Promise.resolve(vscode.commands.executeCommand<T>(id, arg)), 60_000, id);
    const draft = await run<{ document: string; plan: CompactionPlan }>('agentCompactor.reviewSummary', {
      file,
      summarizer: 'extractive',
      targetTokens: 30_000,
    });
    const reviewed = draft.plan.rounds.map((r) => `${r.index}:${r.action}`);
    assert.ok(draft.plan.summarizedRounds > 0, 'the draft summarizes rounds');
    // The user cuts the summary to one line: a plan made again for it would reclaim the summary's room and keep more
    // (on this session at this target, 40 rounds summarized instead of 42).
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === draft.document)!;
    const edit = new vscode.WorkspaceEdit();
    edit.replace(doc.uri, new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)), 'One line.');
    assert.ok(await vscode.workspace.applyEdit(edit));
    const result = await run<CompactResult>('agentCompactor.applySummary', { file, open: false });
    assert.equal(result.replanned, undefined, 'the file did not change: the plan is the one reviewed');
    assert.deepEqual(
      result.plan.rounds.map((r) => `${r.index}:${r.action}`),
      reviewed,
      'every round as the review planned it',
    );
    assert.ok(fs.readFileSync(result.output, 'utf8').includes('One line.'), 'the edited text is written');
  });

  it('Apply after the session grew during the review: planned again over the file as it is, and the result says so', async () => {
    const file = copyFixture('v2.1.97-live-before.jsonl', 'review-grown.jsonl');
    await showTranscript(api, file);
    const run = <T>(id: string, arg: unknown) =>
      withTimeout(Promise.resolve(vscode.commands.executeCommand<T>(id, arg)), 60_000, id);
    const draft = await run<{ document: string; plan: CompactionPlan }>('agentCompactor.reviewSummary', {
      file,
      summarizer: 'extractive',
      targetTokens: 30_000,
    });
    // The live agent goes on writing while the user reads the summary: live-after is live-before and what followed.
    const before = fs.statSync(file).size;
    const after = fs.readFileSync(fixture('v2.1.97-live-after.jsonl'));
    fs.appendFileSync(file, after.subarray(before));
    const result = await run<CompactResult>('agentCompactor.applySummary', { file, open: false });
    assert.match(
      result.replanned ?? '',
      new RegExp(`^the transcript changed after the plan was made \\(${after.length - before} bytes were appended;`),
      'the result says the plan was made again and why',
    );
    assert.ok(result.plan.rounds.length > draft.plan.rounds.length, 'planned over the grown file');
    assert.match(result.plan.notes[0] ?? '', /the transcript changed after the plan was made/);
    // What the notification shows (model/planText.ts resultSummary): "Not the plan you confirmed: …".
    assert.match(resultSummary(result), /Not the plan you confirmed: the transcript changed after the plan was made/);
  });

  it('Discard from the editor title writes nothing, closes the summary, and Apply then has nothing to apply', async () => {
    const file = copyFixture('v2.1.97-live-after.jsonl', 'review-discard.jsonl');
    await showTranscript(api, file);
    const run = <T>(id: string, arg: unknown) =>
      withTimeout(Promise.resolve(vscode.commands.executeCommand<T>(id, arg)), 60_000, id);
    const original = fs.readFileSync(file);
    const draft = await run<{ document: string }>('agentCompactor.reviewSummary', {
      file,
      summarizer: 'extractive',
      writeMode: 'inPlace',
      targetTokens: 30_000,
    });
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === draft.document)!;
    const lenses = await withTimeout(
      Promise.resolve(vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', doc.uri)),
      30_000,
      'lenses',
    );
    assert.ok(
      lenses.some((l) => l.command?.command === 'agentCompactor.discardSummary'),
      'Discard is offered above the summary',
    );
    // As the editor's title action runs it: with the summary document's URI.
    assert.equal(await run<boolean>('agentCompactor.discardSummary', doc.uri), true);
    await waitFor(
      () => !vscode.window.visibleTextEditors.some((e) => e.document.uri.toString() === draft.document) || undefined,
      30_000,
      'the summary editor closes',
    );
    assert.ok(fs.readFileSync(file).equals(original), 'nothing was written');
    await assert.rejects(
      Promise.resolve(vscode.commands.executeCommand('agentCompactor.applySummary', { file })),
      /no summary is being reviewed/i,
    );
  });

  it('with the Context Map beside the transcript, the summary opens in a group that has room, not a third one', async () => {
    // A walk found the summary in a new third group, the map squeezed to about 200 px.
    const file = copyFixture('v2.1.97-live-after.jsonl', 'review-placement.jsonl');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await showTranscript(api, file);
    await vscode.window.showTextDocument(vscode.Uri.file(file), { viewColumn: vscode.ViewColumn.One, preview: false });
    await withTimeout(
      Promise.resolve(vscode.commands.executeCommand('agentCompactor.openContextMap', { file })),
      60_000,
      'the map',
    );
    const mapGroup = () =>
      vscode.window.tabGroups.all.find((g) => g.tabs.some((t) => t.input instanceof vscode.TabInputWebview));
    await waitFor(
      () => (vscode.window.tabGroups.all.length === 2 && mapGroup()) || undefined,
      30_000,
      'the transcript and the map side by side',
    );
    const draft = await withTimeout(
      Promise.resolve(
        vscode.commands.executeCommand<{ document: string }>('agentCompactor.reviewSummary', {
          file,
          summarizer: 'extractive',
          writeMode: 'inPlace',
          targetTokens: 30_000,
        }),
      ),
      60_000,
      'review',
    );
    const summaryGroup = await waitFor(
      () =>
        vscode.window.tabGroups.all.find((g) =>
          g.tabs.some((t) => t.input instanceof vscode.TabInputText && t.input.uri.toString() === draft.document),
        ),
      30_000,
      'the summary tab',
    );
    assert.equal(vscode.window.tabGroups.all.length, 2, 'no third group');
    assert.notEqual(summaryGroup, mapGroup(), 'not over the map');
    assert.equal(
      await vscode.commands.executeCommand<boolean>('agentCompactor.discardSummary', vscode.Uri.parse(draft.document)),
      true,
    );
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});
