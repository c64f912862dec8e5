// Doctor and repair's planning cost CPU time linear in the orphan tool results of a session (issue 31, item 6), and
// doctor in the dead ends beside a branch resume does not load: on 4× as many, at most 6× the CPU time
// (process.cpuUsage, user and system, measured here in this process, the least of three runs after a warm-up), where
// a cost quadratic in them gives about 16×. The orphans come from the repair benchmark's generator (bench/generate-
// large.ts orphanResultsTranscript): half of them answer one of two parallel calls, and repair splices each of those
// onto the chain before its turn's closing reply (it rebuilt the whole chain for each splice, and found each result
// with a scan of every entry). Doctor followed each dead end back along the whole branch it hangs from.
//
// The sizes are small on purpose: past a few thousand entries the entries and tables outgrow a core's cache and each
// entry costs more to reach the bigger the file, so that the chain rebuild alone (linear, unchanged) takes 6-8× the
// CPU time for 4× the entries (measured on a 2-core machine with 1 MiB of cache per core). 100 and 400 orphans (400
// and 1,600 entries) stay within it. Measured on that machine, busy: before the change 18× (doctor), 19× (the plan)
// and 12× (dead ends); after it, 4.5-5.3×.
import { strict as assert } from 'node:assert';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { forwardLinkBreaksTranscript, orphanResultsTranscript } from '../../bench/generate-large';
import { planRepair, repairOutlook } from '../../src/core/repair/repair';
import { indexTranscript, type TranscriptIndex } from '../../src/core/transcript';
import { claudeLoader } from '../../src/core/formats/claude-code/loader';
import { tempDir } from '../support/temp';

const N = 100;
/** Rounds per run (see leastCpu): a run then takes a few hundred milliseconds of CPU time. */
const REPEAT = 20;
const BOUND = 6;

let dir: string;
before(() => (dir = tempDir('ac-doctor-scaling-')));
after(() => rmSync(dir, { recursive: true, force: true }));

async function indexOf(name: string, text: string): Promise<TranscriptIndex> {
  const f = join(dir, `${name}.jsonl`);
  writeFileSync(f, text);
  return indexTranscript(f);
}

/** CPU time (user and system) of one call of `fn`, in ms. */
function cpuOf(fn: () => unknown): number {
  const start = process.cpuUsage();
  fn();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

/**
 * CPU time per call of `fn` on the small index (first) and on the large one (4× its orphans), the least of three runs
 * after a warm-up run. A run is REPEAT rounds of four calls on the small index and one on the large (as much work
 * each, when it is linear), every call timed on its own and added to its index's total: the sizes take turns every few
 * milliseconds, so that the machine's other work, which comes and goes, weighs on both alike.
 */
function leastCpu(indexes: TranscriptIndex[], fn: (index: TranscriptIndex) => unknown): number[] {
  const callsPerRound = [4, 1];
  const run = (): number[] => {
    const total = [0, 0];
    for (let r = 0; r < REPEAT; r++)
      for (let k = 0; k < 2; k++) for (let c = 0; c < callsPerRound[k]; c++) total[k] += cpuOf(() => fn(indexes[k]));
    return total.map((t, k) => t / (REPEAT * callsPerRound[k]));
  };
  run();
  const runs = [run(), run(), run()];
  return [0, 1].map((k) => Math.min(...runs.map((r) => r[k])));
}

function assertScales([small, large]: number[], what: string): void {
  const ratio = large / small;
  assert.ok(
    ratio <= BOUND,
    `${what}: ${small.toFixed(1)} ms → ${large.toFixed(1)} ms of CPU time (${ratio.toFixed(1)}×): linear gives about 4×, quadratic about 16×`,
  );
}

/**
 * `lines` lines of one conversation a minute apart (Claude Code's loader bridges no gap), whose walk from the leaf
 * stops at a missing parent four lines from the end, so that nearly all of it is a branch resume does not load; every
 * tenth line has a reply beside it that nothing continues from, each a dead end doctor follows back along that branch.
 */
function deadEndsTranscript(lines: number): string {
  const t0 = Date.parse('2026-03-01T10:00:00.000Z');
  const out: string[] = [];
  const line = (uuid: string, parentUuid: string | null, k: number, type: 'user' | 'assistant') =>
    out.push(
      JSON.stringify({
        parentUuid,
        isSidechain: false,
        uuid,
        timestamp: new Date(t0 + k * 60_000).toISOString(),
        sessionId: 'S',
        type,
        message:
          type === 'user'
            ? { role: 'user', content: `prompt ${k}` }
            : {
                role: 'assistant',
                id: `msg_${uuid}`,
                model: 'claude-sonnet-4-6',
                content: [{ type: 'text', text: 'ok' }],
              },
      }),
    );
  for (let k = 0; k < lines; k++) {
    line(`line-${k}`, k === 0 ? null : k === lines - 4 ? 'gone' : `line-${k - 1}`, k, k % 2 ? 'assistant' : 'user');
    if (k % 10 === 4) line(`beside-${k}`, `line-${k}`, k, 'assistant');
  }
  return out.join('\n') + '\n';
}

describe('doctor and repair: CPU time linear in orphan tool results, dead ends and broken links', function () {
  this.timeout(120_000);
  let orphans: TranscriptIndex[];
  before(async () => {
    orphans = [
      await indexOf('orphans-n', orphanResultsTranscript(N, 1_000)),
      await indexOf('orphans-4n', orphanResultsTranscript(4 * N, 1_000)),
    ];
  });

  it(`doctor (as the verb runs it: diagnose, plan the repair, diagnose the result) on 4× the orphan tool results costs at most ${BOUND}× the CPU time`, () => {
    const outlook = repairOutlook(orphans[1]);
    assert.equal(outlook.canRepair, true);
    assert.equal(outlook.after.healthy, true, 'every orphan converted and placed: nothing left to report');
    assertScales(leastCpu(orphans, repairOutlook), `doctor, ${N} → ${4 * N} orphan tool results`);
  });

  it(`repair's plan on 4× the orphan tool results costs at most ${BOUND}× the CPU time, and converts and places every one`, () => {
    const plan = planRepair(orphans[1].entries, claudeLoader);
    assert.equal(plan.converted.length, 4 * N);
    assert.equal(
      plan.changes.filter((c) => c.reason.startsWith('a converted tool result placed where its turn ends')).length,
      2 * N,
      'the answer to one of two parallel calls is placed before its turn ends',
    );
    assert.deepEqual(plan.skipped, []);
    assertScales(
      leastCpu(orphans, (index) => planRepair(index.entries, claudeLoader)),
      `planRepair, ${N} → ${4 * N} orphan tool results`,
    );
  });

  it(`doctor on 4× the dead ends beside a branch resume does not load costs at most ${BOUND}× the CPU time`, async () => {
    const lines = 10 * N;
    const dead = [
      await indexOf('dead-ends-n', deadEndsTranscript(lines)),
      await indexOf('dead-ends-4n', deadEndsTranscript(4 * lines)),
    ];
    assert.equal(repairOutlook(dead[1]).before.reachableMessages, 4);
    assertScales(leastCpu(dead, repairOutlook), `doctor, ${lines / 10} → ${(4 * lines) / 10} dead ends`);
  });

  // Issue 34: the plan's walks stopped early only while every ancestor was earlier in the file; a tool result written
  // before its call (a link forward) made them climb the whole chain behind each break, quadratic in breaks.
  it(`doctor on 4× the broken links, results written before their calls, costs at most ${BOUND}× the CPU time`, async () => {
    const broken = [
      await indexOf('forward-n', forwardLinkBreaksTranscript(N, 60_000)),
      await indexOf('forward-4n', forwardLinkBreaksTranscript(4 * N, 60_000)),
    ];
    assert.equal(repairOutlook(broken[1]).plan.changes.length, 4 * N - 1);
    assertScales(leastCpu(broken, repairOutlook), `doctor, ${N - 1} → ${4 * N - 1} broken links`);
  });
});
