// The Anthropic summary streams to the caller as it arrives (draftSummary's onSummaryText, which
// the review editor shows): growing snapshots of the reply, starting again on a retry, stopped by
// cancellation. Real @anthropic-ai/sdk against the fake Messages API.
import { strict as assert } from 'node:assert';
import { copyFileSync, readdirSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { draftSummary, type CompactOptions } from '../../src/core/compact/compact';
import { CompactError } from '../../src/core/compact/types';
import { DEFAULT_SUMMARY_TEXT, startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic';
import { fixture } from '../support/fixtures';
import { tempDir } from '../support/temp';

describe('the Anthropic summary streams into the review as it arrives', function () {
  this.timeout(60_000);
  let fake: FakeAnthropic | undefined;
  let dir = '';
  let file = '';
  beforeEach(() => {
    dir = tempDir('ac-stream-');
    file = join(dir, basename(fixture('v2.1.97-live-after.jsonl')));
    copyFileSync(fixture('v2.1.97-live-after.jsonl'), file);
  });
  afterEach(async () => {
    await fake?.close();
    fake = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  const draft = (f: FakeAnthropic, extra: Partial<CompactOptions>) =>
    draftSummary(file, {
      summarizer: 'anthropic',
      settings: { targetTokens: 25_000, keepRecentTokens: 10_000 },
      anthropic: { apiKey: 'sk-test-key', baseURL: f.url, model: 'claude-test', maxRetries: 0 },
      ...extra,
    });

  it('shows growing snapshots of the reply, the last one the whole reply; nothing is written', async () => {
    fake = await startFakeAnthropic();
    const seen: string[] = [];
    const d = await draft(fake, { onSummaryText: (t) => seen.push(t) });
    assert.equal(seen[0], '', 'the editor is cleared when the request starts');
    assert.ok(seen.length >= 4, `several updates as the text streams: ${seen.length}`);
    for (let i = 1; i < seen.length; i++)
      assert.ok(
        seen[i].startsWith(seen[i - 1]) && seen[i].length > seen[i - 1].length,
        `update ${i} extends the one before`,
      );
    assert.equal(seen.at(-1), DEFAULT_SUMMARY_TEXT, 'the last update is the reply as the API sent it');
    assert.match(d.summary, /FAKE-SUMMARY-MARKER/);
    assert.doesNotMatch(d.summary, /<analysis>/, 'the reviewed summary is the one taken from the reply');
    assert.deepEqual(readdirSync(dir), [basename(file)], 'a draft writes nothing');
  });

  it('starts again from empty when a prompt-too-long retry sends a smaller request', async () => {
    fake = await startFakeAnthropic({ queue: [{ kind: 'ptl' }] });
    const seen: string[] = [];
    const d = await draft(fake, { onSummaryText: (t) => seen.push(t) });
    assert.equal(fake.messageRequests().length, 2);
    assert.deepEqual(
      seen.map((t, i) => (t === '' ? i : -1)).filter((i) => i >= 0),
      [0, 1],
      'cleared for each request; the refused one sent no text',
    );
    assert.equal(seen.at(-1), DEFAULT_SUMMARY_TEXT);
    assert.equal(d.attempts.at(-1)?.strategy, 'anthropic-truncated');
  });

  it('cancelled while the text streams: rejects as cancelled, no update after, nothing written', async () => {
    fake = await startFakeAnthropic({ eventDelayMs: 150 });
    const abort = new AbortController();
    const seen: string[] = [];
    let atAbort = -1;
    const p = draft(fake, {
      signal: abort.signal,
      onSummaryText: (t) => {
        seen.push(t);
        if (t && atAbort < 0) {
          atAbort = seen.length;
          abort.abort();
        }
      },
    });
    await assert.rejects(p, (e: unknown) => e instanceof CompactError && e.code === 'cancelled');
    assert.ok(atAbort > 0, 'some text arrived before the cancel');
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(seen.length, atAbort, 'no text after the cancel');
    assert.ok(seen.at(-1)!.length < DEFAULT_SUMMARY_TEXT.length, 'the reply was not finished');
    assert.deepEqual(readdirSync(dir), [basename(file)]);
  });
});
