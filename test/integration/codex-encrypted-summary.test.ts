// Codex's compaction summaries stored encrypted (a `compaction` item's `encrypted_content`, readable by OpenAI's
// server only): opaque. Never shown as text, never counted as readable text, never sent to a summarizer; sized as
// Codex sizes it (codex-rs context_manager/history.rs: `len * 3 / 4 - 650` bytes at 4 bytes a token, rounded up).
// A real 0.119 rollout whose compacted record holds a compaction item, given a blob of a realistic size.
import { strict as assert } from 'node:assert';
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { draftSummary } from '../../src/core/compact/compact';
import { readableConversation } from '../../src/core/compact/readable';
import { loadConversation } from '../../src/core/lines';
import { inspectFile } from '../../src/core/inspect';
import { startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic';
import { sharedFixtures } from '../support/fixtures';
import { tempDir } from '../support/temp';

const SOURCE = join(sharedFixtures, 'codex', 'rollout-0.119-compacted-images.jsonl');
/** About 18 KB of ciphertext, base64: 24,000 characters. */
const BLOB = randomBytes(18_000).toString('base64');
/** Codex's estimate of the blob, by its formula, worked out here: (24000 * 3 / 4 - 650) / 4 = 4337.5, rounded up. */
const CODEX_TOKENS = 4338;

/** The fixture, its compaction item's (redacted) encrypted_content replaced by `blob`; the compacted record's line. */
function derived(dir: string, blob = BLOB): { file: string; line: number } {
  const lines = readFileSync(SOURCE, 'utf8').trimEnd().split('\n');
  const at = lines.findIndex((l) => l.includes('"type":"compacted"') && l.includes('"type":"compaction"'));
  assert.ok(at >= 0, 'the fixture holds a compaction item');
  const o = JSON.parse(lines[at]);
  const item = o.payload.replacement_history.find((i: any) => i.type === 'compaction');
  item.encrypted_content = blob;
  lines[at] = JSON.stringify(o);
  const file = join(dir, `rollout-2026-01-01T00-00-00-encrypted-${blob.length}.jsonl`);
  writeFileSync(file, lines.join('\n') + '\n');
  return { file, line: at + 1 };
}

/** True when `text` holds any 32-character piece of the blob. */
const leaks = (text: string) => [0, 4_000, 12_000, 23_000].some((i) => text.includes(BLOB.slice(i, i + 32)));

describe('Codex compaction summaries encrypted on disk: opaque', function () {
  this.timeout(120_000);
  let dir: string;
  let fake: FakeAnthropic;
  before(async () => (fake = await startFakeAnthropic({ scenario: { kind: 'text' } })));
  after(async () => fake?.close());
  beforeEach(() => (dir = tempDir('ac-codex-enc-')));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("its entry holds no text, its round counts no readable characters for it, and its size is Codex's estimate", async () => {
    const { file, line } = derived(dir);
    const analysis = await inspectFile(file, { subagents: false });
    const entries = analysis.index.entries.filter((e) => e.line === line && e.blocks.some((b) => b.type === 'opaque'));
    assert.equal(entries.length, 1, 'one entry of the compacted record is the opaque item');
    const block = entries[0].blocks.find((b) => b.type === 'opaque')!;
    assert.equal(block.chars, 0);
    assert.equal(block.tokens, CODEX_TOKENS);
    // The round of the compacted record's item that is the compaction (the same item in either rollout).
    const item = entries[0].item;
    const roundOf = (a: typeof analysis) =>
      a.rounds.find((r) =>
        r.entries.some((i) => a.index.entries[i].line === line && a.index.entries[i].item === item),
      )!;
    const round = roundOf(analysis);
    assert.equal(round.content.opaque, CODEX_TOKENS);
    // The same rollout with a blob of 8 characters: the round's readable characters are the same (the blob adds none).
    const small = await inspectFile(derived(dir, 'AAAAAAAA').file, { subagents: false });
    assert.equal(round.content.userText, roundOf(small).content.userText);
    assert.equal(roundOf(small).content.opaque, 0, 'a blob under 650 bytes is 0 tokens to Codex');
    // The message the summarizers and views read holds no blob either.
    const records = await loadConversation(file, 'codex', analysis.index.entries, [
      analysis.index.entries.indexOf(entries[0]),
    ]);
    assert.ok(!leaks(JSON.stringify([...records.values()])), 'the record holds the blob');
  });

  it('the readable active context names it and shows none of it', async () => {
    const { file } = derived(dir);
    const text = await readableConversation(file);
    assert.ok(!leaks(text), 'the readable view shows the blob');
    assert.match(text, /\[compaction summary, encrypted by OpenAI: not readable here\]/);
  });

  it('a summarizer is sent none of it', async () => {
    const { file } = derived(dir);
    fake.clearRequests();
    const draft = await draftSummary(file, {
      summarizer: 'anthropic',
      settings: { targetTokens: 8_000, keepRecentTokens: 500 },
      anthropic: { apiKey: 'k', baseURL: fake.url, maxRetries: 0 },
    });
    const sent = fake.messageRequests();
    assert.ok(sent.length > 0, `the summarizer was asked (${draft.summarizer})`);
    const body = JSON.stringify(sent.map((r) => r.body));
    assert.ok(!leaks(body), 'the summary request holds the blob');
    assert.match(body, /compaction summary, encrypted by OpenAI: not readable/);
  });
});
