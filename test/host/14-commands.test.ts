/**
 * Every command, driven as code drives it (`executeCommand(id, options)`), through its use case: each returns what it
 * did (checked against its effect) or rejects with the refusal it met; an options object that does not fit the
 * command's schema is refused before anything runs, naming the field and what was expected there. A person's call of
 * the same refusal is told, not thrown (commands/call.ts decides who called, in one place). The last test checks that
 * every id of src/extension/commandIds.ts was driven here.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CompactionPlan, CompactResult } from '../../src/core/compact/types';
import type { RepairResult } from '../../src/core/repair/repair';
import { inspectFile } from '../../src/core/inspect';
import { CommandId } from '../../src/extension/commandIds';
import type { AgentCompactorApi } from '../../src/extension/api';
import { copyFixture, fixture, getApi, sha256, showTranscript, withTimeout, workspaceDir } from './helpers';

const TARGET = 60_000;

describe('host: every command through its use case', function () {
  this.timeout(300_000);
  let api: AgentCompactorApi;
  let file: string;
  const driven = new Set<string>();

  /** Runs a command as code does; records that it was driven. */
  const run = <T>(id: string, arg?: unknown): Promise<T> => {
    driven.add(id);
    return withTimeout(Promise.resolve(vscode.commands.executeCommand<T>(id, arg)), 120_000, id);
  };
  /** Runs a command as code does and expects it to reject; a RegExp is matched against the error's message. */
  const rejects = (id: string, arg: unknown, expected: RegExp | ((e: Error) => boolean)) => {
    driven.add(id);
    const check = expected instanceof RegExp ? (e: Error) => expected.test(e.message) : expected;
    return assert.rejects(withTimeout(Promise.resolve(vscode.commands.executeCommand(id, arg)), 60_000, id), check);
  };

  before(async () => {
    api = await getApi();
    file = copyFixture('v2.1.97-live-after.jsonl', 'commands-use-cases.jsonl');
    await showTranscript(api, file);
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('options that do not fit a command are refused before it runs, naming the field and what was expected', async () => {
    const hash = sha256(file);
    const invalid: [string, unknown, RegExp][] = [
      [
        CommandId.compact,
        { file, confirm: false, targetTokens: '60k' },
        /^Compact Transcript: invalid options: field "targetTokens": expected a whole number from 1000 to 10000000, got "60k"$/,
      ],
      [
        CommandId.compact,
        { file, confirm: false, settings: { keepRecentTokens: -1 } },
        /^Compact Transcript: invalid options: field "settings\.keepRecentTokens": expected a whole number of at least 0, got -1$/,
      ],
      [
        CommandId.compact,
        { file, confirm: false, writeMode: 'overwrite' },
        /field "writeMode": expected one of "fork", "inPlace", "newFile", got "overwrite"/,
      ],
      [
        CommandId.preview,
        { file, target: 5_000 },
        /^Preview Compaction: invalid options: unknown field "target" \(known: file, targetTokens\)$/,
      ],
      [
        CommandId.openBudget,
        { file: 42 },
        /^Open Budget Preview: invalid options: field "file": expected a string of 1 to 4096 characters, got 42$/,
      ],
      [
        CommandId.openContextMap,
        { file: '' },
        /^Open Context Map: invalid options: field "file": expected a string of 1 to 4096 characters, got ""$/,
      ],
      [
        CommandId.refresh,
        { file, full: 'yes' },
        /^Refresh: invalid options: field "full": expected true or false, got "yes"$/,
      ],
      [
        CommandId.setApiKey,
        { apiKey: '' },
        /^Set API Key: invalid options: field "apiKey": expected a string of 1 to 1000 characters/,
      ],
      [
        CommandId.restoreBackup,
        { file, confirm: 'no' },
        /^Restore From Backup: invalid options: field "confirm": expected true or false/,
      ],
      [
        CommandId.revealRound,
        { file, round: -1 },
        /^Reveal Round: invalid options: field "round": expected a whole number of at least 0, got -1$/,
      ],
      [
        CommandId.openTranscript,
        { file, open: 1 },
        /^Open Transcript: invalid options: field "open": expected true or false, got 1$/,
      ],
      [CommandId.showRounds, { files: [file] }, /^Open Transcript: invalid options: unknown field "files"/],
      [
        CommandId.resumeSession,
        { file, sessionId: 7 },
        /^Resume Session: invalid options: field "sessionId": expected a string/,
      ],
      [
        CommandId.copyResumeCommand,
        { file, cwd: null },
        /^Copy Resume Command: invalid options: field "cwd": expected a string/,
      ],
      [
        CommandId.keepRound,
        { file, rounds: ['3'] },
        /^Keep Verbatim: invalid options: field "rounds": expected an array of at most 100000 items, each a whole number of at least 0, got an array of 1$/,
      ],
      [CommandId.dropRound, { file, rounds: 3 }, /^Drop: invalid options: field "rounds": expected an array/],
      [
        CommandId.summarizeRound,
        { file, round: 1.5 },
        /^Summarize: invalid options: field "round": expected a whole number/,
      ],
      [CommandId.autoRound, { file, rounds: [1], why: 'x' }, /^Auto: invalid options: unknown field "why"/],
      [CommandId.summarizeUpTo, { file, round: '2' }, /^Summarize Up To Here: invalid options: field "round"/],
      [CommandId.keepFrom, { file, round: true }, /^Keep From Here: invalid options: field "round"/],
      [
        CommandId.chooseToolResult,
        { file, toolUseId: 'toolu_x', choice: 'full' },
        /^Choose Tool Result Handling: invalid options: field "choice": expected one of "keep-full", "preview", "auto", got "full"$/,
      ],
      [
        CommandId.clearDecisions,
        { file, all: true },
        /^Clear Decisions: invalid options: unknown field "all" \(known: file\)$/,
      ],
      [
        CommandId.reviewSummary,
        { file, summarizer: 'gpt' },
        /^Review Summary: invalid options: field "summarizer": expected one of "extractive", "anthropic", "claude-cli", "codex-cli", got "gpt"$/,
      ],
      [
        CommandId.applySummary,
        { file, open: 'no' },
        /^Apply Summary: invalid options: field "open": expected true or false/,
      ],
      [
        CommandId.discardSummary,
        { file: [file] },
        /^Discard Summary: invalid options: field "file": expected a string of 1 to 4096 characters, got an array of 1$/,
      ],
      [
        CommandId.addSummaryFact,
        { file, fact: 'first' },
        /^Add to Summary: invalid options: field "fact": expected a whole number of at least 0, got "first"$/,
      ],
      [
        CommandId.undoLastCompaction,
        { confirm: 0 },
        /^Undo Last Compaction: invalid options: field "confirm": expected true or false, got 0$/,
      ],
      [
        CommandId.showConversationDiff,
        { before: file, after: 3 },
        /^Show Conversation Diff: invalid options: field "after": expected a string/,
      ],
      [
        CommandId.repairSession,
        { file, inPlace: 'yes' },
        /^Repair Session: invalid options: field "inPlace": expected true or false/,
      ],
      [
        CommandId.forkBeforeCompaction,
        { file, compaction: 0 },
        /^Fork From Before This Compaction: invalid options: field "compaction": expected a whole number of at least 1, got 0$/,
      ],
      [
        CommandId.filterSessions,
        { text: 3 },
        /^Filter Sessions: invalid options: field "text": expected a string of at most 1000 characters, got 3$/,
      ],
      [
        CommandId.revealSessionFile,
        { path: file },
        /^Reveal Session File: invalid options: unknown field "path" \(known: file\)$/,
      ],
      [CommandId.openOriginalSession, { file: 1 }, /^Open Original Session: invalid options: field "file"/],
    ];
    for (const [id, options, expected] of invalid)
      await rejects(id, options, (e: Error) => e.name === 'CommandInputError' && expected.test(e.message));
    assert.equal(sha256(file), hash, 'nothing was written');
  });

  it('Preview, Clear Preview, Open Budget Preview, Open Context Map, Refresh, Open Transcript, Show Rounds, Reveal Round', async () => {
    const plan = await run<CompactionPlan>(CommandId.preview, { file, targetTokens: TARGET });
    assert.equal(plan.settings.targetTokens, TARGET);
    assert.equal(api.getLastPlan()?.settings.targetTokens, TARGET, 'the store holds the plan');
    assert.equal(await run<boolean>(CommandId.clearPreview), true);
    assert.equal(api.getLastPlan(), null, 'the preview is cleared');
    assert.equal(await run<boolean>(CommandId.clearPreview), false, 'nothing left to clear');

    const budget = await run<{ file: string }>(CommandId.openBudget, { file });
    assert.equal(budget.file, file);
    const map = await run<{ file: string }>(CommandId.openContextMap, { file });
    assert.equal(map.file, file);
    assert.equal(api.getContextMap(file)?.state?.file, file, 'the map is open');

    const refreshed = await run<{ file: string; rounds: number }>(CommandId.refresh, { file, full: true });
    assert.equal(refreshed.file, file);
    assert.equal(refreshed.rounds, api.getAnalysis()?.report.totals.rounds);

    const other = copyFixture('v1.0.98-small.jsonl', 'commands-open.jsonl');
    const opened = await run<{ file: string; rounds: number; opened: boolean }>(CommandId.openTranscript, {
      file: other,
    });
    assert.deepEqual([opened.file, opened.opened], [other, false]);
    assert.equal(api.getCurrentFile(), other, 'the Rounds tree shows it');
    const shown = await run<{ file: string; rounds: number }>(CommandId.showRounds, { file });
    assert.equal(api.getCurrentFile(), file);
    assert.equal(shown.rounds, api.getAnalysis()?.report.totals.rounds);

    const round = api.getAnalysis()!.report.rounds[1];
    const revealed = await run<{ file: string; firstLine: number; lastLine: number; shownIn: string }>(
      CommandId.revealRound,
      { file, round: round.index },
    );
    assert.deepEqual(
      [revealed.file, revealed.firstLine, revealed.lastLine, revealed.shownIn],
      [file, round.firstLine, round.lastLine, 'editor'],
    );
    const editor = vscode.window.activeTextEditor;
    assert.equal(editor?.document.uri.fsPath, file);
    assert.equal(editor.selection.start.line, round.firstLine - 1, 'the round is selected');
  });

  it('the steer commands change the decisions and return the plan', async () => {
    await showTranscript(api, file);
    const active = api
      .getAnalysis()!
      .rounds.filter((r) => r.inContext && !r.startsAtBoundary && r.toolUses.length > 0)
      .map((r) => r.index);
    assert.ok(active.length >= 6, `${active.length} active rounds`);
    const [a, b, c, d] = active;
    const by = (p: CompactionPlan, r: number) => [p.rounds[r].action, p.rounds[r].by];
    assert.deepEqual(by(await run<CompactionPlan>(CommandId.keepRound, { file, rounds: [a] }), a), ['keep', 'user']);
    assert.deepEqual(by(await run<CompactionPlan>(CommandId.dropRound, { file, round: b }), b), ['drop', 'user']);
    assert.deepEqual(by(await run<CompactionPlan>(CommandId.summarizeRound, { file, rounds: [c] }), c), [
      'summarize',
      'user',
    ]);
    assert.notEqual(by(await run<CompactionPlan>(CommandId.autoRound, { file, rounds: [c] }), c)[1], 'user');
    const upTo = await run<CompactionPlan>(CommandId.summarizeUpTo, { file, round: b });
    assert.deepEqual(by(upTo, a), ['summarize', 'user'], 'the pin before it is summarized now');
    const from = await run<CompactionPlan>(CommandId.keepFrom, { file, round: d });
    assert.deepEqual(by(from, active[active.length - 1]), ['keep', 'user']);
    const result = from.toolResults[0];
    assert.ok(result, 'a tool result the plan decides on');
    const chosen = await run<CompactionPlan>(CommandId.chooseToolResult, {
      file,
      toolUseId: result.toolUseId,
      choice: 'keep-full',
    });
    assert.equal(chosen.toolResults.find((t) => t.toolUseId === result.toolUseId)?.by, 'user');
    const cleared = await run<CompactionPlan>(CommandId.clearDecisions, { file });
    assert.ok(!cleared.rounds.some((r) => r.by === 'user'), 'no decision of the user is left');
    await rejects(CommandId.keepRound, { file }, /^Keep Verbatim: choose one or more rounds in the Rounds view$/);
    await rejects(
      CommandId.chooseToolResult,
      { file, toolUseId: result.toolUseId },
      /needs \{ file, toolUseId, choice/,
    );
  });

  it('Compact, Show Conversation Diff, Undo Last Compaction; Restore From Backup after an in-place run', async () => {
    const out = path.join(workspaceDir(), 'commands-compacted.jsonl');
    const res = await run<CompactResult>(CommandId.compact, {
      file,
      confirm: false,
      summarizer: 'extractive',
      targetTokens: TARGET,
      out,
      open: false,
    });
    assert.equal(res.output, out);
    assert.ok(fs.existsSync(out), 'the result is written');
    const diff = await run<{ before: string; after: string }>(CommandId.showConversationDiff, {
      before: file,
      after: out,
    });
    assert.match(diff.before, /^agent-compactor-conversation:/);
    assert.match(diff.after, /^agent-compactor-conversation:/);
    assert.notEqual(diff.before, diff.after);
    assert.equal(await run<boolean>(CommandId.undoLastCompaction, { confirm: false }), true);
    assert.ok(!fs.existsSync(out), 'the undo removed the written file');
    await rejects(CommandId.undoLastCompaction, { confirm: false }, /^No compaction was run in this window/);
    await rejects(CommandId.showConversationDiff, {}, /^Run a compaction first/);

    const inPlace = copyFixture('v2.1.97-live-after.jsonl', 'commands-inplace.jsonl');
    const before = fs.readFileSync(inPlace);
    await rejects(CommandId.restoreBackup, { file: inPlace, confirm: false }, /has no backups/);
    const compacted = await run<CompactResult>(CommandId.compact, {
      file: inPlace,
      confirm: false,
      summarizer: 'extractive',
      targetTokens: TARGET,
      writeMode: 'inPlace',
      open: false,
    });
    assert.ok(compacted.backup, 'an in-place run keeps a backup');
    assert.ok(!fs.readFileSync(inPlace).equals(before), 'compacted in place');
    const restored = await run<string>(CommandId.restoreBackup, { file: inPlace, confirm: false });
    assert.equal(restored, compacted.backup, 'the newest backup, unattended');
    assert.ok(fs.readFileSync(inPlace).equals(before), 'the original bytes are back');
  });

  it('Review Summary, Add to Summary, Apply Summary; Discard Summary', async () => {
    const reviewed = copyFixture('v2.1.97-live-after.jsonl', 'commands-review.jsonl');
    const draft = await run<{ file: string; summary: string; document: string }>(CommandId.reviewSummary, {
      file: reviewed,
      summarizer: 'extractive',
      targetTokens: TARGET,
      out: path.join(workspaceDir(), 'commands-reviewed.jsonl'),
      open: false,
    });
    assert.equal(draft.file, reviewed);
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === draft.document);
    assert.ok(doc, 'the summary is open for review');
    const text = doc.getText();
    const added = await run<boolean>(CommandId.addSummaryFact, { file: reviewed, fact: 0 });
    assert.equal(added, doc.getText() !== text, 'a fact added changes the text, and only then is true');
    assert.equal(await run<boolean>(CommandId.addSummaryFact, { file: reviewed, fact: 1_000_000 }), false);
    const summary = doc.getText();
    const applied = await run<CompactResult>(CommandId.applySummary, { file: reviewed });
    assert.equal(applied.output, path.join(workspaceDir(), 'commands-reviewed.jsonl'));
    assert.ok(
      fs.readFileSync(applied.output, 'utf8').includes(JSON.stringify(summary.slice(0, 200)).slice(1, -1)),
      'the summary written is the reviewed text',
    );
    await rejects(CommandId.applySummary, { file: reviewed }, /^No summary is being reviewed/);

    await run(CommandId.reviewSummary, { file: reviewed, summarizer: 'extractive', targetTokens: TARGET });
    assert.equal(await run<boolean>(CommandId.discardSummary, { file: reviewed }), true);
    assert.equal(await run<boolean>(CommandId.discardSummary, { file: reviewed }), false, 'nothing left to discard');
  });

  it('Repair Session, Fork From Before This Compaction, Open Original Session', async () => {
    // A session with two messages of its chain taken out: resume stops at the gap until Repair links it.
    const src = fixture('v2.1.97-live-after.jsonl');
    const a = await inspectFile(src, { subagents: false });
    const msgs = a.chain.main.map((i) => a.index.entries[i]).filter((e) => e.kind === 'user' || e.kind === 'assistant');
    const removed = [msgs[Math.floor(msgs.length * 0.8)].line, msgs[Math.floor(msgs.length * 0.8) + 1].line];
    const broken = path.join(workspaceDir(), '5b0e2f4a-7c1d-4e8f-9a3b-2c6d8e0f1a2b.jsonl');
    const lines = fs.readFileSync(src, 'utf8').split('\n');
    fs.writeFileSync(broken, lines.filter((_, k) => !removed.includes(k + 1)).join('\n'));
    const repaired = await run<RepairResult>(CommandId.repairSession, { file: broken, confirm: false });
    assert.ok(repaired.output && fs.existsSync(repaired.output), 'a repaired fork is written');
    assert.ok(repaired.after.reachableMessages > repaired.before.reachableMessages, 'resume loads more');

    const compacted = copyFixture('with-compactions.jsonl', 'commands-agent-compacted.jsonl');
    const fork = await run<{ output: string; messages: number }>(CommandId.forkBeforeCompaction, {
      file: compacted,
      compaction: 1,
      confirm: false,
    });
    assert.ok(fs.existsSync(fork.output) && fork.messages > 0, 'the fork is written');
    await rejects(CommandId.forkBeforeCompaction, { file: compacted }, /run it on a compact boundary/);

    await rejects(CommandId.openOriginalSession, { file }, /is not a fork of a session in its folder/);
    // A person's call of the same refusal is told, not thrown: the command settles without a value.
    assert.equal(await run(CommandId.openOriginalSession, vscode.Uri.file(file)), undefined);
  });

  it('Resume Session and Copy Resume Command refuse a file that is not a session id, through their use case', async () => {
    const other = copyFixture('v1.0.98-small.jsonl', 'commands-not-a-session.jsonl');
    const reason = /^Claude Code cannot resume commands-not-a-session\.jsonl by id/;
    await rejects(
      CommandId.resumeSession,
      { file: other },
      (e: Error) => e.name === 'CommandInputError' && reason.test(e.message),
    );
    await rejects(CommandId.copyResumeCommand, { file: other }, (e: Error) => reason.test(e.message));
  });

  it('the keys, the log, the Sessions view and the sessions folder', async () => {
    try {
      assert.equal(await run<boolean>(CommandId.setApiKey, { apiKey: 'sk-ant-commands-test' }), true);
      assert.equal(await run<boolean>(CommandId.clearApiKey, {}), true, 'the key stored is removed');
      assert.equal(await run<boolean>(CommandId.clearApiKey, {}), false, 'none left');
    } finally {
      await vscode.commands.executeCommand(CommandId.clearApiKey, {});
    }
    assert.equal(await run<boolean>(CommandId.showLog), true);
    assert.equal(
      await run<string>(CommandId.filterSessions, { text: '  no-such-session-anywhere ' }),
      'no-such-session-anywhere',
    );
    assert.equal(await run<string>(CommandId.filterSessions, { text: '' }), '');
    const count = await run<number>(CommandId.refreshSessions);
    assert.ok(Number.isInteger(count) && count >= 0, `a count of sessions: ${count}`);
    const folders = await run<{ folder: string; sessions: unknown[] }>(CommandId.openSessionsFolder, {});
    assert.equal(typeof folders.folder, 'string');
    assert.ok(Array.isArray(folders.sessions));
    const where = await run<string>(CommandId.revealSessionFile, { file });
    assert.equal(where, 'explorer', 'a file of the workspace is shown in the Explorer');
  });

  it('every command id was driven here', () => {
    const missing = Object.values(CommandId).filter((id) => !driven.has(id));
    assert.deepEqual(missing, [], 'commands not driven by this suite');
  });
});
