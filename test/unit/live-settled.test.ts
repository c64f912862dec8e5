// When the live session's cache is read for the expiry notice: once its file has been unchanged SETTLED_MS, by the
// file's own modification time. A session found after its turn ended is read at once (the UI test of the notice,
// test/ui/cache-notice.ui.ts, finds one quiet for 6 s); one just written waits out the rest of the quiet period.
import { strict as assert } from 'node:assert';
import { SETTLED_MS, untilSettled } from '../../src/extension/model/liveStatus';

describe('live session: the cache is read once its file has settled', () => {
  const now = Date.parse('2026-03-01T10:00:00Z');

  it('a file modified just now waits the whole quiet period', () => {
    assert.equal(untilSettled(now, now), SETTLED_MS);
  });

  it('a file modified part of the period ago waits only the rest of it', () => {
    assert.equal(untilSettled(now - 1_200, now), SETTLED_MS - 1_200);
    assert.equal(untilSettled(now - (SETTLED_MS - 1), now), 1);
  });

  it('a file already quiet for the period (or longer) is read at once', () => {
    for (const ago of [SETTLED_MS, SETTLED_MS + 1, 10_000, 59_000])
      assert.equal(untilSettled(now - ago, now), 0, `${ago}`);
  });

  it('a modification time ahead of the clock waits no longer than the period', () => {
    assert.equal(untilSettled(now + 60_000, now), SETTLED_MS);
  });
});
