// Steering a compaction by hand: every decision kind, ranges, conflicts with tool pairing,
// frozen budget decisions, decisions saved with the session (reload, fork, in-place undo),
// and a summary text written exactly as given.
import { strict as assert } from 'node:assert';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspectFile } from '../../src/core/inspect';
import { planDetails } from '../../src/core/compact/plan';
import { compactFile, draftSummary } from '../../src/core/compact/compact';
import { measureFidelity } from '../../src/core/compact/fidelity';
import { restoreBackup } from '../../src/core/compact/backup';
import { cloneState, emptyState, loadState, statePath } from '../../src/core/compact/state';
import {
  clearDecisions,
  loadDecisions,
  loadSavedPlanInputs,
  saveDecisions,
} from '../../src/core/compact/savedDecisions';
import {
  anchored,
  chooseRounds,
  chooseToolResult,
  DecisionError,
  keepFrom,
  noDecisions,
  parseRoundList,
  summarizeUpTo,
  type UserDecisions,
} from '../../src/core/compact/decisions';
import { SUMMARY_PREFIX } from '../../src/core/compact/summarize/prompt';
import { buildTranscript, diffSnapshots, snapshotDir } from '../support/reliability';
import { describeUndo, undoCompaction } from '../../src/core/compact/undo';
import { dirname } from 'node:path';
import { readableConversation } from '../../src/core/compact/readable';
import { tempDir } from '../support/temp';

const TIGHT = { targetTokens: 6_000, keepRecentTokens: 2_000, summaryTokens: 1_000 };

function session(lines: string[]): string {
  const dir = tempDir('ac-steer-');
  const file = join(dir, '11111111-2222-4333-8444-555555555555.jsonl');
  writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

/** 16 prompt → tool call → answer exchanges: rounds 0 (first prompt) to 32. */
const plain = () =>
  session(buildTranscript({ rounds: 16, textChars: 1_500, resultChars: (r) => (r % 4 === 0 ? 3_000 : 300) }));

/**
 * Large results to budget: every fourth 3,000 characters, the others 1,500 (a preview of 200 bytes is shorter).
 */
const withResults = () =>
  session(buildTranscript({ rounds: 16, textChars: 1_500, resultChars: (r) => (r % 4 === 0 ? 3_000 : 1_500) }));
const BUDGETS = { ...TIGHT, targetTokens: 1_000_000, maxToolResultChars: 2_000, previewBytes: 200 };

/**
 * A session where round 7's tool call (msg_3a) is answered in round 8: a second assistant message (msg_3x) comes
 * between the call and its result, so the result travels in another round.
 */
function splitPairSession(): string {
  const lines = buildTranscript({ rounds: 16, textChars: 1_500 });
  const at = lines.findIndex((l) => l.includes('"msg_3a"'));
  const call = JSON.parse(lines[at]) as Record<string, unknown>;
  const result = JSON.parse(lines[at + 1]) as Record<string, unknown>;
  const between = {
    ...call,
    uuid: 'aaaaaaaa-0000-4000-8000-000000000001',
    parentUuid: call.uuid,
    requestId: 'req_3x',
    message: {
      id: 'msg_3x',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [{ type: 'text', text: 'Reading it now.' }],
      stop_reason: 'tool_use',
      usage: { input_tokens: 5, output_tokens: 5 },
    },
  };
  result.parentUuid = between.uuid;
  lines.splice(at + 1, 1, JSON.stringify(between), JSON.stringify(result));
  return session(lines);
}

/** The plan for `decisions` (none: no decisions), with the session's frozen budget decisions read here, at the edge. */
async function plan(file: string, decisions?: UserDecisions, settings = TIGHT) {
  return planDetails(await inspectFile(file, { subagents: false }), settings, await loadState(file), decisions);
}

/** The lines a compaction appended (after the original's bytes). */
function appended(output: string, originalBytes: number): Record<string, unknown>[] {
  return readFileSync(output)
    .subarray(originalBytes)
    .toString('utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('user decisions (steer)', function () {
  this.timeout(120_000);

  describe('the decisions value', () => {
    it('sets, overrides and clears per-round and per-result choices; a later range wins over what it overlaps', () => {
      let d = chooseRounds(noDecisions(), [3, 4], 'keep');
      d = chooseRounds(d, [4], 'drop');
      assert.deepEqual(d.rounds, { 3: 'keep', 4: 'drop' });
      d = chooseRounds(d, [3], 'auto');
      assert.deepEqual(d.rounds, { 4: 'drop' });
      d = keepFrom(d, 10);
      d = summarizeUpTo(d, 12);
      assert.equal(d.keepFrom, null, 'summarize up to 12 overrides keep from 10');
      assert.deepEqual(d.rounds, {}, 'and the one-by-one choice inside it');
      d = keepFrom(d, 5);
      assert.equal(d.summarizeUpTo, null);
      d = chooseToolResult(d, 'toolu_1', 'preview');
      d = chooseToolResult(d, 'toolu_2', 'keep-full');
      d = chooseToolResult(d, 'toolu_1', 'auto');
      assert.deepEqual(d.toolResults, { toolu_2: 'keep-full' });
    });

    it('parses round lists as the CLI takes them, and names the bad part', () => {
      assert.deepEqual(parseRoundList('3,7-9', '--keep'), [3, 7, 8, 9]);
      assert.deepEqual(parseRoundList(' 0 ', '--drop'), [0]);
      assert.throws(() => parseRoundList('3,x', '--keep'), /--keep: 'x' is not a round index or range/);
      assert.throws(() => parseRoundList('9-7', '--keep'), /runs backwards/);
      assert.throws(() => parseRoundList('', '--keep'), /is not a round index/);
    });
  });

  describe('the plan honours every decision', () => {
    it('keeps a pinned old round, drops and summarizes chosen recent ones, fills the rest toward the target, each marked by whom', async () => {
      const file = plain();
      const auto = await plan(file);
      const autoKept = auto.kept;
      assert.ok(autoKept.length >= 2 && !autoKept.includes(2), 'the automatic plan keeps a recent tail only');
      const newest = autoKept[autoKept.length - 1];
      const d = chooseRounds(
        chooseRounds(chooseRounds(noDecisions(), [2], 'keep'), [newest - 1], 'drop'),
        [newest - 2],
        'summarize',
      );
      const p = await plan(file, d);
      const r = p.plan.rounds;
      assert.deepEqual([r[2].action, r[2].by], ['keep', 'user']);
      assert.match(r[2].reason, /you pinned it/);
      assert.deepEqual([r[newest - 1].action, r[newest - 1].by], ['drop', 'user']);
      assert.deepEqual([r[newest - 2].action, r[newest - 2].by], ['summarize', 'user']);
      assert.deepEqual([r[newest].action, r[newest].by], ['keep', 'plan']);
      for (const x of r) if (x.by === 'plan') assert.ok(x.reason.length > 0);
      assert.ok(
        p.kept.includes(2) && p.kept.includes(newest) && !p.kept.includes(newest - 1) && !p.kept.includes(newest - 2),
      );
      assert.equal(p.plan.droppedRounds, 1);
      assert.deepEqual(p.plan.conflicts, []);
      assert.equal(
        p.plan.keptTokens,
        [...p.kept].reduce((s, ri) => s + r[ri].tokensAfter, 0),
      );
    });

    it('summarize up to a round and keep from a round cover every active round on their side; one-by-one choices win inside', async () => {
      const file = plain();
      const p = await plan(file, chooseRounds(keepFrom(summarizeUpTo(noDecisions(), 10), 20), [5], 'keep'));
      for (const x of p.plan.rounds) {
        if (x.index === 5) assert.deepEqual([x.action, x.by], ['keep', 'user']);
        else if (x.index <= 10)
          assert.deepEqual([x.action, x.by, x.reason], ['summarize', 'user', 'you chose to summarize up to round 10']);
        else if (x.index >= 20)
          assert.deepEqual(
            [x.action, x.by, x.reason.replace(/ \(stale thinking stripped\)$/, '')],
            ['keep', 'user', 'you chose to keep from round 20'],
          );
        else assert.equal(x.by, 'plan');
      }
    });

    it('refuses ranges that overlap and rounds that do not exist, naming them', async () => {
      const file = plain();
      const overlap: UserDecisions = { ...noDecisions(), summarizeUpTo: 12, keepFrom: 10 };
      await assert.rejects(
        plan(file, overlap),
        (e: Error) =>
          e instanceof DecisionError && /summarize up to round 12.*keep from round 10.*rounds 10-12/.test(e.message),
      );
      await assert.rejects(
        plan(file, chooseRounds(noDecisions(), [99], 'drop')),
        (e: Error) => e instanceof DecisionError && /no round 99 \(this session has rounds 0-32\)/.test(e.message),
      );
    });

    it('says when the rounds the user keeps make the target unreachable, and still keeps them', async () => {
      const file = plain();
      const p = await plan(
        file,
        chooseRounds(chooseRounds(noDecisions(), [2, 4, 5, 6, 8, 10, 12, 14, 16, 18], 'keep'), [1], 'drop'),
      );
      for (const ri of [2, 4, 5, 6, 8, 10, 12, 14, 16, 18]) assert.equal(p.plan.rounds[ri].action, 'keep');
      assert.ok(
        p.plan.notes.some((n) =>
          /the rounds you chose to keep \(2, 4-6, 8, 10, 12, 14, 16, 18\) take about \d+ tokens.*cannot reach the 6000-token target/.test(
            n,
          ),
        ),
        p.plan.notes.join('\n'),
      );
    });

    it('is the automatic plan when there are no decisions, and with an empty value', async () => {
      const file = plain();
      assert.deepEqual(await plan(file, noDecisions()), await plan(file));
    });
  });

  describe('tool pairing', () => {
    it('a round the plan keeps follows a round the user drops when a tool call and its result span them', async () => {
      const file = splitPairSession();
      const a = await inspectFile(file, { subagents: false });
      const use = a.rounds.findIndex((r) => r.toolUses.some((u) => u.id === 'toolu_0003'));
      const res = a.rounds.findIndex((r) => r.toolResults.some((t) => t.id === 'toolu_0003'));
      assert.equal(res, use + 1, 'the fixture splits the pair over two rounds');
      const p = await planDetails(
        a,
        { targetTokens: 1_000_000 },
        undefined,
        chooseRounds(noDecisions(), [use], 'drop'),
      );
      assert.deepEqual([p.plan.rounds[use].action, p.plan.rounds[use].by], ['drop', 'user']);
      assert.deepEqual([p.plan.rounds[res].action, p.plan.rounds[res].by], ['drop', 'plan']);
      assert.match(
        p.plan.rounds[res].reason,
        new RegExp(
          `dropped with round ${use}, which you chose to drop: the tool call toolu_0003 in round ${use} is answered in round ${res}`,
        ),
      );
    });

    it('a pinned round wins over a dropped one it is paired with, and the conflict says which decision gave way', async () => {
      const file = splitPairSession();
      const a = await inspectFile(file, { subagents: false });
      const use = a.rounds.findIndex((r) => r.toolUses.some((u) => u.id === 'toolu_0003'));
      const d = chooseRounds(chooseRounds(noDecisions(), [use], 'drop'), [use + 1], 'keep');
      const p = await planDetails(a, TIGHT, undefined, d);
      assert.equal(p.plan.rounds[use].action, 'keep');
      assert.equal(p.plan.rounds[use + 1].action, 'keep');
      assert.equal(p.plan.conflicts.length, 1);
      assert.equal(p.plan.conflicts[0].decision, `drop round ${use}`);
      assert.equal(p.plan.conflicts[0].round, use);
      assert.match(
        p.plan.conflicts[0].resolution,
        /kept verbatim instead: the tool call toolu_0003 .* round \d+ is kept by your choice/,
      );
    });
  });

  describe('tool results', () => {
    it('keeps one in full over the budget, replaces another by a preview under it; both by the user', async () => {
      const file = withResults();
      const auto = await plan(file, undefined, BUDGETS);
      const replaced = auto.plan.toolResults.find((t) => t.action === 'replaced')!;
      const kept = auto.plan.toolResults.find((t) => t.action === 'kept')!;
      assert.ok(replaced && kept);
      const d = chooseToolResult(
        chooseToolResult(noDecisions(), replaced.toolUseId, 'keep-full'),
        kept.toolUseId,
        'preview',
      );
      const p = await plan(file, d, BUDGETS);
      const byId = new Map(p.plan.toolResults.map((t) => [t.toolUseId, t]));
      assert.deepEqual(
        [byId.get(replaced.toolUseId)!.action, byId.get(replaced.toolUseId)!.by, byId.get(replaced.toolUseId)!.reason],
        ['kept', 'user', 'kept in full by you'],
      );
      assert.deepEqual([byId.get(kept.toolUseId)!.action, byId.get(kept.toolUseId)!.by], ['replaced', 'user']);
      assert.ok(byId.get(kept.toolUseId)!.preview!.length < kept.originalChars);
      assert.equal(p.plan.nothingToDo, false, 'a preview the user asked for is something to do even under the target');
    });

    it('a frozen decision stays frozen and says why the contrary choice cannot apply', async () => {
      const file = withResults();
      // Something to do (round 1 dropped) with every later round kept: its large results become previews.
      const first = await compactFile(file, {
        summarizer: 'extractive',
        settings: BUDGETS,
        decisions: keepFrom(chooseRounds(noDecisions(), [1], 'drop'), 2),
        inPlace: true,
      });
      const frozenReplaced = first.plan.toolResults.find((t) => t.action === 'replaced')!;
      assert.ok(frozenReplaced, 'the first compaction replaced a result');
      const p = await plan(file, chooseToolResult(noDecisions(), frozenReplaced.toolUseId, 'keep-full'), BUDGETS);
      const t = p.plan.toolResults.find((x) => x.toolUseId === frozenReplaced.toolUseId)!;
      assert.equal(t.action, 'frozen');
      assert.equal(t.preview, frozenReplaced.preview);
      assert.match(t.reason, /your choice to keep it in full cannot apply: an earlier compaction already wrote it/);
    });
  });

  describe('saved with the session', () => {
    it('survive a reload, leave frozen decisions alone, are cloned with the state for a fork, and can be cleared', async () => {
      const file = plain();
      const a = await inspectFile(file, { subagents: false });
      const d = anchored(
        chooseToolResult(summarizeUpTo(chooseRounds(noDecisions(), [20], 'drop'), 6), 'toolu_0001', 'preview'),
        a,
      );
      await saveDecisions(file, d);
      assert.deepEqual(await loadDecisions(file), d);
      // Read at the edge and passed in, they give the plan for them, from a fresh analysis.
      const saved = await loadSavedPlanInputs(file);
      const fromSaved = await planDetails(
        await inspectFile(file, { subagents: false }),
        TIGHT,
        saved.state,
        saved.decisions,
      );
      assert.deepEqual(fromSaved.plan, (await plan(file, d)).plan);
      assert.equal(fromSaved.plan.rounds[20].by, 'user');
      const state = await loadState(file);
      assert.deepEqual(cloneState(state).steering, d);
      await clearDecisions(file);
      assert.deepEqual(await loadDecisions(file), noDecisions());
      assert.equal(existsSync(statePath(file)), false, 'a state file with nothing left in it is removed');
    });

    it('the planner reads nothing saved with the session: decisions saved but not passed are not applied, passed ones are', async () => {
      const file = plain();
      const a = await inspectFile(file, { subagents: false });
      const d = anchored(chooseRounds(noDecisions(), [20], 'drop'), a);
      await saveDecisions(file, d);
      const auto = await planDetails(a, TIGHT, undefined, noDecisions());
      const notPassed = await planDetails(a, TIGHT);
      assert.deepEqual(notPassed.plan, auto.plan, 'saved decisions are not read by the planner');
      assert.ok(
        notPassed.plan.rounds.every((r) => r.by === 'plan'),
        "no round is marked the user's",
      );
      const passed = await planDetails(a, TIGHT, undefined, d);
      assert.deepEqual(
        [passed.plan.rounds[20].action, passed.plan.rounds[20].by],
        ['drop', 'user'],
        'passed decisions are applied',
      );
      // The same for the state file itself: unreadable, it is not read (the edge reads it and reports it).
      writeFileSync(statePath(file), '{ not json');
      assert.deepEqual((await planDetails(a, TIGHT, undefined, d)).plan, passed.plan);
      await assert.rejects(loadSavedPlanInputs(file), /not valid JSON/);
    });

    it('clearing keeps the frozen budget decisions of an earlier compaction', async () => {
      const file = plain();
      await compactFile(file, {
        summarizer: 'extractive',
        settings: { ...TIGHT, maxToolResultChars: 1_000 },
        inPlace: true,
      });
      const before = await loadState(file);
      assert.ok(Object.keys(before.decisions).length > 0);
      await saveDecisions(file, chooseRounds(noDecisions(), [1], 'keep'));
      await clearDecisions(file);
      assert.deepEqual(await loadState(file), before);
    });

    it('a choice whose round no longer starts with the line it was made for is ignored, with a note', async () => {
      const file = plain();
      const d = anchored(chooseRounds(noDecisions(), [4], 'drop'), await inspectFile(file, { subagents: false }));
      d.anchors![4] = '99999999-0000-4000-8000-000000000000';
      const p = await plan(file, d);
      assert.equal(p.plan.rounds[4].by, 'plan');
      assert.ok(
        p.plan.notes.some((n) => /drop round 4 no longer applies: round 4 is not the round it was made for/.test(n)),
        p.plan.notes.join('\n'),
      );
    });

    it('a fork leaves the original its decisions; compacting in place consumes them and Undo brings them back byte for byte', async () => {
      const file = plain();
      const d = chooseRounds(noDecisions(), [2], 'keep');
      await saveDecisions(file, d);
      const stateBytes = readFileSync(statePath(file));
      const fork = await compactFile(file, { summarizer: 'extractive', settings: TIGHT });
      assert.equal(fork.plan.rounds[2].by, 'user', 'the saved decisions steered the fork');
      assert.deepEqual(readFileSync(statePath(file)), stateBytes, "the original's decisions are untouched");
      assert.equal((await loadState(fork.output)).steering, undefined, 'the fork starts without round decisions');
      const original = readFileSync(file);
      const inPlace = await compactFile(file, { summarizer: 'extractive', settings: TIGHT, inPlace: true });
      assert.equal((await loadState(file)).steering, undefined);
      await restoreBackup(file, inPlace.backup!);
      assert.deepEqual(readFileSync(file), original);
      assert.deepEqual(readFileSync(statePath(file)), stateBytes);
    });
  });

  describe('the summary', () => {
    it('a given summary is written exactly as given, even when longer than the reserve', async () => {
      const file = plain();
      const text = `My own summary — ünïcödé, "quotes", a trailing newline and more than the reserve.\n${'Keep this exact. '.repeat(400)}\n`;
      const d = chooseRounds(noDecisions(), [30], 'drop');
      const r = await compactFile(file, {
        summarizer: 'extractive',
        settings: { ...TIGHT, targetTokens: 20_000 },
        decisions: d,
        summaryText: text,
        out: join(tempDir('ac-steer-o-'), 'o.jsonl'),
      });
      assert.equal(r.summarizer, 'given');
      const lines = appended(r.output, readFileSync(file).length);
      const summaryLine = lines.find((o) => o.isCompactSummary === true)!;
      assert.equal((summaryLine.message as { content: string }).content, SUMMARY_PREFIX + text);
      assert.equal(r.summaryChars, text.length);
    });

    it('draftSummary gives the text compact then writes, and writes nothing itself', async () => {
      const file = plain();
      const before = readFileSync(file);
      const d = chooseRounds(noDecisions(), [3], 'keep');
      const draft = await draftSummary(file, { summarizer: 'extractive', settings: TIGHT, decisions: d });
      assert.deepEqual(readFileSync(file), before);
      assert.equal(existsSync(statePath(file)), false);
      const r = await compactFile(file, {
        summarizer: 'extractive',
        settings: TIGHT,
        decisions: d,
        summaryText: draft.summary,
        out: join(tempDir('ac-steer-o-'), 'o.jsonl'),
      });
      const summaryLine = appended(r.output, before.length).find((o) => o.isCompactSummary === true)!;
      assert.equal((summaryLine.message as { content: string }).content, SUMMARY_PREFIX + draft.summary);
      assert.ok(draft.plan.rounds[3].by === 'user');
      // The summarized part's facts come with the draft, so that an edited summary is measured without reading the span again.
      assert.ok(draft.facts && draft.facts.length > 0, 'the draft carries the facts it was measured against');
      assert.deepEqual(measureFidelity(draft.facts, draft.summary), draft.fidelity);
    });
  });

  it('the state file without steering loads as before', async () => {
    const file = plain();
    writeFileSync(statePath(file), JSON.stringify(emptyState()));
    assert.deepEqual(await loadDecisions(file), noDecisions());
    writeFileSync(
      statePath(file),
      JSON.stringify({
        ...emptyState(),
        steering: { rounds: { 1: 'pin' }, summarizeUpTo: null, keepFrom: null, toolResults: {} },
      }),
    );
    await assert.rejects(loadDecisions(file), /decisions.rounds\[1\] must be keep, drop or summarize/);
  });

  describe('Undo Last Compaction', () => {
    it('a fork: removes the fork, its state file and the saved results it created; the folder is as before', async () => {
      const file = withResults();
      await saveDecisions(file, keepFrom(chooseRounds(noDecisions(), [1], 'drop'), 2));
      const before = snapshotDir(dirname(file));
      const r = await compactFile(file, { summarizer: 'extractive', settings: { ...BUDGETS, targetTokens: 20_000 } });
      assert.ok(r.sidecarsWritten!.toolResults.length > 0, 'the fork saved tool results');
      const words = describeUndo(file, r).changes.join('\n');
      assert.match(words, /the fork written by the compaction\) is deleted, with its state file/);
      assert.match(words, /saved tool results? it created (is|are) deleted/);
      await undoCompaction(file, r);
      const diff = diffSnapshots(before, snapshotDir(dirname(file)));
      assert.deepEqual([diff.added, diff.removed, diff.changed], [[], [], []]);
    });

    it('in place: the session, its state file (with the decisions) and its saved results come back byte for byte', async () => {
      const file = withResults();
      await saveDecisions(file, keepFrom(chooseRounds(noDecisions(), [1], 'drop'), 2));
      const before = snapshotDir(dirname(file));
      const r = await compactFile(file, {
        summarizer: 'extractive',
        settings: { ...BUDGETS, targetTokens: 20_000 },
        inPlace: true,
      });
      assert.match(describeUndo(file, r).changes[0], /is restored from .*\.bak-/);
      const safety = await undoCompaction(file, r);
      const diff = diffSnapshots(before, snapshotDir(dirname(file)));
      // Only backups were added: the compaction's and the one of the compacted version (with their sidecar records).
      assert.deepEqual(diff.removed, []);
      assert.deepEqual(diff.changed, []);
      for (const added of diff.added) assert.ok(added.includes('.bak-'), `only backups are new: ${added}`);
      assert.ok(safety && diff.added.some((a) => safety.endsWith(a)));
      assert.deepEqual((await loadDecisions(file)).rounds, { 1: 'drop' });
      assert.equal((await loadDecisions(file)).keepFrom, 2);
    });
  });

  it('replans a steered 1,000-round session quickly: within the time to inspect it', async () => {
    const file = session(
      buildTranscript({ rounds: 500, textChars: 800, resultChars: (r) => (r % 7 === 0 ? 8_000 : 500) }),
    );
    const a = await inspectFile(file, { subagents: false });
    assert.equal(a.rounds.length, 1001);
    const d = chooseRounds(
      chooseRounds(summarizeUpTo(noDecisions(), 300), [400, 401, 700], 'keep'),
      [800, 950],
      'drop',
    );
    // Paired and interleaved: each replanning is timed next to an inspection, so a busy machine slows both alike.
    const inspectTimes: number[] = [];
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      await inspectFile(file, { subagents: false });
      inspectTimes.push(performance.now() - t0);
      const t = performance.now();
      await planDetails(a, { targetTokens: 60_000 }, undefined, d);
      times.push(performance.now() - t);
    }
    const median = times.sort((x, y) => x - y)[2];
    const inspectMs = inspectTimes.sort((x, y) => x - y)[2];
    // About 25 ms on an idle 2-CPU machine against about 170 ms to inspect.
    assert.ok(
      median < Math.max(100, inspectMs),
      `steered replanning took ${median.toFixed(1)} ms (inspecting: ${inspectMs.toFixed(1)} ms)`,
    );
  });

  it('the readable conversation shows what the agent resumes: the summary first, then the kept rounds', async () => {
    const file = plain();
    const r = await compactFile(file, {
      summarizer: 'extractive',
      settings: TIGHT,
      summaryText: 'A summary written <b>by hand</b>.',
      decisions: chooseRounds(noDecisions(), [2], 'keep'),
      out: join(tempDir('ac-steer-o-'), 'o.jsonl'),
    });
    const text = await readableConversation(r.output);
    assert.match(text, /^── 1\. User ─+\n {4}This session is being continued/);
    assert.ok(text.includes('A summary written <b>by hand</b>.'), 'markup stays text');
    // Round 2 (pinned): the answer to the first request and the next prompt; then the newest rounds.
    assert.match(text, /── 2\. Assistant ─+\n {4}Answer 0: fixed file0\.ts\./);
    assert.match(text, /── 3\. User ─+\n {4}Request 1: please look at file1\.ts/);
    assert.match(text, /→ tool call Read \[toolu_\d+\]\n {4}\{/);
    assert.ok(!text.includes('Request 0:'), 'the first prompt was summarized, not kept');
    const before = await readableConversation(file);
    assert.match(before, /^── 1\. User ─+\n {4}Request 0:/);
  });

  it('pinning every round leaves nothing to compact, and says so', async () => {
    const file = plain();
    const before = snapshotDir(dirname(file));
    await assert.rejects(
      compactFile(file, { summarizer: 'extractive', settings: TIGHT, decisions: keepFrom(noDecisions(), 0) }),
      /Nothing to compact: your choices keep every round of the active context/,
    );
    const diff = diffSnapshots(before, snapshotDir(dirname(file)));
    assert.deepEqual([diff.added, diff.removed, diff.changed], [[], [], []]);
  });
});
