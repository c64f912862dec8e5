/**
 * Compacted transcripts resumed by the REAL Claude Code (pinned, scripts/provision-claude-code.sh) against the local
 * fake Anthropic API: for every shared fixture and several targets, compact a private copy with the project
 * (offline extractive summary, and the Anthropic summarizer against the fake server), place the output where Claude
 * Code looks for it (resumeWithClaude: `$HOME/.claude/projects/<cwd>/<uuid>.jsonl`), resume it with a new prompt and
 * assert on the request Claude Code actually sends:
 *   - Claude Code exits 0 and answers with the fake reply;
 *   - the first message is our summary (the isCompactSummary line we wrote, word for word);
 *   - the rounds the plan keeps (plan.rounds action keep, inContext) are there verbatim and in order: assistant text
 *     and tool_use blocks, tool_result texts (or the exact preview for results the plan replaced);
 *   - nothing else: one assistant message per kept response, so no two different responses were merged (and none was
 *     split or added), and no summarized round leaked in;
 *   - every tool_use has its tool_result in the next user message and no orphan tool_result exists
 *     (checkRequestInvariants);
 *   - the estimated size of the messages is at or under the target (method: estimateRequestMessages in
 *     test/support/compacted-request.ts — the project's estimator, calibrated with the original session's factor,
 *     applied to the request's messages without the system prompt, the tools, Claude Code's role "system" messages and
 *     its new turn). Only a target that even an empty summary beside the newest response cannot meet may end over it,
 *     and then the engine must say so (plan note) and the test checks that it really is out of reach; and the engine's
 *     own figure for the file is not below that estimate by more than 10%;
 *   - the file Claude Code resumed and appended to is still readable by our own engine, which finds our boundary,
 *     the summary first, and the new turn at the end, and can plan a new compaction of it.
 * (These checks live in resumeAndCheck, test/support/compacted-request.ts, shared with roundtrip.test.ts.)
 * Targets: 60%, 35% and 15% of each fixture's active-context estimate (offline summary), 35% with the Anthropic
 * summarizer writing a --fresh output, and 150% (nothing to compact: asserted explicitly, no Claude Code run).
 *
 * The subagent-only fixture (every line isSidechain, the content of `<session>/subagents/agent-*.jsonl`) is not a
 * session Claude Code resumes: it refuses the original with "No conversation found"; our engine compacts it anyway
 * (its output is a main-chain file: writeback writes isSidechain false), checked in its own test below.
 *
 * The cases that run Claude Code run two at a time (./lanes.ts), each lane with its own fake servers (the reply fake
 * and the summary fake), so each case sees only its own requests.
 *
 * Run: bash scripts/provision-claude-code.sh && npx mocha --no-config --node-option import=tsx --timeout 600000 test/compat/compacted.test.ts
 * Nothing is skipped: without the binary every test fails with the provisioning command to run.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { inspectFile, type Analysis } from '../../src/core/inspect';
import { planDetails, summaryFloorTokens } from '../../src/core/compact/plan';
import { checkResumable } from '../../src/core/compact/validate';
import { SUMMARY_CLIPPED_MARKER } from '../../src/core/compact/writeback';
import { CompactError, type CompactResult } from '../../src/core/compact/types';
import { SUMMARY_PREFIX, extractSummary } from '../../src/core/compact/summarize/prompt';
import { claudeFixtureDir, claudeFixtures } from '../support/fixtures';
import { startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic';
import {
  checkRequestInvariants,
  contentTexts,
  requireClaudeBinary,
  resumeWithClaude,
  type ClaudeRunResult,
} from '../support/claude-code';
import {
  checkVerbatim,
  compactCopy,
  describeCompaction,
  describeRun,
  estimateRequestMessages,
  keptRoundsExpectation,
  ourSummaryText,
  resumeAndCheck,
} from '../support/compacted-request';
import { LANES, Lanes } from './lanes';

/** Fixtures whose every entry is a sidechain (subagent transcripts): Claude Code does not resume them. */
const SUBAGENT_ONLY = new Set(['v2.1.63-subagent.jsonl']);
const FRACTIONS = [0.6, 0.35, 0.15];
const REPLY = 'FAKE-REPLY-AFTER-COMPACTION';
/** What the fake Anthropic API answers to our summarizer (the <summary> body is what gets written). */
const SUMMARY_REPLY =
  '<analysis>\nReviewed the conversation in order.\n</analysis>\n\n<summary>\n1. Primary Request and Intent:\n   COMPAT-SUMMARY-MARKER: ' +
  'the user asked for the work recorded in this transcript; continue it.\n\n2. Current Work:\n   The most recent exchanges follow verbatim.\n</summary>';

const timings: {
  name: string;
  label: string;
  target: number;
  requestTokens: number;
  keptRounds: number;
  compactMs: number;
  claudeMs: number;
}[] = [];

/** A lane's fake servers: the one Claude Code talks to, and the one our Anthropic summarizer talks to. */
interface Fakes {
  replyFake: FakeAnthropic;
  summaryFake: FakeAnthropic;
}

interface Case {
  name: string;
  label: string;
  fraction: number;
  summarizer: 'extractive' | 'anthropic';
  fresh?: boolean;
}

describe('compacted transcripts resumed by the real Claude Code (fake Anthropic API)', function () {
  this.timeout(600_000);
  const lanes = new Lanes<Fakes>();
  const fakes: Fakes[] = [];
  const analyses = new Map<
    string,
    Promise<{ analysis: Analysis; pre: number; overhead: number; calibration: number }>
  >();
  const analysisOf = (name: string) => {
    if (!analyses.has(name)) {
      analyses.set(
        name,
        (async () => {
          const analysis = await inspectFile(path.join(claudeFixtureDir, name), { subagents: false });
          const probe = (await planDetails(analysis, { targetTokens: Number.MAX_SAFE_INTEGER })).plan;
          // Targets cover the whole resumed context: the system prompt and tools plus a fraction of the transcript.
          return {
            analysis,
            pre: probe.preTokens,
            overhead: probe.overheadTokens,
            calibration: analysis.report.totals.calibrationFactor,
          };
        })(),
      );
    }
    return analyses.get(name)!;
  };

  before(async () => {
    requireClaudeBinary(); // throws "run bash scripts/provision-claude-code.sh" when missing: the suite FAILS
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
    if (timings.length) {
      const total = timings.reduce((s, t) => s + t.compactMs + t.claudeMs, 0);
      console.log(
        `      ${timings.length} compactions resumed; compaction ${timings.reduce((s, t) => s + t.compactMs, 0)} ms, Claude Code ${timings.reduce((s, t) => s + t.claudeMs, 0)} ms, total ${total} ms`,
      );
    }
  });

  async function runCase(c: Case, { replyFake, summaryFake }: Fakes): Promise<void> {
    const original = path.join(claudeFixtureDir, c.name);
    const { analysis, pre, overhead, calibration } = await analysisOf(c.name);
    assert.equal(
      analysis.chain.subagentFile,
      false,
      `${c.name} is a subagent-only transcript: list it in SUBAGENT_ONLY`,
    );
    const target = overhead + Math.round(pre * c.fraction);
    const t0 = Date.now();
    const summaryRequestsBefore = summaryFake.messageRequests().length;
    let compacted;
    try {
      compacted = await compactCopy(original, {
        summarizer: c.summarizer,
        settings: { targetTokens: target },
        fresh: c.fresh,
        anthropic:
          c.summarizer === 'anthropic'
            ? { apiKey: 'sk-fake-compat', baseURL: summaryFake.url, model: 'claude-test-summarizer', maxRetries: 0 }
            : undefined,
      });
    } catch (err) {
      // A context so small that the summary's framing plus the newest response (always kept) is no smaller: there is
      // nothing to gain, and nothing is written (compactCopy removes its folder either way).
      if (!(err instanceof CompactError) || !/^Nothing to gain/.test(err.message)) throw err;
      const newest = analysis.report.rounds.filter((r) => r.inContext).at(-1)!;
      assert.ok(
        pre <= summaryFloorTokens(calibration) + newest.tokens.estimate,
        `${c.name}: "${err.message}" although ${pre} > ${summaryFloorTokens(calibration)} + ${newest.tokens.estimate}`,
      );
      return;
    }
    const compactMs = Date.now() - t0;
    const result: CompactResult = compacted.result;
    const what = `${c.name} ${c.label} @${target}: ${describeCompaction(result)}`;
    let run: ClaudeRunResult | undefined;
    try {
      // The compaction itself.
      assert.equal(result.preTokens, pre, what);
      assert.ok(result.plan.summarizedRounds > 0, `${what}: something was summarized`);
      if (c.summarizer === 'anthropic') {
        assert.deepEqual(
          result.attempts.map((a) => `${a.strategy}:${a.outcome}`),
          ['anthropic:ok'],
          what,
        );
        assert.equal(
          summaryFake.messageRequests().length,
          summaryRequestsBefore + 1,
          'one summary request to the fake API',
        );
      } else {
        assert.deepEqual(
          result.attempts.map((a) => a.strategy),
          ['extractive'],
          what,
        );
      }
      const summaryText = ourSummaryText(result.output);
      assert.ok(summaryText.startsWith(SUMMARY_PREFIX), 'our summary line starts with the continuation prefix');
      if (c.summarizer === 'anthropic') {
        // The fake model's <summary> body, whole, or clipped to the room the kept rounds leave (writeback fitSummary).
        const body = SUMMARY_PREFIX + extractSummary(SUMMARY_REPLY);
        const clipped = summaryText.endsWith(SUMMARY_CLIPPED_MARKER);
        assert.ok(
          clipped ? body.startsWith(summaryText.slice(0, -SUMMARY_CLIPPED_MARKER.length)) : summaryText === body,
          `the summary is the fake model's <summary> body: ${summaryText}`,
        );
      }
      // Resume with the real Claude Code and check the request it sends (see resumeAndCheck).
      const prompt = `Continue after compaction (${c.name}, ${c.label}).`;
      const checked = await resumeAndCheck({ original, analysis, result, prompt, fake: replyFake, reply: REPLY, what });
      run = checked.run;
      const est = checked.estimate;
      const expected = checked.expected;

      // The resumed (appended-to) file is still readable by our engine.
      const after = await inspectFile(run.resumedFile, { subagents: false });
      const active = after.rounds.filter((r) => r.inContext);
      assert.ok(active[0]?.startsAtBoundary, 'the active context starts at a compact boundary');
      const firstUser = after.chain.main
        .slice(after.chain.activeStart)
        .map((i) => after.index.entries[i])
        .find((e) => e.kind === 'user');
      assert.ok(firstUser?.isCompactSummary, 'our summary is the first user entry of the active context');
      assert.ok(after.rounds.at(-1)?.replyPreview?.includes(REPLY), 'the new reply is the last round');
      assert.equal(after.chain.boundaries.length, c.fresh ? 1 : analysis.chain.boundaries.length + 1);
      const check = await checkResumable(run.resumedFile, { calibration, expectSummaryFirst: true });
      assert.deepEqual(check.problems, [], 'our validator accepts the resumed file');
      const again = await planDetails(after, { targetTokens: target });
      assert.ok(again.plan.preTokens > 0);

      timings.push({
        name: c.name,
        label: c.label,
        target,
        requestTokens: est.tokens,
        keptRounds: expected.rounds.length,
        compactMs,
        claudeMs: run.durationMs,
      });
    } finally {
      run?.cleanup();
      compacted.cleanup();
    }
  }

  for (const file of claudeFixtures()) {
    const name = path.basename(file);
    if (SUBAGENT_ONLY.has(name)) continue;
    describe(name, () => {
      for (const fraction of FRACTIONS) {
        const label = `offline summary, target ${Math.round(fraction * 100)}%`;
        lanes.it(label, (fakes) => runCase({ name, label, fraction, summarizer: 'extractive' }, fakes));
      }
      lanes.it('Anthropic summarizer (fake API), target 35%, --fresh output', (fakes) =>
        runCase(
          {
            name,
            label: 'Anthropic summarizer, target 35%, fresh',
            fraction: 0.35,
            summarizer: 'anthropic',
            fresh: true,
          },
          fakes,
        ),
      );
      it('target 150%: nothing to compact, said explicitly, nothing written', async () => {
        const { pre, overhead, analysis } = await analysisOf(name);
        const target = overhead + Math.round(pre * 1.5);
        const plan = (await planDetails(analysis, { targetTokens: target })).plan;
        if (!plan.nothingToDo) {
          // Over-long tool results still get budgeted below the target: then it compacts (budgets only).
          assert.ok(
            plan.toolResults.some((d) => d.action === 'replaced'),
            `${name}: under target, yet not nothing-to-do`,
          );
          return;
        }
        await assert.rejects(
          compactCopy(path.join(claudeFixtureDir, name), {
            summarizer: 'extractive',
            settings: { targetTokens: target },
          }),
          (err: unknown) => {
            assert.ok(err instanceof CompactError && err.code === 'nothing-to-compact', String(err));
            assert.match(
              err.message,
              new RegExp(
                `about ${pre} tokens \\(plus about ${overhead} of system prompt and tools\\), already within the ${target}-token target`,
              ),
            );
            return true;
          },
        );
      });
    });
  }

  describe('subagent-only transcript (v2.1.63-subagent.jsonl)', () => {
    lanes.it(
      'Claude Code refuses the original ("No conversation found"); our engine compacts it into a file that resumes',
      async ({ replyFake }) => {
        const name = 'v2.1.63-subagent.jsonl';
        const original = path.join(claudeFixtureDir, name);
        const { analysis, pre, overhead, calibration } = await analysisOf(name);
        assert.equal(analysis.chain.subagentFile, true);
        const refused = await resumeWithClaude({ sessionFile: original, prompt: 'hello', fake: replyFake });
        try {
          assert.equal(refused.exitCode, 1, describeRun(refused));
          assert.match(refused.stderr, /No conversation found with session ID/);
          assert.equal(refused.requests.length, 0, 'no request sent');
        } finally {
          refused.cleanup();
        }
        const target = overhead + Math.round(pre * 0.35);
        const compacted = await compactCopy(original, { summarizer: 'extractive', settings: { targetTokens: target } });
        try {
          const result = compacted.result;
          const check = await checkResumable(result.output, {
            targetTokens: target,
            calibration,
            expectSummaryFirst: true,
          });
          assert.deepEqual(check.problems, [], describeCompaction(result));
          // The compacted chain is written with isSidechain false, so Claude Code now treats it as a main session.
          const prompt = 'Continue the subagent work.';
          const run = await resumeWithClaude({ sessionFile: result.output, prompt, fake: replyFake });
          try {
            assert.equal(run.exitCode, 0, describeRun(run));
            const body = run.mainRequest!.body;
            assert.deepEqual(checkRequestInvariants(body), []);
            assert.equal(contentTexts(body.messages[0].content).join('\n'), ourSummaryText(result.output));
            const expected = await keptRoundsExpectation(original, result.plan, analysis);
            assert.deepEqual(checkVerbatim(body, expected.items).problems, []);
            assert.ok(estimateRequestMessages(body, calibration, prompt).tokens <= target);
          } finally {
            run.cleanup();
          }
        } finally {
          compacted.cleanup();
        }
      },
    );
  });

  describe('regression: the summary fits the room the kept rounds leave', () => {
    // Before writeback.ts fitSummary, a target the plan's 4,000-token summary reserve did not fit beside the newest
    // response gave a file over the target although a shorter summary fits (v1.0.98-small.jsonl at 15%: 510 > 405).
    it('v1.0.98-small.jsonl at 15%: clipped summary, under the target', async () => {
      const name = 'v1.0.98-small.jsonl';
      const { pre, overhead, calibration } = await analysisOf(name);
      const target = overhead + Math.round(pre * 0.15);
      const compacted = await compactCopy(path.join(claudeFixtureDir, name), {
        summarizer: 'extractive',
        settings: { targetTokens: target },
      });
      try {
        const r = compacted.result;
        assert.ok(r.postTokens <= target, describeCompaction(r));
        assert.deepEqual(
          r.plan.notes.filter((n) => /cannot reach/.test(n)),
          [],
          'no "cannot reach" note for a reachable target',
        );
        assert.match(ourSummaryText(r.output), /\[summary clipped to fit the target\]$/);
        const check = await checkResumable(r.output, { targetTokens: target, calibration, expectSummaryFirst: true });
        assert.deepEqual(check.problems, []);
      } finally {
        compacted.cleanup();
      }
    });
  });
});
