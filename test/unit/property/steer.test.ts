// Steering by hand, as a user does it: a sequence of decisions (pin, drop, summarize, auto, the two ranges, tool
// results, clear), saved with the session after each, with a compaction now and then, continuing on the fork it
// writes. After every decision:
//  - the saved decisions load back equal, and the plan read from them is the plan for them given directly;
//  - every round the user decided is planned as decided, or a conflict names that round; only those rounds are
//    marked by the user; the kept rounds are exactly the rounds planned to keep;
//  - every tool-result choice is followed, unless an earlier compaction froze that result or a preview would be longer.
// After every compaction, with a random summary text given:
//  - the summary line holds exactly that text; the original's bytes are untouched;
//  - every round planned to keep (pinned or not) is written: its tool calls and its assistant text are there;
//    no tool call of a dropped or summarized round is;
//  - the result is API-valid and resumes from its own leaf; a refusal writes nothing;
//  - the fork starts without round decisions.
import { strict as assert } from 'node:assert';
import { copyFileSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { inspectFile, type Analysis } from '../../../src/core/inspect';
import { planDetails } from '../../../src/core/compact/plan';
import { compactFile } from '../../../src/core/compact/compact';
import { checkResumable } from '../../../src/core/compact/validate';
import { loadDecisions, loadSavedPlanInputs, saveDecisions } from '../../../src/core/compact/savedDecisions';
import {
  chooseRounds,
  chooseToolResult,
  keepFrom,
  noDecisions,
  resolveRounds,
  summarizeUpTo,
  type RoundChoice,
  type UserDecisions,
} from '../../../src/core/compact/decisions';
import { SUMMARY_PREFIX } from '../../../src/core/compact/summarize/prompt';
import { CompactError, type CompactionPlan } from '../../../src/core/compact/types';
import { type CompactSettings } from '../../../src/core/compactSettings';
import { claudeFixtures } from '../../support/fixtures';
import { diffSnapshots, Rng, snapshotDir } from '../../support/reliability';
import { tempDir } from '../../support/temp';

const STEPS = 9;
const COMPACT_EVERY = 3;
const SEED = 20261124;

type Json = Record<string, unknown>;

function blocks(o: Json): Json[] {
  const c = (o.message as Json | undefined)?.content;
  return Array.isArray(c) ? (c as Json[]) : [];
}

/** Tool call ids and assistant texts of a round, from the original's lines (read once per compaction, not per round). */
function roundContent(lines: string[], analysis: Analysis, ri: number): { calls: string[]; texts: string[] } {
  const calls: string[] = [];
  const texts: string[] = [];
  for (const e of analysis.rounds[ri].entries) {
    const entry = analysis.index.entries[e];
    if (entry.kind !== 'assistant') continue;
    let o: Json;
    try {
      o = JSON.parse(lines[entry.line - 1]) as Json;
    } catch {
      continue;
    }
    for (const b of blocks(o)) {
      if (b.type === 'tool_use' && typeof b.id === 'string') calls.push(b.id);
      if (b.type === 'text' && typeof b.text === 'string' && b.text.trim()) texts.push(b.text);
    }
  }
  return { calls, texts };
}

function randomOperation(rng: Rng, d: UserDecisions, analysis: Analysis): { d: UserDecisions; what: string } {
  const active = analysis.rounds.filter((r) => r.inContext).map((r) => r.index);
  const results = active.flatMap((ri) => analysis.rounds[ri].toolResults.map((t) => t.id));
  const some = () => Array.from({ length: 1 + rng.int(3) }, () => rng.pick(active));
  switch (rng.int(10)) {
    case 0:
    case 1:
    case 2: {
      const choice = rng.pick<RoundChoice | 'auto'>(['keep', 'drop', 'summarize', 'keep', 'drop', 'auto']);
      const rs = some();
      return { d: chooseRounds(d, rs, choice), what: `${choice} ${rs.join(',')}` };
    }
    case 3: {
      const r = rng.chance(0.8) ? rng.pick(active) : null;
      return { d: summarizeUpTo(d, r), what: `summarize up to ${r}` };
    }
    case 4: {
      const r = rng.chance(0.8) ? rng.pick(active) : null;
      return { d: keepFrom(d, r), what: `keep from ${r}` };
    }
    case 5:
    case 6:
    case 7:
      if (results.length) {
        const id = rng.pick(results);
        const c = rng.pick(['keep-full', 'preview', 'auto'] as const);
        return { d: chooseToolResult(d, id, c), what: `${c} result ${id}` };
      }
      return { d, what: 'nothing' };
    case 8:
      return {
        d: chooseRounds(d, [active[active.length - 1]], rng.pick(['drop', 'summarize', 'keep'] as const)),
        what: 'decide the newest round',
      };
    default:
      return { d: noDecisions(), what: 'clear' };
  }
}

function checkPlanFollows(
  plan: CompactionPlan,
  d: UserDecisions,
  analysis: Analysis,
  kept: number[],
  where: string,
): void {
  const { choices } = resolveRounds(d, analysis);
  const conflicted = new Set(plan.conflicts.map((c) => c.round));
  for (const r of plan.rounds) {
    const c = choices.get(r.index);
    if (c && !conflicted.has(r.index))
      assert.equal(r.action, c.choice, `${where}: round ${r.index}: ${c.why}, planned ${r.action} (${r.reason})`);
    if (r.by === 'user') assert.ok(c, `${where}: round ${r.index} is marked as the user's without a choice`);
  }
  assert.deepEqual(
    kept,
    plan.rounds.filter((r) => r.inContext && r.action === 'keep').map((r) => r.index),
    `${where}: kept rounds`,
  );
  for (const t of plan.toolResults) {
    const c = d.toolResults[t.toolUseId];
    if (!c || t.action === 'frozen') continue;
    if (c === 'keep-full') assert.equal(t.action, 'kept', `${where}: result ${t.toolUseId} kept in full`);
    else
      assert.ok(
        t.action === 'replaced' || /preview would be longer|non-text/.test(t.reason) || t.by === 'plan',
        `${where}: result ${t.toolUseId} replaced by a preview (${t.action}, ${t.reason})`,
      );
  }
}

describe('steering by hand: random decisions over every fixture, lose nothing, write exactly what was chosen', function () {
  this.timeout(20 * 60_000);
  let totalWritten = 0;
  after(() => {
    // Random decisions often leave nothing to gain; the property must still have been exercised on written files.
    assert.ok(totalWritten >= claudeFixtures().length, `only ${totalWritten} compactions were written`);
  });
  for (const [n, src] of claudeFixtures().entries()) {
    it(`${basename(src)}: ${STEPS} decisions, a compaction every ${COMPACT_EVERY}`, async () => {
      const rng = new Rng(SEED + n);
      const dir = tempDir('ac-steer-fuzz-');
      let file = join(dir, basename(src));
      copyFileSync(src, file);
      let d = noDecisions();
      let written = 0;
      for (let step = 1; step <= STEPS; step++) {
        const analysis = await inspectFile(file, { subagents: false });
        const op = randomOperation(rng, d, analysis);
        d = op.d;
        const where = `${basename(src)} step ${step} (${op.what})`;
        await saveDecisions(file, d);
        assert.deepEqual(await loadDecisions(file), d, `${where}: saved decisions load back`);
        const pre = analysis.report.rounds.filter((r) => r.inContext).reduce((s, r) => s + r.tokens.estimate, 0);
        const settings: Partial<CompactSettings> = {
          targetTokens: Math.max(
            2_000,
            Math.round(pre * rng.pick([0.3, 0.6, 1.5])) + (analysis.report.totals.overheadTokens ?? 0),
          ),
          keepRecentTokens: rng.pick([2_000, 20_000]),
          summaryTokens: 1_000,
          maxToolResultChars: rng.pick([1_000, 50_000]),
        };
        const saved = await loadSavedPlanInputs(file);
        const details = await planDetails(analysis, settings, saved.state, saved.decisions);
        assert.deepEqual(
          details.plan,
          (await planDetails(analysis, settings, saved.state, d)).plan,
          `${where}: the saved decisions, read at the edge, are the ones planned`,
        );
        checkPlanFollows(details.plan, d, analysis, details.kept, where);
        if (step % COMPACT_EVERY !== 0) continue;

        const summaryText = `Summary by hand, step ${step}: ${rng.pick(['keep the parser', 'ünïcödé ✓', '"quoted" \\ text', 'line\nbreaks\n'])} ${rng.int(1e9)}`;
        const original = readFileSync(file);
        const before = snapshotDir(dir);
        let result;
        try {
          result = await compactFile(file, { summarizer: 'extractive', settings, summaryText });
        } catch (err) {
          if (!(err instanceof CompactError) || err.code !== 'nothing-to-compact') throw err;
          const diff = diffSnapshots(before, snapshotDir(dir));
          assert.deepEqual(
            [diff.added, diff.removed, diff.changed],
            [[], [], []],
            `${where}: a refusal writes nothing`,
          );
          continue;
        }
        written++;
        assert.equal(result.summarizer, 'given');
        assert.deepEqual(readFileSync(file), original, `${where}: the original is untouched`);
        const out = readFileSync(result.output);
        assert.deepEqual(
          out.subarray(0, original.length),
          original,
          `${where}: the fork starts with the original's bytes`,
        );
        const appended = out
          .subarray(original.length)
          .toString('utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Json);
        const summaryLine = appended.find((o) => o.isCompactSummary === true)!;
        assert.equal(
          (summaryLine.message as Json).content,
          SUMMARY_PREFIX + summaryText,
          `${where}: the summary is the given text`,
        );
        const writtenCalls = new Set<string>();
        const writtenTexts = new Set<string>();
        for (const o of appended)
          for (const b of blocks(o)) {
            if (b.type === 'tool_use' && typeof b.id === 'string') writtenCalls.add(b.id);
            if (b.type === 'text' && typeof b.text === 'string') writtenTexts.add(b.text);
          }
        const keptCalls = new Set<string>();
        const lines = original.toString('utf8').split('\n');
        for (const r of result.plan.rounds) {
          if (!r.inContext || r.action !== 'keep') continue;
          const c = roundContent(lines, analysis, r.index);
          for (const id of c.calls) {
            keptCalls.add(id);
            assert.ok(
              writtenCalls.has(id),
              `${where}: kept round ${r.index} (${r.by}) has its tool call ${id} written`,
            );
          }
          for (const t of c.texts)
            assert.ok(writtenTexts.has(t), `${where}: kept round ${r.index} (${r.by}) has its text written verbatim`);
        }
        for (const r of result.plan.rounds) {
          if (!r.inContext || r.action === 'keep') continue;
          for (const id of roundContent(lines, analysis, r.index).calls) {
            if (!keptCalls.has(id))
              assert.ok(
                !writtenCalls.has(id),
                `${where}: ${r.action === 'drop' ? 'dropped' : 'summarized'} round ${r.index} (${r.by}) left no tool call ${id} in the output`,
              );
          }
        }
        const check = await checkResumable(result.output, { expectSummaryFirst: true });
        assert.deepEqual(
          check.problems.filter((p) => !/over the .*target/.test(p)),
          [],
          `${where}: the result resumes`,
        );
        file = result.output;
        d = await loadDecisions(file);
        assert.deepEqual(d, noDecisions(), `${where}: the fork starts without decisions`);
      }
      totalWritten += written;
    });
  }
});
