// How long the host takes to build the Context Map's state and to replan when the target is
// dragged. Writes its section of bench/RESULTS.md ("## Context Map state and replanning").
//
//   node --import tsx bench/map-state.ts
//
// Measured in one process on the same analyses: the state built cold (every round split into
// its breakdown, cost, stacks: what each push to the panel cost before bases were kept per
// analysis), the same state again (what a second push or a replan pays now), the serialised
// size, and for a ~1,000-round session the time from a new target to a plan and the map's state
// (median and max over a sweep of targets, as a drag sends them).
import { join } from 'node:path';
import { cpus, loadavg } from 'node:os';
import { inspectFile, type Analysis } from '../src/core/inspect';
import { planCompaction } from '../src/core/compact/plan';
import { contextMap } from '../src/core/contextMap';
import { buildMapState } from '../src/extension/model/mapState';
import { generateLarge } from './generate-large';
import { writeSection } from './results';

const HEADING = '## Context Map state and replanning';

const ROOT = join(__dirname, '..');
const ms = (x: number) => (x >= 1000 ? `${(x / 1000).toFixed(2)} s` : `${x.toFixed(x < 10 ? 1 : 0)} ms`);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** A shallow copy of an analysis: a new identity, the same rounds (as a grown file's analysis keeps them). */
const sameRounds = (a: Analysis): Analysis => ({ ...a, report: { ...a.report } });

async function main(): Promise<void> {
  const big = join(ROOT, 'bench', 'work', 'large.jsonl');
  const small = join(ROOT, 'bench', 'work', 'rounds-1000.jsonl');
  const genBig = await generateLarge(big, 100e6);
  await generateLarge(small, 16.5e6);
  const rows: string[] = [];
  const a = await inspectFile(big);
  // Cold: a copy of the rounds so nothing is cached for them yet.
  const fresh = await inspectFile(big);
  let t = performance.now();
  contextMap(fresh);
  const coreCold = performance.now() - t;
  const b = await inspectFile(big);
  t = performance.now();
  const s1 = buildMapState(big, b, null, undefined);
  const cold = performance.now() - t;
  t = performance.now();
  buildMapState(big, b, null, undefined);
  const warm = performance.now() - t;
  t = performance.now();
  buildMapState(big, sameRounds(b), null, undefined);
  const grown = performance.now() - t;
  t = performance.now();
  const json = JSON.stringify({ type: 'state', state: s1 });
  const stringify = performance.now() - t;
  rows.push(
    `| 100 MB (${a.report.rounds.length.toLocaleString('en-US')} rounds): breakdowns, cost, tables (core, cold) | ${ms(coreCold)} |`,
    `| 100 MB: the map's state, cold (before: every push to the panel paid this, and opening the map pushed twice) | ${ms(cold)} |`,
    `| 100 MB: the map's state again for the same analysis (a second push, a replan) | ${ms(warm)} |`,
    `| 100 MB: the map's state for a new analysis with the same rounds (breakdowns reused per round) | ${ms(grown)} |`,
    `| 100 MB: the state message serialised (${(json.length / 1e6).toFixed(1)} MB) | ${ms(stringify)} |`,
  );
  const s = await inspectFile(small);
  buildMapState(small, s, null, undefined);
  const targets = [20_000, 40_000, 60_000, 80_000, 100_000, 120_000, 140_000, 30_000, 50_000, 70_000, 90_000, 110_000];
  const plans: number[] = [];
  const states: number[] = [];
  for (const target of targets) {
    t = performance.now();
    const plan = await planCompaction(s, { targetTokens: target });
    const t1 = performance.now();
    buildMapState(small, s, plan, target);
    const t2 = performance.now();
    plans.push(t1 - t);
    states.push(t2 - t1);
  }
  const total = plans.map((p, i) => p + states[i]);
  rows.push(
    `| ${s.report.rounds.length.toLocaleString('en-US')} rounds: a new target to its plan (median / max of ${targets.length}) | ${ms(median(plans))} / ${ms(Math.max(...plans))} |`,
    `| ${s.report.rounds.length.toLocaleString('en-US')} rounds: that plan to the map's state (median / max) | ${ms(median(states))} / ${ms(Math.max(...states))} |`,
    `| ${s.report.rounds.length.toLocaleString('en-US')} rounds: target to plan and state (median / max) | **${ms(median(total))} / ${ms(Math.max(...total))}** |`,
  );
  const body = [
    HEADING,
    '',
    `Written by \`node --import tsx bench/map-state.ts\` (${new Date().toISOString()}, ${cpus().length} CPUs, load average ${loadavg()[0].toFixed(2)}); the 100 MB file is ${(genBig.bytes / 1e6).toFixed(1)} MB. ` +
      'One process, the same analyses: "cold" is the first state of an analysis (every round split into its breakdown, cost and stacks); ' +
      '"again" is what a second push or a replan costs, since the plan-independent part is kept per analysis and only the marks are laid over it.',
    '',
    '| step | time |',
    '|---|---|',
    ...rows,
    '',
  ].join('\n');
  writeSection(join(ROOT, 'bench', 'RESULTS.md'), HEADING, body);
  process.stdout.write(`${body}\n`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
