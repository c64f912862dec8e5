/**
 * Round trips between Claude Code's compaction and ours, with the REAL Claude Code (pinned) and the fake Anthropic API:
 *  1. with-compactions.jsonl, a session Claude Code itself compacted (compact boundaries with its summaries), compacts
 *     again with the project (offline summary and Anthropic summarizer) and still resumes: the earlier summary is folded
 *     into ours, Claude Code starts from our summary and sends the kept rounds verbatim, under the target.
 *  2. Claude Code's own `/compact` output (compactWithClaude on a fixture, with a long summary so there is something to
 *     compact) compacted again by us resumes the same way.
 *  3. Our output, resumed and appended to by Claude Code (twice), is inspected and compacted again by us (earlier
 *     tool-result decisions re-applied byte for byte from the state file), and that second output resumes too.
 * Each resume goes through resumeAndCheck (test/support/compacted-request.ts): exit 0, invariants, our summary first,
 * kept rounds verbatim and in order, no merge, estimated size at or under the target.
 *
 * Run: bash scripts/provision-claude-code.sh && npx mocha --no-config --node-option import=tsx --timeout 600000 test/compat/roundtrip.test.ts
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { inspectFile } from '../../src/core/inspect';
import { planDetails } from '../../src/core/compact/plan';
import { compactFile, planCompactionOf } from '../../src/core/compact/compact';
import { checkResumable } from '../../src/core/compact/validate';
import { statePath } from '../../src/core/compact/state';
import { SUMMARY_PREFIX, extractSummary } from '../../src/core/compact/summarize/prompt';
import { claudeFixtureDir } from '../support/fixtures';
import { startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic';
import { LANES, Lanes } from './lanes';
import {
  compactWithClaude,
  contentTexts,
  parseJsonl,
  requestText,
  requireClaudeBinary,
  resumeWithClaude,
} from '../support/claude-code';
import { compactCopy, describeCompaction, describeRun, resumeAndCheck } from '../support/compacted-request';
import { tempDir } from '../support/temp';

const REPLY = 'FAKE-REPLY-ROUNDTRIP';
const SUMMARY_REPLY =
  '<analysis>\nReviewed.\n</analysis>\n\n<summary>\n1. Primary Request and Intent:\n   ROUNDTRIP-SUMMARY-MARKER: continue the work of this session.\n</summary>';
const CC_MARKER = 'CLAUDE-CODE-LONG-SUMMARY-MARKER';
/** A long summary for Claude Code's own /compact (~6,000 tokens), so that its output has something to compact again. */
const CC_LONG_SUMMARY =
  `<analysis>\nReviewed the whole conversation.\n</analysis>\n\n<summary>\n1. Primary Request and Intent:\n   ${CC_MARKER}\n\n2. Work done:\n` +
  Array.from(
    { length: 220 },
    (_, i) =>
      `   - Step ${i + 1}: the assistant read the relevant file, edited it and re-ran the checks, which passed.`,
  ).join('\n') +
  '\n</summary>';

function fixture(name: string): string {
  return path.join(claudeFixtureDir, name);
}

/** Text blocks of a request that are a compaction summary (ours and Claude Code's start with the same sentence). */
const summaryBlocks = (body: any) =>
  (body.messages as any[])
    .flatMap((m) => (m.role === 'user' ? contentTexts(m.content) : []))
    .filter((t) => t.startsWith('This session is being continued from a previous conversation')).length;

// The round trips, each in its own folders, run two at a time, each lane with its own fakes (./lanes.ts).
describe('round trips between Claude Code compaction and ours (real Claude Code, fake Anthropic API)', function () {
  this.timeout(600_000);
  const lanes = new Lanes<{ replyFake: FakeAnthropic; summaryFake: FakeAnthropic }>();
  const fakes: { replyFake: FakeAnthropic; summaryFake: FakeAnthropic }[] = [];
  const temps: string[] = [];

  before(async () => {
    requireClaudeBinary();
    for (let i = 0; i < LANES; i++)
      fakes.push({
        replyFake: await startFakeAnthropic({ scenario: { kind: 'text', text: REPLY } }),
        summaryFake: await startFakeAnthropic({ scenario: { kind: 'text', text: SUMMARY_REPLY } }),
      });
    await lanes.run(fakes);
  });
  after(async () => {
    for (const f of fakes) {
      await f.replyFake.close();
      await f.summaryFake.close();
    }
    for (const d of temps) fs.rmSync(d, { recursive: true, force: true });
  });

  describe('1. a session Claude Code compacted itself (with-compactions.jsonl) compacts again and resumes', () => {
    for (const summarizer of ['extractive', 'anthropic'] as const) {
      lanes.it(`${summarizer} summary, target 35%`, async ({ replyFake, summaryFake }) => {
        const original = fixture('with-compactions.jsonl');
        const analysis = await inspectFile(original, { subagents: false });
        assert.ok(analysis.chain.boundaries.length >= 1, 'Claude Code compacted this session');
        const boundaryRound = analysis.rounds.find((r) => r.inContext && r.startsAtBoundary);
        assert.ok(boundaryRound, "the active context starts at Claude Code's boundary and summary");
        const probe = (await planDetails(analysis, { targetTokens: Number.MAX_SAFE_INTEGER })).plan;
        const pre = probe.preTokens;
        const target = probe.overheadTokens + Math.round(pre * 0.35);
        const c = await compactCopy(original, {
          summarizer,
          settings: { targetTokens: target },
          anthropic:
            summarizer === 'anthropic'
              ? {
                  apiKey: 'sk-fake-roundtrip',
                  baseURL: summaryFake.url,
                  model: 'claude-test-summarizer',
                  maxRetries: 0,
                }
              : undefined,
        });
        const what = `with-compactions.jsonl ${summarizer} @${target}: ${describeCompaction(c.result)}`;
        try {
          const planned = c.result.plan.rounds[boundaryRound.index];
          assert.equal(planned.action, 'summarize', `${what}: Claude Code's summary is folded into ours`);
          assert.match(planned.reason, /earlier compaction summary/);
          // What Claude Code summarized earlier reaches our summary: the offline summary quotes it, the Anthropic
          // summarizer is sent it.
          const ccSummary = parseJsonl(fs.readFileSync(original, 'utf8')).find(
            (l) =>
              l.uuid ===
              analysis.index.entries[boundaryRound.entries.find((e) => analysis.index.entries[e].isCompactSummary)!]
                .uuid,
          );
          const ccSummaryText = contentTexts(ccSummary.message.content).join('\n');
          const probe = ccSummaryText
            .split('\n')
            .find((l) => l.trim().length > 40 && !l.startsWith('This session is being continued'))!
            .trim()
            .slice(0, 60);
          if (summarizer === 'extractive') {
            assert.ok(
              fs.readFileSync(c.result.output, 'utf8').includes(JSON.stringify(probe).slice(1, -1)),
              `${what}: the offline summary carries the earlier summary (${probe})`,
            );
          } else {
            const sent = summaryFake.messageRequests().at(-1)!.body;
            assert.ok(
              JSON.stringify(sent.messages).includes(JSON.stringify(probe).slice(1, -1)),
              `${what}: the earlier summary was sent to the summarizer`,
            );
          }
          const prompt = `Round trip 1 (${summarizer}): continue.`;
          const checked = await resumeAndCheck({
            original,
            analysis,
            result: c.result,
            prompt,
            fake: replyFake,
            reply: REPLY,
            what,
          });
          try {
            const body = checked.run.mainRequest!.body;
            assert.equal(summaryBlocks(body), 1, "one summary (ours), Claude Code's earlier one is not sent");
            assert.ok(
              !requestText(body).slice(checked.summaryText.length).includes(ccSummaryText.slice(0, 200)),
              "Claude Code's earlier summary is not sent beside ours",
            );
            if (summarizer === 'anthropic')
              assert.equal(checked.summaryText, SUMMARY_PREFIX + extractSummary(SUMMARY_REPLY));
            assert.ok(checked.estimate.tokens <= target, `${what}: ~${checked.estimate.tokens} tokens`);
          } finally {
            checked.run.cleanup();
          }
        } finally {
          c.cleanup();
        }
      });
    }
  });

  describe("2. Claude Code's own /compact output, compacted again by us, resumes", () => {
    // example.jsonl's model is retired: Claude Code writes an "informational" line before its boundary and parents
    // the lines after the boundary on it, with timestamps running backwards; the engine reads the file the way
    // Claude Code resumes it (only what follows the last boundary, dangling parents repaired), so it is included.
    for (const name of ['v2.1.97-live-after.jsonl', 'with-compactions.jsonl', 'example.jsonl']) {
      lanes.it(name, async ({ replyFake }) => {
        const cc = await compactWithClaude({ sessionFile: fixture(name), summary: CC_LONG_SUMMARY });
        const dir = fs.realpathSync(tempDir('agent-compactor-roundtrip-'));
        temps.push(dir);
        try {
          assert.equal(cc.exitCode, 0, describeRun(cc));
          assert.equal(cc.compactBoundaries.length, 1);
          assert.equal(cc.compactSummaries.length, 1);
          assert.ok(JSON.stringify(cc.compactSummaries[0].message.content).includes(CC_MARKER));
          const ccOut = path.join(dir, `${cc.sessionId}.jsonl`);
          fs.writeFileSync(ccOut, cc.resumedText);

          const analysis = await inspectFile(ccOut, { subagents: false });
          const probe = (await planDetails(analysis, { targetTokens: Number.MAX_SAFE_INTEGER })).plan;
          const pre = probe.preTokens;
          const target = probe.overheadTokens + Math.round(pre * 0.35);
          const c = await compactCopy(ccOut, { summarizer: 'extractive', settings: { targetTokens: target } });
          const what = `${name} after Claude Code's /compact, extractive @${target}: ${describeCompaction(c.result)}`;
          try {
            const prompt = `Round trip 2 (${name}): continue.`;
            const checked = await resumeAndCheck({
              original: ccOut,
              analysis,
              result: c.result,
              prompt,
              fake: replyFake,
              reply: REPLY,
              what,
            });
            try {
              const body = checked.run.mainRequest!.body;
              assert.equal(summaryBlocks(body), 1, 'one summary: ours');
              assert.ok(checked.summaryText.includes(CC_MARKER), `${what}: Claude Code's summary is folded into ours`);
              assert.equal(
                requestText(body).split(CC_MARKER).length,
                2,
                "Claude Code's summary is not sent beside ours",
              );
              assert.ok(checked.estimate.tokens <= target, `${what}: ~${checked.estimate.tokens} tokens`);
            } finally {
              checked.run.cleanup();
            }
          } finally {
            c.cleanup();
          }
        } finally {
          cc.cleanup();
        }
      });
    }
  });

  describe('3. our output, resumed and appended to by Claude Code, is inspected and compacted again', () => {
    lanes.it(
      'v2.1.97-live-after.jsonl: compact, resume twice, compact again (frozen tool-result decisions), resume',
      async ({ replyFake }) => {
        const name = 'v2.1.97-live-after.jsonl';
        const original = fixture(name);
        const analysis = await inspectFile(original, { subagents: false });
        const probe = (await planDetails(analysis, { targetTokens: Number.MAX_SAFE_INTEGER })).plan;
        const pre = probe.preTokens;
        // Small per-result budget so that some kept results are replaced by previews (the decisions are then frozen).
        const settings = { targetTokens: probe.overheadTokens + Math.round(pre * 0.35), maxToolResultChars: 1_500 };
        const first = await compactCopy(original, { summarizer: 'extractive', settings });
        const dir = fs.realpathSync(tempDir('agent-compactor-roundtrip-'));
        temps.push(dir);
        try {
          const replaced = first.result.plan.toolResults.filter((d) => d.action === 'replaced');
          assert.ok(
            replaced.length > 0,
            `some kept tool results were replaced by previews: ${describeCompaction(first.result)}`,
          );
          const r1 = await resumeAndCheck({
            original,
            analysis,
            result: first.result,
            prompt: 'Round trip 3, first resume: continue.',
            fake: replyFake,
            reply: REPLY,
            what: `${name} first compaction`,
          });
          r1.run.cleanup();
          // Claude Code appends to the file it resumed; resume that again (the session goes on).
          const work = path.join(dir, `${r1.run.sessionId}.jsonl`);
          fs.writeFileSync(work, r1.run.resumedText);
          const r2 = await resumeWithClaude({
            sessionFile: work,
            sessionId: r1.run.sessionId,
            prompt: 'Round trip 3, second turn: go on.',
            fake: replyFake,
          });
          try {
            assert.equal(r2.exitCode, 0, describeRun(r2));
            fs.writeFileSync(work, r2.resumedText);
          } finally {
            r2.cleanup();
          }
          // Our decisions travel with the transcript (state file beside it).
          fs.copyFileSync(statePath(first.result.output), statePath(work));

          // Inspect: our boundary, our summary first, the kept rounds, then Claude Code's two turns.
          const resumed = await inspectFile(work, { subagents: false });
          const active = resumed.rounds.filter((r) => r.inContext);
          assert.ok(active[0].startsAtBoundary);
          assert.equal(resumed.chain.boundaries.length, analysis.chain.boundaries.length + 1);
          const keptBefore = first.result.plan.rounds.filter((r) => r.action === 'keep' && r.inContext).length;
          const replies = active.filter((r) => r.replyPreview?.includes(REPLY));
          assert.equal(replies.length, 2, "both of Claude Code's turns are on the active chain");
          assert.ok(
            active.length >= 1 + keptBefore + 2,
            `${active.length} active rounds: boundary + ${keptBefore} kept + 2 new`,
          );
          assert.deepEqual((await checkResumable(work, { expectSummaryFirst: true })).problems, []);

          // Compact again, below what it is now: the largest cut (from 40% of the transcript down to 5%) whose plan, with
          // the decisions saved beside the session, folds our first summary in and still keeps a round whose result the
          // first compaction replaced (so that re-applying that decision is what is tested). How deep a cut keeps one
          // depends on the summary's reserve and what a resume sends again, not on what this test is about.
          const probe2 = (await planDetails(resumed, { targetTokens: Number.MAX_SAFE_INTEGER })).plan;
          const pre2 = probe2.preTokens;
          const firstPreview = new Map(replaced.map((d) => [d.toolUseId, d.preview]));
          let target2 = 0;
          for (const share of [0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95]) {
            const t = probe2.overheadTokens + Math.round(pre2 * share);
            const planned = (
              await planCompactionOf(work, { summarizer: 'extractive', settings: { ...settings, targetTokens: t } })
            ).plan;
            if (
              planned.summarizedRounds > 0 &&
              planned.rounds[active[0].index].action === 'summarize' &&
              planned.toolResults.some((d) => firstPreview.has(d.toolUseId))
            ) {
              target2 = t;
              break;
            }
          }
          assert.ok(
            target2 > 0,
            'a second compaction that summarizes and keeps a round with a result replaced the first time',
          );
          const second = await compactFile(work, {
            summarizer: 'extractive',
            settings: { ...settings, targetTokens: target2 },
            out: path.join(dir, 'second.jsonl'),
          });
          const what = `${name} second compaction @${target2}: ${describeCompaction(second)}`;
          assert.ok(second.plan.summarizedRounds > 0, what);
          assert.equal(
            second.plan.rounds[active[0].index].action,
            'summarize',
            'our first summary is folded into the second',
          );
          // Earlier replacements that are still kept are re-applied with the exact same preview.
          const again = second.plan.toolResults.filter((d) => firstPreview.has(d.toolUseId));
          assert.ok(again.length > 0, `${what}: some results replaced the first time are still kept`);
          for (const d of again) {
            assert.equal(d.action, 'frozen', `${d.toolUseId}: earlier decision re-applied`);
            assert.equal(d.preview, firstPreview.get(d.toolUseId), `${d.toolUseId}: same preview bytes`);
          }
          // The rounds Claude Code appended carry its own attachment lines (task_reminder, environment, model…), which it
          // renders much longer than the engine counts them (reported): allow that gap here, bounded.
          const r3 = await resumeAndCheck({
            original: work,
            analysis: resumed,
            result: second,
            prompt: 'Round trip 3, after the second compaction: continue.',
            fake: replyFake,
            reply: REPLY,
            what,
            attachmentGap: 0.15,
          });
          try {
            assert.equal(summaryBlocks(r3.run.mainRequest!.body), 1, 'one summary: the second one');
            assert.ok(r3.estimate.tokens <= target2 * 1.15, `${what}: ~${r3.estimate.tokens} tokens`);
            assert.ok(second.postTokens <= target2, `${what}: the engine's own figure meets the target`);
            const after = await inspectFile(r3.run.resumedFile, { subagents: false });
            assert.equal(after.chain.boundaries.length, analysis.chain.boundaries.length + 2);
          } finally {
            r3.run.cleanup();
          }
        } finally {
          first.cleanup();
        }
      },
      3, // Claude Code runs (two resumes of our first output, one of the second): the longest job starts first
    );
  });
});
