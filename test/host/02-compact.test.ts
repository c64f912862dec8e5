/**
 * Compact Transcript run programmatically (offline extractive summary) in a real
 * extension host: an explicit output file leaves the original byte-identical and
 * holds a resumable result; in-place mode writes a backup that Restore From
 * Backup puts back byte for byte. (The default fork mode: 06-resume.test.ts.)
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { checkResumable } from '../../src/core/compact/validate';
import { inspectFile } from '../../src/core/inspect';
import type { CompactResult } from '../../src/core/compact/types';
import type { AgentCompactorApi } from '../../src/extension/api';
import { copyFixture, getApi, sha256, showTranscript, waitFor, withTimeout, workspaceDir } from './helpers';

const TARGET = 20_000;

describe('host: Compact Transcript (offline summary) and Restore From Backup', function () {
  this.timeout(180_000);
  let api: AgentCompactorApi;

  before(async () => {
    api = await getApi();
  });

  it('writes the output file it is given; the original is byte-identical; the result is resumable', async () => {
    const file = path.join(workspaceDir(), 'with-compactions.jsonl');
    await showTranscript(api, file);
    const before = fs.readFileSync(file);
    const hash = sha256(file);
    const mtime = fs.statSync(file).mtimeMs;
    const expectedOut = path.join(workspaceDir(), 'with-compactions.compacted.jsonl');
    fs.rmSync(expectedOut, { force: true });

    const t0 = Date.now();
    const res = await withTimeout(
      vscode.commands.executeCommand<CompactResult>('agentCompactor.compact', {
        file,
        confirm: false,
        summarizer: 'extractive',
        targetTokens: TARGET,
        out: expectedOut,
        open: false,
      }),
      120_000,
      'compact',
    );
    assert.ok(res, 'compact returns its result');
    assert.equal(res.output, expectedOut, 'the result is written where asked');
    assert.equal(res.mode, 'out');
    assert.equal(res.backup, null, 'an output file needs no backup');
    assert.ok(fs.existsSync(res.output));
    assert.equal(api.getLastResult(), res);

    // The original is untouched.
    assert.equal(sha256(file), hash, 'original bytes unchanged');
    assert.equal(fs.statSync(file).mtimeMs, mtime, 'original not rewritten');

    // The result: the original lines followed by the compacted conversation, resumable.
    const out = fs.readFileSync(res.output);
    assert.ok(
      out.length > before.length && out.subarray(0, before.length).equals(before),
      'the original lines are kept as history before the compacted conversation',
    );
    const check = await checkResumable(res.output, { expectSummaryFirst: true });
    assert.deepEqual(check.problems, [], 'checkResumable finds no problem');
    assert.equal(check.ok, true);
    assert.ok(check.messages.length > 0);
    assert.ok(res.postTokens < res.preTokens, `smaller: ${res.preTokens} → ${res.postTokens}`);
    assert.ok(res.postTokens <= TARGET * 1.05, `near the target: ${res.postTokens}`);
    assert.equal(res.attempts[res.attempts.length - 1].strategy, 'extractive');

    // It re-parses with the engine, and its active context starts at the new boundary.
    const reparsed = await inspectFile(res.output);
    assert.equal(reparsed.report.malformed.length, 0, 'no malformed lines');
    assert.ok(reparsed.report.compactBoundaries.length >= 2, 'a new compact boundary was appended');

    // The workspace sees the new file.
    const found = await waitFor(
      async () => (await vscode.workspace.findFiles('with-compactions.compacted.jsonl')).length > 0,
      15_000,
      'the result to be listed in the workspace',
    );
    assert.ok(found);
    console.log(
      `      ${res.preTokens} → ${res.postTokens} tokens in ${Date.now() - t0} ms; ${check.messages.length} API messages on resume`,
    );
  });

  it('in place: writes a backup; Restore From Backup brings back the original bytes', async () => {
    const file = copyFixture('v2.1.97-live-before.jsonl', 'inplace-copy.jsonl');
    await showTranscript(api, file);
    const before = fs.readFileSync(file);
    const roundsBefore = api.getAnalysis()!.report.rounds.length;

    const res = await withTimeout(
      vscode.commands.executeCommand<CompactResult>('agentCompactor.compact', {
        file,
        confirm: false,
        summarizer: 'extractive',
        writeMode: 'inPlace',
        targetTokens: TARGET,
        settings: { keepRecentTokens: 5_000 },
        open: false,
      }),
      120_000,
      'compact in place',
    );
    assert.equal(res.output, file, 'in place: the output is the transcript itself');
    assert.equal(res.mode, 'in-place');
    assert.ok(res.backup && fs.existsSync(res.backup), 'a backup was written');
    assert.equal(path.dirname(res.backup), path.dirname(file));
    assert.ok(fs.readFileSync(res.backup).equals(before), 'the backup holds the original bytes');
    assert.ok(!fs.readFileSync(file).equals(before), 'the transcript was rewritten');
    assert.equal(
      (await checkResumable(file, { expectSummaryFirst: true })).ok,
      true,
      'the compacted transcript is resumable',
    );
    // The tree follows the rewritten file.
    await waitFor(
      () => api.getCurrentFile() === file && api.getState().status === 'ready',
      30_000,
      'the store to re-read the file',
    );
    await api.whenIdle();

    // The session goes on (the agent appends a turn): Undo Last Compaction refuses, changing nothing, instead of
    // taking the new turn out of the session.
    const compacted = fs.readFileSync(file);
    const turn = `${JSON.stringify({ type: 'user', uuid: 'a-turn-after', parentUuid: null, message: { role: 'user', content: 'go on' } })}\n`;
    fs.appendFileSync(file, turn);
    await assert.rejects(
      Promise.resolve(vscode.commands.executeCommand('agentCompactor.undoLastCompaction', { confirm: false })),
      /went on after the compaction: \d+ bytes were added since/,
    );
    assert.ok(fs.readFileSync(file).equals(Buffer.concat([compacted, Buffer.from(turn)])), 'nothing was changed');
    fs.writeFileSync(file, compacted);

    const restored = await withTimeout(
      vscode.commands.executeCommand<string>('agentCompactor.restoreBackup', {
        file,
        backup: res.backup,
        confirm: false,
      }),
      60_000,
      'restore',
    );
    assert.equal(restored, res.backup);
    assert.ok(fs.readFileSync(file).equals(before), 'Restore From Backup brings back the original bytes');
    // The replaced (compacted) content was itself backed up, so the restore can be undone.
    const backups = fs.readdirSync(path.dirname(file)).filter((n) => n.startsWith('inplace-copy.jsonl.bak-'));
    assert.ok(backups.length >= 2, `the restore made a safety backup too: ${backups.join(', ')}`);
    await waitFor(
      () => api.getAnalysis()?.report.rounds.length === roundsBefore && api.getCurrentFile() === file,
      30_000,
      'the tree to show the restored rounds',
    );
  });

  it('the user setting agentCompactor.summaryDetail chooses how much the summary keeps; the result names the level', async () => {
    const cfg = () => vscode.workspace.getConfiguration('agentCompactor');
    const compactAt = async (name: string): Promise<CompactResult> => {
      const out = path.join(workspaceDir(), name);
      fs.rmSync(out, { force: true });
      const res = await withTimeout(
        vscode.commands.executeCommand<CompactResult>('agentCompactor.compact', {
          file: copyFixture('v2.1.97-live-after.jsonl', `detail-${name}`),
          confirm: false,
          summarizer: 'extractive',
          targetTokens: 60_000,
          out,
          open: false,
        }),
        120_000,
        `compact ${name}`,
      );
      assert.ok(res, 'compact returns its result');
      return res;
    };
    try {
      await cfg().update('summaryDetail', 'brief', vscode.ConfigurationTarget.Global);
      const brief = await compactAt('detail-brief.jsonl');
      await cfg().update('summaryDetail', 'full', vscode.ConfigurationTarget.Global);
      const full = await compactAt('detail-full.jsonl');
      assert.equal(brief.summaryDetail, 'brief');
      assert.equal(full.summaryDetail, 'full');
      assert.ok(
        brief.summaryChars < full.summaryChars,
        `brief ${brief.summaryChars} < full ${full.summaryChars} characters`,
      );
    } finally {
      await cfg().update('summaryDetail', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  it('programmatic calls throw instead of only showing an error', async () => {
    await assert.rejects(
      withTimeout(
        vscode.commands.executeCommand('agentCompactor.restoreBackup', {
          file: path.join(workspaceDir(), 'example.jsonl'),
          confirm: false,
        }),
        30_000,
        'restore without backups',
      ),
      /has no backups/,
    );
  });
});
