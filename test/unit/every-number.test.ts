// Every number the same (issue 25): on the shared sessions, the figures one compaction shows are one figure where they
// should be equal and explained where they differ. A fork's rounds count up to its own context figure (system prompt
// and tools included), the context a plan promises is the one the written file delivers, or the result says why with
// the numbers; the plan meets its target where its floor allows; the Sessions list, the live status item and the
// Rounds tree say the same context for every session and every cut of it, with the thresholds the session shows.
import { strict as assert } from 'node:assert';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { inspectFile } from '../../src/core/inspect';
import { contextNow } from '../../src/core/context';
import { compactFile, planCompactionOf } from '../../src/core/compact/compact';
import { planCompaction } from '../../src/core/compact/plan';
import { planBound } from '../../src/core/compact/bound';
import { promiseGap } from '../../src/core/compact/promise';
import { summarizeSession } from '../../src/core/formats/claude-code/sessionSummary';
import { sessionContext, sessionStats } from '../../src/core/sessionStats';
import { autoCompactText, contextLimits } from '../../src/core/limits';
import { renderPlan } from '../../src/cli/plan';
import { liveStatus } from '../../src/extension/model/liveStatus';
import { shownContext } from '../../src/extension/model/sessionsTree';
import { contextAfter, planDetail, resultSummary } from '../../src/extension/model/planText';
import { formatNumber } from '../../src/extension/model/format';
import { claudeFixtures, fixture, sharedFixtures } from '../support/fixtures';
import { tempDir } from '../support/temp';

describe('Every number the same', function () {
  this.timeout(600_000);
  let dir: string;
  before(() => (dir = tempDir('ac-every-number-')));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const copy = (src: string, name = basename(src)) => {
    const file = join(mkdtempSync(join(dir, 'p-')), name);
    copyFileSync(src, file);
    return file;
  };

  it("a fork's rounds count up to its own context figure: system prompt and tools first, the last round = the header", async () => {
    let checked = 0;
    for (const [name, target] of [
      ['v2.1.97-live-after.jsonl', 40_000],
      ['example.jsonl', 25_000],
      ['with-compactions.jsonl', 60_000],
      ['v2.1.97-images.jsonl', 40_000],
    ] as const) {
      const result = await compactFile(copy(fixture(name)), {
        summarizer: 'extractive',
        settings: { targetTokens: target },
      });
      const fork = await inspectFile(result.output, { subagents: false });
      const context = contextNow(fork.report);
      const active = fork.report.rounds.filter((r) => r.inContext);
      assert.ok(context.overheadKnown && context.overhead > 0, `${name}: the fork knows its system prompt and tools`);
      // The first round (the summary) already carries the system prompt and tools.
      assert.ok(
        active[0].cumulative.tokens >= context.overhead + active[0].tokens.estimate,
        `${name}: first round ${active[0].cumulative.tokens} holds the system prompt and tools ${context.overhead}`,
      );
      assert.equal(
        active.at(-1)!.cumulative.tokens,
        context.tokens,
        `${name}: the last round's context is the header's`,
      );
      for (let i = 1; i < active.length; i++)
        assert.equal(
          active[i].cumulative.tokens - active[i - 1].cumulative.tokens,
          active[i].tokens.added,
          `${name}: each round adds what it says`,
        );
      checked++;
    }
    assert.equal(checked, 4);
  });

  it('the context a plan promises is the one the written file delivers, or the result says why with the numbers', async () => {
    for (const [name, target] of [
      ['v2.1.97-live-after.jsonl', 40_000],
      ['v2.1.97-images.jsonl', 60_000],
      ['with-compactions.jsonl', 60_000],
      ['example.jsonl', 30_000],
    ] as const) {
      const file = copy(fixture(name));
      const planned = await planCompactionOf(file, { summarizer: 'extractive', settings: { targetTokens: target } });
      const shown = contextAfter(planned.plan);
      // What the confirmation shows is the plan's own promise, and a target its floor allows is met.
      assert.ok(
        shown <= target || planBound(planned.plan).floorTokens > target,
        `${name}: promised ${shown} for ${target}`,
      );
      const result = await compactFile(file, { summarizer: 'extractive', settings: { targetTokens: target } });
      const { promised, delivered } = result;
      assert.ok(promised && delivered, 'the result carries both');
      assert.equal(promised.tokens, shown, `${name}: the promise is the figure the dialog showed`);
      // The delivered figure is the written file's own context figure (its status bar and Rounds header).
      const fork = contextNow((await inspectFile(result.output, { subagents: false })).report);
      assert.equal(delivered.tokens, fork.tokens, `${name}: delivered = the fork's own figure`);
      assert.equal(delivered.measured, 0, `${name}: every part of it is one the plan sizes`);
      // Where they differ, it is the summary against its reserve, said with both numbers.
      assert.equal(delivered.kept, promised.kept, name);
      assert.equal(delivered.tokens - promised.tokens, delivered.summary - promised.summary, name);
      const gap = promiseGap(promised, delivered, formatNumber);
      assert.equal(
        gap,
        `the summary came out at ${formatNumber(delivered.summary)}, ${delivered.summary < promised.summary ? 'below' : 'above'} its ${formatNumber(promised.summary)} reserve`,
      );
      const message = resultSummary(result, { context: planned.plan.context });
      assert.ok(message.includes(`→ ${formatNumber(fork.tokens)} tokens`), message);
      assert.ok(message.includes(`Planned ${formatNumber(shown)}: ${gap}.`), message);
    }
  });

  it('a result just over the target is explained by its parts, not by a floor below the target', async () => {
    const analysis = await inspectFile(fixture('v2.1.97-live-after.jsonl'), { subagents: false });
    const plan = await planCompaction(analysis, { targetTokens: 40_000 });
    // A planner that leaves no room for what a resume sends again lands just over; this one does not.
    const over = { ...plan, postTokens: plan.postTokens + (40_000 - contextAfter(plan)) + 250 };
    const bound = planBound(over);
    assert.ok(bound.floorTokens < 40_000);
    assert.equal(bound.kind, 'parts');
    assert.match(
      bound.text,
      /^result 40k, above your 40k target: 250 tokens over, made of system prompt and tools ~16k/,
    );
    assert.doesNotMatch(bound.text, /the least this context can become/);
  });

  it("a Codex dialog's system prompt and tools are the context figure's, and Codex's resumed context is named beside them", async () => {
    const analysis = await inspectFile(join(sharedFixtures, 'codex', 'rollout-0.142.jsonl'), { subagents: false });
    const context = contextNow(analysis.report);
    const plan = await planCompaction(analysis, { targetTokens: 40_000 });
    assert.ok(plan.resumeContextTokens && plan.resumeContextTokens > 0);
    const line = planDetail(plan, context)
      .split('\n')
      .find((l) => l.startsWith('System prompt and tools:'))!;
    assert.ok(line.startsWith(`System prompt and tools: ~${formatNumber(context.overhead)}, unchanged;`), line);
    assert.ok(
      line.includes(`~${formatNumber(plan.resumeContextTokens)} that Codex gives the resumed thread again`),
      line,
    );
    // Nothing to do at a target above the context: the CLI says the context figure, not another one.
    const nothing = await planCompaction(analysis, { targetTokens: 200_000 });
    const text = renderPlan(nothing);
    assert.match(text, /^nothing to do: the context now \(165\.0k\) is within the 200\.0k target$/m);
    assert.match(text, /^context now: 165\.0k tokens/m);
  });

  it('the Sessions list, the live status item and the Rounds tree say one context figure on every session and every cut', async () => {
    const cut = (src: string, lines: number) => {
      const file = join(mkdtempSync(join(dir, 'cut-')), basename(src));
      writeFileSync(file, readFileSync(src, 'utf8').split('\n').slice(0, lines).join('\n') + '\n');
      return file;
    };
    const files = claudeFixtures();
    // Right after Claude Code's own compaction: no request after it yet.
    for (const n of [577, 578, 579]) files.push(cut(fixture('with-compactions.jsonl'), n));
    for (const src of claudeFixtures()) {
      const count = readFileSync(src, 'utf8').split('\n').length;
      for (const at of [0.3, 0.6, 0.9]) files.push(cut(src, Math.max(1, Math.round(count * at))));
    }
    // A fork we wrote: its kept rounds carry usage we estimated, which is no request's.
    const forked = await compactFile(copy(fixture('v2.1.97-live-after.jsonl')), {
      summarizer: 'extractive',
      settings: { targetTokens: 40_000 },
    });
    files.push(forked.output);
    let quickExact = 0;
    for (const file of files) {
      const where = file.replace(dir, '');
      const expected = contextNow((await inspectFile(file, { subagents: false })).report).tokens;
      const quick = await summarizeSession(file, 'p');
      const stats = await sessionStats(file);
      assert.equal(stats.contextTokens, expected, `${where}: the whole read`);
      const row = shownContext(quick, { kind: 'ready', stats, stale: false });
      assert.equal(row.contextTokens, expected, `${where}: the row`);
      const live = liveStatus({ ...quick, live: true, agent: 'claude-code' }, sessionContext(quick, stats, false));
      assert.ok(live?.tooltip.includes(`context ${expected.toLocaleString('en-US')} of`), `${where}: ${live?.tooltip}`);
      // The quick read of the end, calibrated by an earlier whole read (a live session is not read whole on every
      // append): the same figure, or unknown (then the row and the item wait for the whole read).
      const calibrated = sessionContext(quick, stats, true);
      if (calibrated.tokens !== null) {
        assert.equal(calibrated.tokens, expected, `${where}: the quick read, calibrated`);
        quickExact++;
      }
    }
    assert.ok(quickExact >= files.length * 0.7, `${quickExact} of ${files.length} read exactly from the end`);
    // The cut right after the agent's own compaction is among them (it read as unknown in the list before).
    const right = cut(fixture('with-compactions.jsonl'), 579);
    const quick = await summarizeSession(right, 'p');
    assert.equal(sessionContext(quick, await sessionStats(right), true).tokens, 45_038);
  });

  it("the live status item takes the session's own thresholds: a 1M-named session that compacted itself at 167k", async () => {
    const file = join(mkdtempSync(join(dir, 'one-m-')), 'one-m.jsonl');
    writeFileSync(
      file,
      readFileSync(fixture('with-compactions.jsonl'), 'utf8').replace(
        /"model":"claude-[^"]+"/g,
        '"model":"claude-opus-4-6-1m"',
      ),
    );
    const quick = { ...(await summarizeSession(file, 'p')), live: true, agent: 'claude-code' as const };
    const stats = await sessionStats(file);
    const context = sessionContext(quick, stats, true);
    assert.equal(context.limits.autoCompactAt, 167_174);
    const status = liveStatus(quick, context)!;
    assert.ok(status.tooltip.includes(autoCompactText(contextLimits(stats.limits))), status.tooltip);
    assert.match(status.tooltip, /auto-compacts near 167k \(17% of 1M\): this session compacted itself/);
    assert.doesNotMatch(status.tooltip, /967k/);
    // 108k of a 167k threshold is not "normal" against a 1M window's 967k.
    assert.equal(status.level, 'normal');
    const near = liveStatus(quick, { ...context, tokens: 160_000 })!;
    assert.equal(near.level, 'alert');
  });
});
