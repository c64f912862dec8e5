// Repair and doctor do work linear in the file, however many of its parent links are broken: the work is counted (every
// read of an entry and of its fields, through proxies around the entries given to the pure planners), not timed, so
// a busy machine cannot make it pass or fail. The input is the repair benchmark's (bench/generate-large.ts).
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brokenLinksTranscript } from '../../bench/generate-large';
import { diagnose } from '../../src/core/doctor';
import type { Entry } from '../../src/core/entries';
import { planRepair } from '../../src/core/repair';
import { indexTranscript, type TranscriptIndex } from '../../src/core/transcript';

let dir: string;
before(() => (dir = mkdtempSync(join(tmpdir(), 'ac-repair-linear-'))));
after(() => rmSync(dir, { recursive: true, force: true }));

async function indexOf(lines: number, every = 10): Promise<TranscriptIndex> {
  const f = join(dir, `b${lines}-${every}.jsonl`);
  writeFileSync(f, brokenLinksTranscript(lines, every));
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

  it('planRepair: 4× the lines (and broken links) is at most 6× the work, and every link is repaired', async () => {
    const work: number[] = [];
    for (const n of [N, 4 * N]) {
      const c = counting((await indexOf(n)).entries);
      const plan = planRepair(c.entries);
      assert.equal(plan.changes.length, n / 10 - 1, 'every broken link is planned');
      work.push(c.steps());
    }
    assert.ok(
      work[1] / work[0] <= 6,
      `work ${work[0]} → ${work[1]} (${(work[1] / work[0]).toFixed(1)}×): linear gives about 4×, quadratic about 16×`,
    );
  });

  it('diagnose: 4× the lines (and broken links) is at most 6× the work', async () => {
    const work: number[] = [];
    for (const n of [N, 4 * N]) {
      const index = await indexOf(n, 2);
      const c = counting(index.entries);
      const r = diagnose({ ...index, entries: c.entries });
      assert.equal(r.problems.filter((p) => p.kind === 'dangling-parent').length, n / 2 - 1);
      work.push(c.steps());
    }
    assert.ok(
      work[1] / work[0] <= 6,
      `work ${work[0]} → ${work[1]} (${(work[1] / work[0]).toFixed(1)}×): linear gives about 4×, quadratic about 16×`,
    );
  });
});
