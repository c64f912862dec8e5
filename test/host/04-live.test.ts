/**
 * A live session: bytes appended to the open transcript (what Claude Code does
 * while it runs) reach the tree through the file watcher, without a reload.
 * The appended bytes are those v2.1.97-live-after.jsonl has beyond
 * v2.1.97-live-before.jsonl (two snapshots of the same session).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { inspectFile } from '../../src/core/inspect';
import type { AgentCompactorApi } from '../../src/extension/api';
import { copyFixture, fixture, getApi, roundNodes, showTranscript, waitFor } from './helpers';

describe('host: live append to the open transcript', function () {
  this.timeout(120_000);
  let api: AgentCompactorApi;

  before(async () => {
    api = await getApi();
  });

  it('the tree grows to the rounds of the longer snapshot', async () => {
    const before = fs.readFileSync(fixture('v2.1.97-live-before.jsonl'));
    const after = fs.readFileSync(fixture('v2.1.97-live-after.jsonl'));
    assert.ok(
      after.length > before.length && after.subarray(0, before.length).equals(before),
      'the later snapshot extends the earlier one',
    );
    const file = copyFixture('v2.1.97-live-before.jsonl', 'live-session.jsonl');
    const editor = await showTranscript(api, file);
    const n0 = roundNodes(api.getRoundsTree(1)).length;
    const expected = (await inspectFile(fixture('v2.1.97-live-after.jsonl'))).report.rounds.length;
    assert.equal(n0, (await inspectFile(file)).report.rounds.length);
    assert.ok(expected > n0, `the later snapshot has more rounds (${n0} → ${expected})`);

    // Append in two writes, as a running session does (the second one mid-way through the rest).
    const rest = after.subarray(before.length);
    const cut = rest.indexOf(0x0a, Math.floor(rest.length / 2)) + 1;
    const t0 = Date.now();
    fs.appendFileSync(file, rest.subarray(0, cut));
    await waitFor(
      () => (api.getAnalysis()?.report.rounds.length ?? 0) > n0,
      30_000,
      'the first append to reach the tree',
    );
    const mid = api.getAnalysis()!.report.rounds.length;
    fs.appendFileSync(file, rest.subarray(cut));
    await waitFor(
      () => api.getAnalysis()?.report.rounds.length === expected,
      30_000,
      `the tree to reach ${expected} rounds`,
    );
    assert.equal(api.getCurrentFile(), file);
    assert.equal(roundNodes(api.getRoundsTree(1)).length, expected, 'the tree items follow');
    assert.ok(fs.readFileSync(file).equals(after));
    assert.equal(editor.document.uri.fsPath, file);
    console.log(`      rounds ${n0} → ${mid} → ${expected} (watcher, ${Date.now() - t0} ms)`);
  });
});
