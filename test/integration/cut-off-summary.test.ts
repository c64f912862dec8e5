// A reply without a complete <summary>…</summary> block (cut off by max_tokens, or no tags at all)
// is never used as the summary: one retry with more output room and a reminder about the tags,
// then CompactError 'api', which compactFile turns into the offline extractive summary.
// Real @anthropic-ai/sdk against the fake Messages API.
import { strict as assert } from 'node:assert';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compactFile } from '../../src/core/compact/compact';
import type { Group } from '../../src/core/compact/ptl';
import {
  CUT_OFF_RETRY_MAX_TOKENS_CEILING,
  cutOffRetryMaxTokens,
  judgeSummaryReply,
  summarizeWithAnthropic,
  type AnthropicOptions,
  type SummaryMessage,
} from '../../src/core/compact/summarize/anthropic';
import { SUMMARY_TAGS_REMINDER, extractSummary } from '../../src/core/compact/summarize/prompt';
import { CompactError, type AttemptRecord, type CompactResult } from '../../src/core/compact/types';
import { startFakeAnthropic, type FakeAnthropic, type RecordedRequest, type Scenario } from '../support/fake-anthropic';
import { buildTranscript } from '../support/reliability';
import { tempDir } from '../support/temp';

const ANALYSIS = `<analysis>\nCUT-ANALYSIS-MARKER ${'The user asked for several changes; each was checked in turn. '.repeat(40)}\n</analysis>\n\n`;
const GOOD = (marker: string) =>
  `${ANALYSIS}<summary>\n1. Primary Request and Intent:\n   ${marker}: continue the work.\n</summary>`;

/** (a) stopped by max_tokens inside <analysis>. */
const CUT_IN_ANALYSIS: Scenario = { kind: 'text', text: ANALYSIS.slice(0, 600), stopReason: 'max_tokens' };
/** (b) stopped by max_tokens inside <summary>: the old code wrote this partial text as the summary. */
const CUT_IN_SUMMARY: Scenario = {
  kind: 'text',
  text: `${ANALYSIS}<summary>\n1. Primary Request and Intent:\n   CUT-SUMMARY-MARKER the user asked for`,
  stopReason: 'max_tokens',
};
/** (c) a natural stop without any <summary> tag. */
const NO_TAGS: Scenario = {
  kind: 'text',
  text: 'NO-TAGS-MARKER Here is what happened: the user asked for changes and they were made.',
  stopReason: 'end_turn',
};

function groups(n: number, tokens = 100): { groups: Group<SummaryMessage[]>[]; ids: number[] } {
  const gs: Group<SummaryMessage[]>[] = [];
  for (let i = 0; i < n; i++) {
    gs.push({
      tokens,
      firstRole: 'user',
      payload: [
        { role: 'user', text: `request ${i}` },
        { role: 'assistant', text: `did thing ${i}` },
      ],
    });
  }
  return { groups: gs, ids: gs.map((_, i) => i) };
}

function options(fake: FakeAnthropic, extra: Partial<AnthropicOptions> = {}): AnthropicOptions {
  return {
    apiKey: 'sk-test-cut-off',
    model: 'claude-test-model',
    baseURL: fake.url,
    maxTokens: 1_000,
    chunkTokens: 150_000,
    maxPtlRetries: 3,
    maxRetries: 0,
    timeoutMs: 10_000,
    ...extra,
  };
}

/** The text of the final user turn of a recorded summary request (where the instructions are). */
function lastUserText(req: RecordedRequest): string {
  const msgs = req.body.messages as { role: string; content: string }[];
  return msgs[msgs.length - 1].content;
}

async function failure(p: Promise<unknown>): Promise<CompactError & { attempts?: AttemptRecord[] }> {
  const res = await p.then(
    (v) => v,
    (e: unknown) => e,
  );
  assert.ok(
    res instanceof CompactError,
    `expected a CompactError, got ${res instanceof Error ? res.stack : JSON.stringify(res)}`,
  );
  return res;
}

describe('extractSummary and judgeSummaryReply: only a complete <summary> block counts', () => {
  it('returns the body of a complete block, ignoring tags mentioned inside <analysis>', () => {
    assert.equal(
      extractSummary('<analysis>I will write <summary>x</summary> next</analysis>\n<summary>\n real \n</summary>'),
      'real',
    );
  });
  it('returns null for a cut-off <analysis>, an unclosed <summary>, and no tags at all', () => {
    assert.equal(extractSummary(ANALYSIS.slice(0, 600)), null);
    assert.equal(extractSummary('<analysis>a</analysis><summary>1. Primary Request: half'), null);
    assert.equal(extractSummary('Just prose, no tags.'), null);
  });
  it('refuses max_tokens stops and missing blocks, naming which', () => {
    assert.deepEqual(judgeSummaryReply(ANALYSIS.slice(0, 600), 'max_tokens'), {
      ok: false,
      problem: 'was cut off by max_tokens before </summary>',
    });
    assert.deepEqual(judgeSummaryReply(GOOD('X'), 'max_tokens'), {
      ok: false,
      problem: 'was cut off by max_tokens after </summary>',
    });
    assert.deepEqual(judgeSummaryReply('prose', 'end_turn'), { ok: false, problem: 'had no <summary> block' });
    assert.deepEqual(judgeSummaryReply('<summary>half', 'end_turn'), {
      ok: false,
      problem: 'had no complete <summary> block (no </summary>)',
    });
    assert.deepEqual(judgeSummaryReply(GOOD('X'), 'end_turn'), {
      ok: true,
      summary: '1. Primary Request and Intent:\n   X: continue the work.',
    });
  });
  it('gives the retry 4× the output room, capped at the ceiling, never less than the first request', () => {
    assert.equal(cutOffRetryMaxTokens(4_000), 16_000);
    assert.equal(cutOffRetryMaxTokens(10_000), CUT_OFF_RETRY_MAX_TOKENS_CEILING);
    assert.equal(cutOffRetryMaxTokens(50_000), 50_000);
  });
});

describe('summarizeWithAnthropic: a cut-off reply is a failed attempt (real SDK, fake API)', function () {
  this.timeout(30_000);
  let fake: FakeAnthropic;
  afterEach(async () => {
    await fake?.close();
  });

  const failing: { name: string; scenario: Scenario; detail: RegExp; marker: RegExp }[] = [
    {
      name: '(a) max_tokens inside <analysis>',
      scenario: CUT_IN_ANALYSIS,
      detail: /cut off by max_tokens before <\/summary> \(max_tokens \d+, stop_reason max_tokens/,
      marker: /CUT-ANALYSIS-MARKER/,
    },
    {
      name: '(b) max_tokens inside <summary>',
      scenario: CUT_IN_SUMMARY,
      detail: /cut off by max_tokens before <\/summary>/,
      marker: /CUT-SUMMARY-MARKER/,
    },
    {
      name: '(c) end_turn without a <summary> tag',
      scenario: NO_TAGS,
      detail: /had no <summary> block \(max_tokens \d+, stop_reason end_turn/,
      marker: /NO-TAGS-MARKER/,
    },
  ];
  for (const f of failing) {
    it(`${f.name}, twice → CompactError 'api' saying so, with both attempts recorded`, async () => {
      fake = await startFakeAnthropic({ scenario: f.scenario });
      const { groups: gs, ids } = groups(3);
      const err = await failure(summarizeWithAnthropic(gs, ids, options(fake)));
      assert.equal(err.code, 'api');
      assert.match(err.message, /^The model's reply had no complete summary: it (was cut off|had no)/);
      assert.match(err.message, /offline extractive summary/);
      assert.doesNotMatch(err.message, f.marker);
      assert.equal(fake.messageRequests().length, 2, 'exactly one retry');
      const attempts = err.attempts ?? [];
      assert.equal(attempts.length, 2, JSON.stringify(attempts));
      for (const a of attempts) {
        assert.equal(a.outcome, 'error');
        assert.equal(a.strategy, 'anthropic');
        assert.match(a.detail, f.detail);
      }
      const [first, retry] = fake.messageRequests();
      assert.equal(first.body.max_tokens, 1_000);
      assert.equal(retry.body.max_tokens, 4_000);
      assert.ok(!lastUserText(first).includes(SUMMARY_TAGS_REMINDER));
      assert.ok(lastUserText(retry).endsWith(SUMMARY_TAGS_REMINDER), 'the reminder is the last thing the model reads');
    });
  }

  it('a complete block but stop_reason max_tokens is refused too', async () => {
    fake = await startFakeAnthropic({
      scenario: { kind: 'text', text: GOOD('TRAILING-CUT'), stopReason: 'max_tokens' },
    });
    const { groups: gs, ids } = groups(2);
    const err = await failure(summarizeWithAnthropic(gs, ids, options(fake)));
    assert.match(err.message, /cut off by max_tokens after <\/summary>/);
  });

  it("(d) the first reply cut off, the retry complete → the retry's summary, with more room and the reminder", async () => {
    fake = await startFakeAnthropic({
      queue: [CUT_IN_SUMMARY],
      scenario: { kind: 'text', text: GOOD('RETRY-SUMMARY-MARKER') },
    });
    const { groups: gs, ids } = groups(3);
    const progress: string[] = [];
    const res = await summarizeWithAnthropic(gs, ids, options(fake, { onProgress: (m) => progress.push(m) }));
    assert.equal(res.summary, '1. Primary Request and Intent:\n   RETRY-SUMMARY-MARKER: continue the work.');
    assert.deepEqual(
      res.attempts.map((a) => a.outcome),
      ['error', 'ok'],
    );
    assert.match(res.attempts[0].detail, /cut off by max_tokens before <\/summary>/);
    const [first, retry] = fake.messageRequests();
    assert.ok(retry.body.max_tokens > first.body.max_tokens, `${retry.body.max_tokens} > ${first.body.max_tokens}`);
    assert.ok(lastUserText(retry).includes(SUMMARY_TAGS_REMINDER));
    assert.ok(!lastUserText(first).includes(SUMMARY_TAGS_REMINDER));
    assert.ok(
      progress.some((m) => /cut off by max_tokens before <\/summary>; retrying with max_tokens 4000/.test(m)),
      progress.join('\n'),
    );
  });

  it("(d) with the fake honouring max_tokens: a long <analysis> overflows 250 tokens, fits in the retry's 1,000", async () => {
    const text = GOOD('HONOURED-MARKER'); // ~2,600 characters ≈ 650 fake tokens
    assert.ok(text.length > 250 * 4 && text.length < 1_000 * 4, `${text.length} characters`);
    fake = await startFakeAnthropic({ scenario: { kind: 'text', text, honourMaxTokens: true } });
    const { groups: gs, ids } = groups(2);
    const res = await summarizeWithAnthropic(gs, ids, options(fake, { maxTokens: 250 }));
    assert.match(res.summary, /HONOURED-MARKER/);
    assert.deepEqual(
      fake.messageRequests().map((r) => r.body.max_tokens),
      [250, 1_000],
    );
    assert.deepEqual(
      res.attempts.map((a) => a.outcome),
      ['error', 'ok'],
    );
    assert.match(
      res.attempts[0].detail,
      /cut off by max_tokens before <\/summary> \(max_tokens 250, stop_reason max_tokens, 1000 characters\)/,
    );
  });

  describe('chunked summaries: every part is checked', () => {
    const partText = (req: RecordedRequest) => `${ANALYSIS}<summary>\nPART-${req.messagesIndex}-SUMMARY\n</summary>`;

    it("a cut-off part is retried; later parts get the room from the start; the running summary is the retry's", async () => {
      fake = await startFakeAnthropic({
        scenario: (req) => (req.messagesIndex === 1 ? CUT_IN_SUMMARY : { kind: 'text', text: partText(req) }),
      });
      const { groups: gs, ids } = groups(6, 100);
      const res = await summarizeWithAnthropic(gs, ids, options(fake, { chunkTokens: 200 }));
      const reqs = fake.messageRequests();
      assert.equal(reqs.length, 4, 'three parts, one retry');
      assert.deepEqual(
        reqs.map((r) => r.body.max_tokens),
        [1_000, 1_000, 4_000, 4_000],
      );
      assert.deepEqual(
        reqs.map((r) => lastUserText(r).includes(SUMMARY_TAGS_REMINDER)),
        [false, false, true, true],
      );
      assert.match(JSON.stringify(reqs[3].body.messages), /PART-2-SUMMARY/, 'the last part builds on the retried part');
      assert.doesNotMatch(JSON.stringify(reqs[3].body.messages), /CUT-SUMMARY-MARKER/);
      assert.equal(res.summary, 'PART-3-SUMMARY');
      assert.deepEqual(
        res.attempts.map((a) => a.outcome),
        ['ok', 'error', 'ok', 'ok'],
      );
      assert.match(res.attempts[1].detail, /cut off by max_tokens before <\/summary>.*\(part 2\/3\)$/);
    });

    it('a part cut off twice fails the whole summary, naming the part', async () => {
      fake = await startFakeAnthropic({
        scenario: (req) => (req.messagesIndex === 0 ? { kind: 'text', text: partText(req) } : NO_TAGS),
      });
      const { groups: gs, ids } = groups(6, 100);
      const err = await failure(summarizeWithAnthropic(gs, ids, options(fake, { chunkTokens: 200 })));
      assert.equal(err.code, 'api');
      assert.match(err.message, /no complete summary \(part 2\/3\): it had no <summary> block/);
      assert.deepEqual(
        (err.attempts ?? []).map((a) => a.outcome),
        ['ok', 'error', 'error'],
      );
      assert.equal(fake.messageRequests().length, 3, 'the third part is never requested');
    });
  });
});

describe('compactFile with a cut-off reply (real SDK, fake API)', function () {
  this.timeout(60_000);
  const SETTINGS = { targetTokens: 8_000, keepRecentTokens: 3_000 };
  let dir: string;
  let file: string;
  let fake: FakeAnthropic;
  beforeEach(() => {
    dir = tempDir('ac-cutoff-');
    file = join(dir, 't.jsonl');
    writeFileSync(file, buildTranscript({ rounds: 30, textChars: 2_000 }).join('\n') + '\n');
  });
  afterEach(async () => {
    await fake?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const run = () =>
    compactFile(file, {
      summarizer: 'anthropic',
      settings: SETTINGS,
      anthropic: {
        apiKey: 'sk-test-cut-off',
        model: 'claude-test-model',
        baseURL: fake.url,
        maxRetries: 0,
        timeoutMs: 10_000,
        maxTokens: 2_000,
      },
    });
  const written = (res: CompactResult) => readFileSync(res.output, 'utf8').slice(readFileSync(file).length);

  it('(e) both replies cut off → the offline extractive summary is written and the attempts say why', async () => {
    fake = await startFakeAnthropic({ scenario: CUT_IN_SUMMARY });
    const res = await run();
    assert.equal(fake.messageRequests().length, 2);
    const out = written(res);
    assert.match(out, /extractive summary made offline by Agent Compactor/);
    assert.doesNotMatch(out, /CUT-SUMMARY-MARKER|CUT-ANALYSIS-MARKER/);
    assert.deepEqual(
      res.attempts.map((a) => `${a.strategy}:${a.outcome}`),
      ['anthropic:error', 'anthropic:error', 'extractive:ok'],
    );
    assert.match(res.attempts[0].detail, /cut off by max_tokens before <\/summary> \(max_tokens 2000/);
    assert.match(res.attempts[1].detail, /cut off by max_tokens before <\/summary> \(max_tokens 8000/);
    assert.match(
      res.attempts[2].detail,
      /the Anthropic summary failed \(The model's reply had no complete summary: it was cut off by max_tokens before <\/summary>.*\); fell back to the offline summary/,
    );
  });

  it('(d) the retry succeeds → its summary is written, not the cut-off text', async () => {
    fake = await startFakeAnthropic({
      queue: [CUT_IN_SUMMARY],
      scenario: { kind: 'text', text: GOOD('RETRY-SUMMARY-MARKER') },
    });
    const res = await run();
    const out = written(res);
    assert.match(out, /RETRY-SUMMARY-MARKER/);
    assert.doesNotMatch(out, /CUT-SUMMARY-MARKER|CUT-ANALYSIS-MARKER|extractive summary made offline/);
    assert.deepEqual(
      res.attempts.map((a) => `${a.strategy}:${a.outcome}`),
      ['anthropic:error', 'anthropic:ok'],
    );
  });
});
