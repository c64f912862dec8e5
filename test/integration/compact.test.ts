// Compaction end to end: property checks over every fixture and many targets, and the
// Anthropic summarizer through the real SDK against the local fake Messages API.
import { extractiveSummary, shapeForExtractive } from '../../src/core/compact/summarize/extractive';
import { strict as assert } from 'node:assert';
import { appendFileSync, copyFileSync, mkdirSync, readFileSync, readdirSync, existsSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { createServer } from 'node:net';
import { inspectFile } from '../../src/core/inspect';
import { planCompaction } from '../../src/core/compact/plan';
import { COMMITTING, compactFile } from '../../src/core/compact/compact';
import { checkResumable } from '../../src/core/compact/validate';
import { CompactError } from '../../src/core/compact/types';
import { SUMMARY_PREFIX } from '../../src/core/compact/summarize/prompt';
import { claudeFixtures, fixture } from '../support/fixtures';
import { startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic';
import { claudeRecords } from '../support/records';
import { tempDir } from '../support/temp';

const root = tempDir('ac-compact-');
let n = 0;
function copy(src: string): string {
  const d = join(root, String(n++));
  mkdirSync(d);
  const p = join(d, basename(src));
  copyFileSync(src, p);
  return p;
}

/**
 * Estimated tokens of the least a compacted file can resume with: our boundary, the summary line holding only the
 * continuation prefix (an empty summary), and the newest response's lines (from the first line of the last assistant
 * message id to the end), re-linked onto the summary. Built from the written output, measured by checkResumable.
 */
async function newestResponseFloor(output: string, originalBytes: number, calibration: number): Promise<number> {
  const text = readFileSync(output, 'utf8');
  const head = text.slice(0, Buffer.from(text).subarray(0, originalBytes).toString('utf8').length);
  const tail = text
    .slice(head.length)
    .split('\n')
    .filter((l) => l.trim());
  assert.ok(
    JSON.parse(tail[0]).compactMetadata?.compactor === 'agent-compactor',
    'our boundary follows the original bytes',
  );
  const summary = JSON.parse(tail[1]);
  assert.equal(summary.isCompactSummary, true);
  assert.ok(typeof summary.message.content === 'string' && summary.message.content.startsWith(SUMMARY_PREFIX));
  summary.message.content = SUMMARY_PREFIX;
  const kept = tail.slice(2).map((l) => JSON.parse(l));
  const lastId = kept.filter((o) => o.type === 'assistant').at(-1)?.message?.id;
  const newest = kept.slice(lastId ? kept.findIndex((o) => o.type === 'assistant' && o.message?.id === lastId) : 0);
  if (newest.length) newest[0].parentUuid = summary.uuid;
  const floorFile = output.replace(/\.jsonl$/, '.floor.jsonl');
  writeFileSync(
    floorFile,
    head + [tail[0], JSON.stringify(summary), ...newest.map((o) => JSON.stringify(o))].join('\n') + '\n',
  );
  const check = await checkResumable(floorFile, { calibration, expectSummaryFirst: true });
  assert.deepEqual(check.problems, [], 'the floor file resumes');
  return check.estimatedTokens;
}

describe('compaction properties on every shared fixture', function () {
  this.timeout(300_000);
  for (const src of claudeFixtures()) {
    it(`${basename(src)}: output is API-valid, under target (or provably unable to be), original untouched`, async () => {
      const original = readFileSync(src);
      const analysis = await inspectFile(src, { subagents: false });
      const active = analysis.report.rounds.filter((r) => r.inContext).reduce((s, r) => s + r.tokens.estimate, 0);
      const calibration = analysis.report.totals.calibrationFactor;
      // The target covers the system prompt and tools the session's usage records: the transcript gets the rest.
      const overhead = analysis.report.totals.overheadTokens ?? 0;
      let compacted = 0;
      let unreachable = 0;
      // Fractions of the active context as room for the transcript, and one room (50 tokens) below any resumed
      // context (the summary's continuation prefix alone is larger), where the target is out of reach.
      for (const fraction of [0.8, 0.5, 0.3, 0.15, 0]) {
        const room = fraction ? Math.max(1_000, Math.round(active * fraction)) : 50;
        const target = overhead + room;
        const settings = { targetTokens: target, keepRecentTokens: Math.round(room / 2), summaryTokens: 1_500 };
        const file = copy(src);
        const plan1 = await planCompaction(analysis, settings);
        const plan2 = await planCompaction(analysis, settings);
        assert.deepEqual(plan1, plan2, 'plan is deterministic');
        assert.equal(plan1.messageTarget, room, "the transcript's room is the target less the overhead");
        let result;
        try {
          result = await compactFile(file, { summarizer: 'extractive', settings });
        } catch (err) {
          assert.ok(err instanceof CompactError && err.code === 'nothing-to-compact', String(err));
          assert.deepEqual(
            readdirSync(join(file, '..')).sort(),
            [basename(file)],
            'a refused compaction writes nothing',
          );
          const gain =
            /^Nothing to gain: the compacted context would be about (\d+) tokens, not smaller than the (\d+)/.exec(
              err.message,
            );
          if (gain) {
            // The summary's framing costs more than the rounds it would replace: only in a tiny context.
            assert.ok(Number(gain[1]) >= Number(gain[2]) && plan1.preTokens <= 2_000, err.message);
            continue;
          }
          assert.ok(
            plan1.nothingToDo && plan1.preTokens <= room,
            `nothing to compact, yet the plan says ${plan1.preTokens} > ${room}`,
          );
          assert.ok(active <= room, `nothing to compact, yet the estimated active context ${active} > ${room}`);
          continue;
        }
        compacted++;
        assert.deepEqual(readFileSync(file), original, 'original unchanged');
        const out = readFileSync(result.output);
        assert.deepEqual(
          out.subarray(0, original.length),
          original,
          'original lines kept byte for byte before the boundary',
        );
        const check = await checkResumable(result.output, { calibration, expectSummaryFirst: true });
        assert.deepEqual(check.problems, [], `${basename(src)} @${target}`);
        const newest = result.plan.rounds.filter((r) => r.inContext).at(-1)!;
        assert.equal(newest.action, 'keep', 'newest response always kept');
        assert.equal(result.postTokens, check.estimatedTokens);
        // Always checked: under the target, or over it only when even the least the result can hold (the summary
        // line with an empty summary, then the newest response alone) is over it, measured on a file built here.
        const floor = await newestResponseFloor(result.output, original.length, calibration);
        const cannotReach = result.plan.notes.some((x) => /cannot reach/.test(x));
        if (check.estimatedTokens > room) {
          unreachable++;
          assert.ok(
            floor > room,
            `${basename(src)} @${room}: ${check.estimatedTokens} tokens over the ${room}-token room, though the newest response with an empty summary takes only ${floor}`,
          );
          assert.ok(
            cannotReach,
            `${basename(src)} @${room}: an out-of-reach target is reported (${JSON.stringify(result.plan.notes)})`,
          );
        } else {
          assert.ok(check.estimatedTokens <= room, `${check.estimatedTokens} > ${room}`);
          assert.ok(
            !cannotReach,
            `${basename(src)} @${room}: "cannot reach" note for a result at ${check.estimatedTokens} tokens`,
          );
        }
        if (fraction === 0)
          assert.ok(floor > room, `${basename(src)}: the 50-token room is meant to be out of reach (floor ${floor})`);
        // Every kept round's tool_use ids travel with their results: the validity check above covers it;
        // also no summarized round is kept and vice versa.
        for (const r of result.plan.rounds) if (!r.inContext) assert.equal(r.action, 'keep');
      }
      if (active > 1_000 / 0.15) assert.ok(compacted > 1, 'a reachable target compacts');
      assert.equal(unreachable, compacted > 0 ? 1 : 0, 'only the 50-token room is out of reach');
    });
  }

  // thinking.jsonl: three rounds (the prompt; a response with a 1,260-character signature that calls Edit; the newest
  // response with a 460-character signature). The target covers the session's system prompt and tools, so it is set
  // relative to the overhead the file records: a few hundred tokens of room for the transcript.
  describe('thinking signatures (thinking.jsonl)', () => {
    type Thinking = { thinking: string; signature: string; raw: string };
    /** Thinking blocks per assistant message id, in file order, with the raw JSON text of each signature. */
    const thinkingById = (lines: string[]) => {
      const byId = new Map<string, Thinking[]>();
      for (const l of lines) {
        if (!l.trim()) continue;
        const o = JSON.parse(l);
        if (o.type !== 'assistant' || !Array.isArray(o.message?.content)) continue;
        const list = byId.get(o.message.id) ?? [];
        byId.set(o.message.id, list);
        const raws = [...l.matchAll(/"signature":("(?:[^"\\]|\\.)*")/g)].map((m) => m[1]);
        const blocks = o.message.content.filter((b: { type?: string }) => b?.type === 'thinking');
        assert.equal(raws.length, blocks.length, 'one raw signature per thinking block');
        blocks.forEach((b: { thinking: string; signature: string }, i: number) =>
          list.push({ thinking: b.thinking, signature: b.signature, raw: raws[i] }),
        );
      }
      return byId;
    };
    const run = async (room: number, keepRecentTokens: number, summaryTokens: number) => {
      const file = copy(fixture('thinking.jsonl'));
      const inputText = readFileSync(file, 'utf8');
      const input = thinkingById(inputText.split('\n'));
      const ids = [...input.keys()];
      const newestIn = input.get(ids.at(-1)!)!;
      const olderIn = ids.slice(0, -1).flatMap((id) => input.get(id)!);
      assert.equal(newestIn.length, 1, "the fixture's newest response has one thinking block");
      assert.ok(
        newestIn[0].signature.length > 100 && olderIn.length === 1 && olderIn[0].signature.length > 100,
        'the fixture has signed thinking in both responses',
      );
      const overhead = (await inspectFile(file, { subagents: false })).report.totals.overheadTokens ?? 0;
      const result = await compactFile(file, {
        summarizer: 'extractive',
        settings: { targetTokens: overhead + room, keepRecentTokens, summaryTokens },
      });
      assert.equal(readFileSync(file, 'utf8'), inputText, 'original unchanged');
      const outLines = readFileSync(result.output, 'utf8').split('\n');
      const boundary = outLines.findIndex(
        (l) => l.includes('"compact_boundary"') && l.includes('"compactor":"agent-compactor"'),
      );
      assert.ok(boundary > 0, 'our boundary is written');
      const after = outLines.slice(boundary);
      const output = thinkingById(after);
      const outIds = [...output.keys()];
      assert.ok(outIds.length > 0, 'responses are kept after the boundary');
      const allOut = outIds.flatMap((id) => output.get(id)!);
      assert.ok(allOut.length > 0, 'the output has thinking signatures after the boundary');
      // The newest response is the last one; its thinking is kept, block for block, byte for byte.
      const newestOut = output.get(outIds.at(-1)!)!;
      assert.equal(newestOut.length, newestIn.length, 'the newest response keeps its thinking blocks');
      newestOut.forEach((b, i) => {
        assert.equal(b.signature, newestIn[i].signature, 'signature value identical');
        assert.equal(b.raw, newestIn[i].raw, 'signature JSON text identical byte for byte');
        assert.equal(b.thinking, newestIn[i].thinking, 'the signed thinking text is identical');
      });
      // No other signature: older responses are summarized or kept with their (stale) thinking stripped.
      assert.deepEqual(
        allOut.map((b) => b.signature),
        newestIn.map((b) => b.signature),
        'only the newest response carries signatures',
      );
      for (const b of olderIn)
        assert.ok(
          !after.join('\n').includes(b.signature),
          "an older response's signature is not in the resumed context",
        );
      assert.deepEqual((await checkResumable(result.output, { expectSummaryFirst: true })).problems, []);
      return { result, outIds };
    };

    it('only the newest response kept: its signature is byte-identical', async () => {
      const { result, outIds } = await run(500, 1, 200);
      assert.deepEqual(
        result.plan.rounds.map((r) => r.action),
        ['summarize', 'summarize', 'keep'],
      );
      assert.equal(outIds.length, 1);
    });

    it('an older signed response kept too: its thinking is stripped, the newest signature is byte-identical', async () => {
      // Room for the two newest (thinking stripped from the older one, its blocks' framing with it) and a 100-token
      // summary, not for the oldest round as well.
      const { result, outIds } = await run(660, 10_000, 100);
      assert.deepEqual(
        result.plan.rounds.map((r) => r.action),
        ['summarize', 'keep', 'keep'],
        'the settings keep the older signed response',
      );
      assert.match(result.plan.rounds[1].reason, /stale thinking stripped/);
      assert.equal(outIds.length, 2);
    });
  });

  it('in place: keeps a backup and replaces atomically', async () => {
    const file = copy(fixture('with-compactions.jsonl'));
    const before = readFileSync(file);
    const result = await compactFile(file, {
      summarizer: 'extractive',
      inPlace: true,
      settings: { targetTokens: 30_000, keepRecentTokens: 15_000 },
    });
    assert.equal(result.output, file);
    assert.ok(result.backup && existsSync(result.backup));
    assert.deepEqual(readFileSync(result.backup), before);
    assert.ok(readFileSync(file).length > before.length);
    assert.deepEqual(
      readdirSync(join(file, '..')).filter((f) => f.includes('.tmp-') || f.endsWith('.lock')),
      [],
    );
  });

  // Frozen decisions re-applied to a result that already holds their previews change nothing.
  it('compacting a result again with the same settings finds nothing to do (replaced tool results, in place)', async () => {
    const file = copy(fixture('with-compactions.jsonl'));
    const settings = { targetTokens: 60_000, keepRecentTokens: 20_000, maxToolResultChars: 2_000 };
    const first = await compactFile(file, { summarizer: 'extractive', inPlace: true, settings });
    assert.ok(
      first.toolResultsDir && first.plan.toolResults.some((t) => t.action === 'replaced'),
      'the first run replaced tool results',
    );
    const check = await checkResumable(file, { expectSummaryFirst: true, targetTokens: first.plan.messageTarget });
    assert.deepEqual(check.problems, [], 'the first result is within the target');
    const after = readFileSync(file);
    const backups = () =>
      readdirSync(join(file, '..')).filter(
        (n) => n.includes('.bak-') && !/\.(manifest|compactor-state)\.json$/.test(n),
      );
    assert.equal(backups().length, 1);
    await assert.rejects(
      compactFile(file, { summarizer: 'extractive', inPlace: true, settings }),
      (e: CompactError) => e instanceof CompactError && e.code === 'nothing-to-compact',
    );
    assert.ok(readFileSync(file).equals(after), 'the result is left as it is');
    assert.equal(backups().length, 1, 'no second backup');
  });

  it("--out never replaces a file that is not this session's own output; --force replaces only an earlier output of ours", async () => {
    const file = copy(fixture('v1.0.108-medium.jsonl'));
    const dir = join(file, '..');
    const notes = join(dir, 'notes.md');
    writeFileSync(notes, '# my notes\n');
    const settings = { targetTokens: 20_000 };
    for (const force of [false, true]) {
      await assert.rejects(
        compactFile(file, { summarizer: 'extractive', settings, out: notes, force }),
        (e: CompactError) => e.code === 'exists' && e.message.includes(notes),
      );
      assert.equal(readFileSync(notes, 'utf8'), '# my notes\n', `an unrelated file is never replaced (force ${force})`);
    }
    const out = join(dir, 'result.jsonl');
    const first = await compactFile(file, { summarizer: 'extractive', settings, out });
    assert.equal(first.mode, 'out');
    const firstBytes = readFileSync(out);
    await assert.rejects(
      compactFile(file, { summarizer: 'extractive', settings: { targetTokens: 15_000 }, out }),
      (e: CompactError) => e.code === 'exists' && /--force/.test(e.message),
    );
    assert.ok(readFileSync(out).equals(firstBytes), 'without --force an earlier output stays');
    const second = await compactFile(file, {
      summarizer: 'extractive',
      settings: { targetTokens: 15_000 },
      out,
      force: true,
    });
    assert.equal(second.output, out);
    assert.ok(!readFileSync(out).equals(firstBytes), 'with --force an earlier output of ours is replaced');
    await assert.rejects(
      compactFile(file, { summarizer: 'extractive', settings, out: file, force: true }),
      (e: CompactError) => e.code === 'unsafe-path',
    );
  });

  it('refuses when the source changed after it was read', async () => {
    const file = copy(fixture('v2.1.97-live-before.jsonl'));
    const extra = readFileSync(fixture('v2.1.97-live-after.jsonl')).subarray(
      readFileSync(file).length,
      readFileSync(file).length + 5000,
    );
    await assert.rejects(
      compactFile(file, {
        summarizer: 'extractive',
        settings: { targetTokens: 20_000 },
        onProgress: (step) => step === COMMITTING && appendFileSync(file, extra),
      }),
      (e: CompactError) => e.code === 'changed-on-disk' && /changed while it was being compacted/.test(e.message),
    );
    assert.deepEqual(
      readdirSync(join(file, '..')).filter((n) => n.endsWith('.jsonl')),
      [basename(file)],
      'no fork was written',
    );
  });
});

describe('Anthropic summarizer against the fake Messages API (real SDK)', function () {
  this.timeout(60_000);
  let fake: FakeAnthropic;
  const target = { targetTokens: 25_000, keepRecentTokens: 10_000 };
  beforeEach(async () => {
    fake = await startFakeAnthropic();
  });
  afterEach(async () => {
    await fake.close();
  });
  const run = (file: string, extra: Record<string, unknown> = {}) =>
    compactFile(file, {
      summarizer: 'anthropic',
      settings: target,
      anthropic: { apiKey: 'sk-test-key', baseURL: fake.url, model: 'claude-test', maxRetries: 2 },
      ...extra,
    });

  it('succeeds first time, streaming, with the summary in the output', async () => {
    const file = copy(fixture('v2.1.97-live-after.jsonl'));
    const r = await run(file);
    assert.deepEqual(
      r.attempts.map((a) => [a.strategy, a.outcome]),
      [['anthropic', 'ok']],
    );
    const reqs = fake.messageRequests();
    assert.equal(reqs.length, 1);
    assert.equal(reqs[0].body.stream, true);
    assert.equal(reqs[0].body.model, 'claude-test');
    assert.match(JSON.stringify(reqs[0].body.messages.at(-1)), /<summary>/);
    const out = readFileSync(r.output, 'utf8');
    assert.ok(out.includes('FAKE-SUMMARY-MARKER'));
    assert.ok(!out.includes('<analysis>'), 'analysis scratchpad stripped');
    assert.deepEqual((await checkResumable(r.output, { expectSummaryFirst: true })).problems, []);
  });

  it('prompt-too-long, then success after truncating by the reported gap', async () => {
    const file = copy(fixture('v2.1.97-live-after.jsonl'));
    fake.setScenario({ kind: 'ptlUntilUnder', maxChars: 60_000 });
    const progress: string[] = [];
    const r = await run(file, { onProgress: (m: string) => progress.push(m) });
    const outcomes = r.attempts.map((a) => a.outcome);
    assert.equal(outcomes.at(-1), 'ok');
    assert.ok(outcomes.includes('prompt-too-long'));
    const sizes = fake.messageRequests().map((q) => q.bodyBytes);
    for (let i = 1; i < sizes.length; i++) assert.ok(sizes[i] < sizes[i - 1], 'each retry is smaller');
    assert.ok(r.plan.droppedRounds > 0);
    assert.ok(r.plan.rounds.some((x) => x.action === 'drop'));
    assert.ok(
      progress.some((m) => /too long.*dropping \d+ oldest rounds? and retrying \(2\/4\)/.test(m)),
      progress.join('\n'),
    );
  });

  it('prompt-too-long three times, then the extractive fallback', async () => {
    const file = copy(fixture('v2.1.97-live-after.jsonl'));
    fake.setScenario({ kind: 'ptl' });
    const r = await run(file);
    assert.deepEqual(
      r.attempts.map((a) => a.outcome),
      ['prompt-too-long', 'prompt-too-long', 'prompt-too-long', 'prompt-too-long', 'ok'],
    );
    assert.equal(r.attempts.at(-1)!.strategy, 'extractive');
    assert.equal(fake.messageRequests().length, 4);
    assert.ok(readFileSync(r.output, 'utf8').includes('extractive summary made offline'));
  });

  it('429 with retry-after, then success', async () => {
    const file = copy(fixture('v2.1.97-live-after.jsonl'));
    fake.enqueue({ kind: 'rateLimit', retryAfter: 1 });
    const t0 = Date.now();
    const r = await run(file);
    assert.equal(r.attempts.at(-1)!.outcome, 'ok');
    assert.equal(fake.messageRequests().length, 2);
    assert.ok(Date.now() - t0 >= 900, 'waited for retry-after');
  });

  it('401: clear error, no retry, nothing written', async () => {
    const file = copy(fixture('v2.1.97-live-after.jsonl'));
    fake.setScenario({ kind: 'authentication' });
    await assert.rejects(
      run(file),
      (e: CompactError) =>
        e.code === 'auth' && /rejected the API key/.test(e.message) && !e.message.includes('sk-test-key'),
    );
    assert.equal(fake.messageRequests().length, 1);
    assert.deepEqual(readdirSync(join(file, '..')), [basename(file)]);
  });

  it('529 overloaded on every try: bounded retries, then the offline summary', async () => {
    const file = copy(fixture('v2.1.97-live-after.jsonl'));
    fake.setScenario({ kind: 'overloaded' });
    const r = await run(file);
    assert.equal(fake.messageRequests().length, 3, 'one try and two retries');
    assert.deepEqual(
      r.attempts.map((a) => [a.strategy, a.outcome]),
      [
        ['anthropic', 'error'],
        ['extractive', 'ok'],
      ],
    );
    assert.match(r.attempts[0].detail, /overloaded/);
  });

  it('connection refused: falls back to the offline summary with the reason', async () => {
    const file = copy(fixture('v2.1.97-live-after.jsonl'));
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const r = await compactFile(file, {
      summarizer: 'anthropic',
      settings: target,
      anthropic: { apiKey: 'k', baseURL: `http://127.0.0.1:${port}`, maxRetries: 0 },
    });
    assert.equal(r.attempts[0].outcome, 'error');
    assert.match(r.attempts[0].detail, /Could not reach the Anthropic API/);
    assert.equal(r.attempts[1].strategy, 'extractive');
  });

  it('cancellation mid-stream writes nothing', async () => {
    const file = copy(fixture('v2.1.97-live-after.jsonl'));
    fake.setScenario({ kind: 'hang' });
    const controller = new AbortController();
    const p = run(file, { signal: controller.signal });
    const deadline = Date.now() + 10_000;
    while (fake.messageRequests().length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    controller.abort();
    await assert.rejects(p, (e: CompactError) => e.code === 'cancelled');
    assert.deepEqual(readdirSync(join(file, '..')), [basename(file)]);
  });

  it('no key: uses the offline summary and says why', async () => {
    const file = copy(fixture('v2.1.97-live-after.jsonl'));
    const saved = process.env.ANTHROPIC_API_KEY;
    delete process.env.ANTHROPIC_API_KEY;
    try {
      const r = await compactFile(file, {
        summarizer: 'anthropic',
        settings: target,
        anthropic: { baseURL: fake.url },
      });
      assert.equal(r.attempts[0].strategy, 'extractive');
      assert.match(r.attempts[0].detail, /no Anthropic API key/);
      assert.equal(fake.messageRequests().length, 0);
    } finally {
      if (saved !== undefined) process.env.ANTHROPIC_API_KEY = saved;
    }
  });
});

describe('the offline summary reads only what shapeForExtractive keeps', () => {
  for (const src of claudeFixtures()) {
    it(`${basename(src)}: the same summary from whole lines and from shaped lines`, () => {
      const lines: Record<string, any>[] = [];
      for (const l of readFileSync(src, 'utf8').split('\n')) {
        try {
          lines.push(JSON.parse(l));
        } catch {
          /* malformed lines are not summarized */
        }
      }
      const whole = extractiveSummary({ records: claudeRecords(lines), maxChars: 1_000_000 });
      const shaped = extractiveSummary({
        records: claudeRecords(lines).map((o) => shapeForExtractive(structuredClone(o))),
        maxChars: 1_000_000,
      });
      assert.ok(whole.length > 200, 'a real summary');
      assert.equal(shaped, whole);
    });
  }
});
