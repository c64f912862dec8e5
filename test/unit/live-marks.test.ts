// The Sessions view's live mark on a fake clock, through the view's own seam (Timers): sessions are real files read
// by summarizeSession, appended to at random moments (their mtime set to the fake now); the view's part (apply on
// each read, apply again when told a mark expired) is played exactly. After every step of the clock, each mark must
// be what the quiet period says (modified within LIVE_MS of now) without any rescan, and no timer is left when
// nothing is live.
import { strict as assert } from 'node:assert';
import { appendFileSync, copyFileSync, rmSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { LIVE_MS, type SessionSummary } from '../../src/core/sessionList';
import { summarizeSession } from '../../src/core/formats/claude-code/sessionSummary';
import { LiveMarks, OwnWrites } from '../../src/extension/model/liveMarks';
import { commitOutput, onCommitted } from '../../src/core/io/commit';
import { FakeClock } from '../support/fakeClock';
import { fixture } from '../support/fixtures';
import { Rng } from '../support/reliability';
import { tempDir } from '../support/temp';

describe('sessions view: the live mark clears when appends stop (fake clock)', function () {
  this.timeout(60_000);
  let dir: string;
  before(() => (dir = tempDir('ac-live-marks-')));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('a session goes quiet: its mark clears at LIVE_MS after its last append, with no rescan', async () => {
    const start = Date.parse('2026-03-01T10:00:00Z');
    const clock = new FakeClock(start);
    const file = join(dir, 'one.jsonl');
    copyFileSync(fixture('example.jsonl'), file);
    utimesSync(file, new Date(start), new Date(start));
    let expiries = 0;
    let shown: SessionSummary[] = [];
    const marks = new LiveMarks(clock, () => {
      expiries++;
      shown = marks.apply(shown);
    });
    shown = marks.apply([await summarizeSession(file, 'f', clock.now())]);
    assert.equal(shown[0].live, true);
    clock.advance(LIVE_MS - 1);
    assert.equal(shown[0].live, true);
    assert.equal(expiries, 0);
    clock.advance(1);
    assert.equal(expiries, 1);
    assert.equal(shown[0].live, false, 'cleared at the end of the quiet period');
    assert.equal(clock.pending.size, 0, 'no timer left');
    marks.dispose();
  });

  for (const seed of [1, 2, 3]) {
    it(`three sessions appended to at random moments (seed ${seed}): every mark right after every step`, async () => {
      const rng = new Rng(seed);
      const start = Date.parse('2026-03-01T10:00:00Z');
      const clock = new FakeClock(start);
      const files = [0, 1, 2].map((k) => {
        const f = join(dir, `s${seed}-${k}.jsonl`);
        copyFileSync(fixture('example.jsonl'), f);
        const t = new Date(start - rng.int(3 * LIVE_MS));
        utimesSync(f, t, t);
        return f;
      });
      let shown: SessionSummary[] = [];
      const marks = new LiveMarks(clock, () => (shown = marks.apply(shown)));
      shown = marks.apply(await Promise.all(files.map((f) => summarizeSession(f, 'f', clock.now()))));
      for (let step = 0; step < 60; step++) {
        clock.advance(rng.int(LIVE_MS / 2));
        if (rng.chance(0.3)) {
          // An append: the view reads that session again (its watcher fires) and applies the marks.
          const f = rng.pick(files);
          appendFileSync(f, '\n');
          const now = new Date(clock.now());
          utimesSync(f, now, now);
          const fresh = await summarizeSession(f, 'f', clock.now());
          shown = marks.apply([fresh, ...shown.filter((s) => s.file !== f)]);
        }
        for (const s of shown)
          assert.equal(
            s.live,
            clock.now() - s.mtimeMs < LIVE_MS,
            `step ${step}: ${s.file} at ${clock.now() - s.mtimeMs} ms after its last append`,
          );
        assert.equal(
          clock.pending.size,
          shown.some((s) => s.live) ? 1 : 0,
          `step ${step}: one timer while something is live, none otherwise`,
        );
      }
      marks.dispose();
      assert.equal(clock.pending.size, 0);
    });
  }

  it('a file this window committed is not being written now; an append after it is', async () => {
    const own = new OwnWrites();
    const stop = onCommitted((w) => own.record(w));
    try {
      const original = join(dir, 'own-original.jsonl');
      copyFileSync(fixture('example.jsonl'), original);
      const st = statSync(original);
      const tmp = join(dir, 'own-fork.jsonl.tmp');
      const fork = join(dir, 'own-fork.jsonl');
      copyFileSync(original, tmp);
      // The one commit every write goes through, writing a fork as a compaction or repair does.
      await commitOutput(
        {
          file: original,
          tmp,
          mode: 'fork',
          out: fork,
          readSize: st.size,
          readMtime: st.mtimeMs,
          writer: 'Claude Code',
          progress: () => undefined,
        },
        [],
      );
      const clock = new FakeClock(Date.now());
      const marks = new LiveMarks(clock, () => undefined, LIVE_MS, own);
      const [written] = marks.apply([await summarizeSession(fork, 'f', clock.now())]);
      assert.equal(written.live, false, 'the fork this window just wrote');
      utimesSync(original, new Date(clock.now()), new Date(clock.now()));
      assert.equal(
        marks.apply([await summarizeSession(original, 'f', clock.now())])[0].live,
        true,
        'a file it did not write',
      );
      appendFileSync(fork, '\n');
      assert.equal(
        marks.apply([await summarizeSession(fork, 'f', clock.now())])[0].live,
        true,
        'appended to after the commit: someone is writing it',
      );
      marks.dispose();
    } finally {
      stop();
    }
  });
});
