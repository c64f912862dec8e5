// Repair and doctor do work linear in the file, however many of its parent links are broken: the work is counted (every
// read of an entry and of its fields, through proxies around the entries given to the pure planners), not timed, so
// a busy machine cannot make it pass or fail. The input is the repair benchmark's (bench/generate-large.ts): lines a
// second apart, as agents write them (Claude Code's loader then bridges every broken link, so the walk from the leaf
// goes through all of them), and a minute apart (it bridges none).
import { strict as assert } from 'node:assert';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brokenLinksTranscript } from '../../bench/generate-large';
import { CLAUDE_CODE_BRIDGE_GAP_MS, loaderBridge } from '../../src/core/formats/claude-code/loader';
import { diagnose } from '../../src/core/repair/doctor';
import type { Entry } from '../../src/core/entries';
import { planRepair } from '../../src/core/repair/repair';
import { indexTranscript, type TranscriptIndex } from '../../src/core/transcript';
import { Rng } from '../support/reliability';
import { claudeLoader } from '../../src/core/formats/claude-code/loader';
import { tempDir } from '../support/temp';

let dir: string;
before(() => (dir = tempDir('ac-repair-linear-')));
after(() => rmSync(dir, { recursive: true, force: true }));

async function indexOf(lines: number, every: number, gapMs: number): Promise<TranscriptIndex> {
  const f = join(dir, `b${lines}-${every}-${gapMs}.jsonl`);
  writeFileSync(f, brokenLinksTranscript(lines, every, gapMs));
  return indexTranscript(f);
}

/** `entries` behind proxies that count every element read and every field read. */
function counting(entries: Entry[]): { entries: Entry[]; steps: () => number } {
  let steps = 0;
  const field: ProxyHandler<Entry> = {
    get(target, key, receiver) {
      steps++;
      return Reflect.get(target, key, receiver) as unknown;
    },
  };
  const each = entries.map((e) => new Proxy(e, field));
  const list = new Proxy(each, {
    get(target, key, receiver) {
      if (typeof key === 'string' && /^\d+$/.test(key)) steps++;
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
  return { entries: list, steps: () => steps };
}

describe('repair and doctor: work linear in broken links', function () {
  this.timeout(120_000);
  const N = 1_500;

  for (const [gapMs, gap] of [
    [1_000, 'a second apart'],
    [60_000, 'a minute apart'],
  ] as const) {
    it(`planRepair, lines ${gap}: 4× the lines (and broken links) is at most 6× the work, and every link is repaired`, async () => {
      const work: number[] = [];
      for (const n of [N, 4 * N]) {
        const c = counting((await indexOf(n, 10, gapMs)).entries);
        const plan = planRepair(c.entries, claudeLoader);
        assert.equal(plan.changes.length, n / 10 - 1, 'every broken link is planned');
        work.push(c.steps());
      }
      assert.ok(
        work[1] / work[0] <= 6,
        `work ${work[0]} → ${work[1]} (${(work[1] / work[0]).toFixed(1)}×): linear gives about 4×, quadratic about 16×`,
      );
    });

    for (const every of [10, 2])
      it(`diagnose, lines ${gap}, one broken link in ${every}: 4× the lines (and broken links) is at most 6× the work`, async () => {
        const work: number[] = [];
        for (const n of [N, 4 * N]) {
          const index = await indexOf(n, every, gapMs);
          const c = counting(index.entries);
          const r = diagnose({ ...index, entries: c.entries });
          assert.equal(r.problems.filter((p) => p.kind === 'dangling-parent').length, n / every - 1);
          work.push(c.steps());
        }
        assert.ok(
          work[1] / work[0] <= 6,
          `work ${work[0]} → ${work[1]} (${(work[1] / work[0]).toFixed(1)}×): linear gives about 4×, quadratic about 16×`,
        );
      });
  }
});

/** Claude Code's bridge as the loader's code reads (one scan of every candidate per choice): what the index must answer. */
function bridgeByScan(entries: Entry[], candidates: number[], e: Entry, seen: Set<number>): number {
  const t = e.timestamp ? Date.parse(e.timestamp) : NaN;
  if (Number.isNaN(t)) return -1;
  let best = -1;
  let bestTime = -Infinity;
  for (const i of candidates) {
    const c = entries[i];
    if (
      seen.has(i) ||
      c.isSidechain !== e.isSidechain ||
      c.kind === 'progress' ||
      (c.kind === 'system' && c.subtype === 'file_snapshot')
    )
      continue;
    const ct = c.timestamp ? Date.parse(c.timestamp) : NaN;
    if (Number.isNaN(ct) || ct > t || ct <= bestTime) continue;
    best = i;
    bestTime = ct;
  }
  return best !== -1 && t - bestTime <= CLAUDE_CODE_BRIDGE_GAP_MS ? best : -1;
}

describe("Claude Code's loader bridge, indexed", () => {
  it('chooses what a scan of every candidate chooses, through walks that take more and more entries (ties, sides, gaps, odd timestamps)', () => {
    const rng = new Rng(22);
    const t0 = Date.parse('2026-03-01T10:00:00.000Z');
    let choices = 0;
    let bridged = 0;
    for (let round = 0; round < 40; round++) {
      const n = 20 + rng.int(200);
      const entries = Array.from({ length: n }, () => {
        // Times on a coarse grid (many ties), some more than the gap apart, some unparsable or missing.
        const roll = rng.next();
        const timestamp =
          roll < 0.05
            ? undefined
            : roll < 0.08
              ? 'not a time'
              : roll < 0.1
                ? new Date(t0 + rng.int(60) * 1000).toUTCString()
                : new Date(t0 + rng.int(60) * 1000 + rng.pick([0, 0, 500, 999])).toISOString();
        const kind = rng.pick(['user', 'assistant', 'assistant', 'progress', 'system']);
        return {
          kind,
          subtype: kind === 'system' ? rng.pick(['file_snapshot', 'compact_boundary', undefined]) : undefined,
          isSidechain: rng.chance(0.2),
          timestamp,
        } as unknown as Entry;
      });
      const candidates = [...entries.keys()].filter(() => rng.chance(0.9));
      const seen = new Set<number>();
      for (let step = 0; step < 3 * n; step++) {
        const e = entries[rng.int(n)];
        const want = bridgeByScan(entries, candidates, e, seen);
        assert.equal(loaderBridge(entries, candidates, e, seen), want, `round ${round}, step ${step}`);
        choices++;
        if (want !== -1) {
          bridged++;
          seen.add(want);
        }
        if (rng.chance(0.3)) seen.add(rng.pick(candidates));
      }
    }
    assert.ok(bridged > choices / 10 && bridged < choices, `${bridged} of ${choices} choices bridged`);
  });
});
