// Repair as a property over sequences of damage: every fixture is damaged step by step (a parentUuid cut, a line
// deleted, a line written twice, a tool call removed so its result is orphaned), and after every step the damaged
// file is repaired into a fork and judged; half the time the next damage is done to the repaired fork. Invariants:
//  - the input is byte-identical after repair, and every line repair did not report is byte-identical in the fork;
//  - the fork's doctor report has no reachability problem (no dangling parent, dead-end leaf, cycle, orphan result
//    or invalid request) outside the lines repair reports it left alone, and the rebuilt request is API-valid;
//  - every message the undamaged fixture's resume loaded that is still in the input is loaded from the fork, or
//    its line is in the repair report (converted or left alone);
//  - a repair refused (it would load fewer messages) writes nothing.
// The real Claude Code judges forks of the same sequences in test/compat/repair-sequences.test.ts.
// The fixtures are in two test files (repair-sequences-1.test.ts: the names before "v2", repair-sequences-2.test.ts:
// the rest), about the same CPU each, so that the unit tier's two workers share them.
import { strict as assert } from 'node:assert';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { buildChainWithTables } from '../../../src/core/chain';
import { claudeLoader } from '../../../src/core/formats/claude-code/loader';
import { activeRegion, diagnose, type ProblemKind } from '../../../src/core/repair/doctor';
import { repairFile, type RepairResult } from '../../../src/core/repair/repair';
import { indexTranscript, type TranscriptIndex } from '../../../src/core/transcript';
import { damageRandomly, type Damage } from '../../support/damage';
import { claudeFixtures } from '../../support/fixtures';
import { Rng } from '../../support/reliability';
import { tempDir } from '../../support/temp';

const SEEDS = 6;
const STEPS = 4;
const REACHABILITY: ProblemKind[] = [
  'dangling-parent',
  'leaf-dead-end',
  'parent-cycle',
  'orphan-tool-result',
  'invalid-request',
];

/** Uuids of the user and assistant entries resume loads in the active context. */
export function loadedMessages(index: TranscriptIndex): Set<string> {
  const built = buildChainWithTables(index.entries, claudeLoader);
  const on = new Set(built.chain.main);
  const { region } = activeRegion(index.entries, built);
  return new Set(
    region
      .filter((i) => on.has(i) && (index.entries[i].kind === 'user' || index.entries[i].kind === 'assistant'))
      .map((i) => index.entries[i].uuid!),
  );
}

/** What a written fork must satisfy against its input (see the header); returns the messages it loads. */
async function judgeFork(
  input: TranscriptIndex,
  inputText: string,
  r: RepairResult,
  expected: Set<string>,
  why: string,
): Promise<void> {
  const fork = await indexTranscript(r.output!);
  const report = diagnose(fork);
  const reported = new Set([...r.converted.map((c) => c.line), ...r.skipped.map((s) => s.line)]);
  const bad = report.problems.filter(
    (p) => p.severity === 'error' && REACHABILITY.includes(p.kind) && !reported.has(p.line),
  );
  assert.deepEqual(bad, [], `${why}: reachability problems left in the fork`);
  assert.equal(report.apiValid, true, `${why}: fork's request invalid`);
  const loaded = loadedMessages(fork);
  const lost = input.entries.filter(
    (e) =>
      e.uuid &&
      expected.has(e.uuid) &&
      (e.kind === 'user' || e.kind === 'assistant') &&
      !loaded.has(e.uuid) &&
      !reported.has(e.line),
  );
  assert.deepEqual(
    lost.map((e) => e.line),
    [],
    `${why}: messages neither loaded nor reported`,
  );
  const a = inputText.split('\n');
  const b = readFileSync(r.output!, 'utf8').split('\n');
  assert.equal(b.length, a.length, `${why}: line count`);
  const changed = new Set([...r.changes.map((c) => c.line), ...r.converted.map((c) => c.line)]);
  for (let k = 0; k < a.length; k++)
    if (!changed.has(k + 1)) assert.equal(b[k], a[k], `${why}: line ${k + 1} not byte-identical`);
}

/** The fixtures of part 1 (names before "v2") or part 2 (the rest): together every fixture, each once. */
export function repairSequencesSuite(part: 1 | 2): void {
  describe(`repair property: sequences of damage over every fixture (part ${part} of 2)`, function () {
    this.timeout(600_000);
    let dir: string;
    before(() => (dir = tempDir('ac-repair-seq-')));
    after(() => rmSync(dir, { recursive: true, force: true }));

    for (const source of claudeFixtures().filter((f) => !f.endsWith('subagent.jsonl'))) {
      const name = basename(source);
      if (name < 'v2' !== (part === 1)) continue;
      it(`${name}: ${SEEDS} sequences of ${STEPS} damages, repaired after each`, async () => {
        const pristine = loadedMessages(await indexTranscript(source));
        const tally = { written: 0, nothing: 0, refused: 0, converted: 0, relinked: 0 };
        for (let seed = 1; seed <= SEEDS; seed++) {
          const rng = new Rng(seed * 7919 + name.length);
          let lines = readFileSync(source, 'utf8').split('\n');
          const done: Damage[] = [];
          for (let step = 1; step <= STEPS; step++) {
            const d = damageRandomly(lines, rng);
            if (!d) break;
            lines = d.lines;
            done.push(d.damage);
            const why = `${name} seed ${seed} step ${step} (${done.map((x) => `${x.kind}@${x.line}`).join(', ')})`;
            const input = join(dir, `${name}-${seed}-${step}.jsonl`);
            const text = lines.join('\n');
            writeFileSync(input, text);
            const out = join(dir, `${name}-${seed}-${step}.fixed.jsonl`);
            const index = await indexTranscript(input);
            const outcome = await repairFile(input, { out }).then(
              (r) => ({ r }),
              (e: Error) => ({ e }),
            );
            assert.equal(readFileSync(input, 'utf8'), text, `${why}: the input changed`);
            if ('e' in outcome) {
              assert.match(outcome.e.message, /would make resume load fewer messages/, why);
              assert.ok(!existsSync(out), `${why}: a refused repair wrote ${out}`);
              tally.refused++;
              continue;
            }
            const r = outcome.r;
            if (!r.output) {
              // Nothing to repair: the input itself must load everything it holds.
              const before = diagnose(index);
              assert.deepEqual(
                before.problems.filter(
                  (p) =>
                    p.severity === 'error' &&
                    REACHABILITY.includes(p.kind) &&
                    !r.skipped.some((s) => s.line === p.line),
                ),
                [],
                `${why}: nothing repaired, yet problems remain`,
              );
              tally.nothing++;
              continue;
            }
            tally.written++;
            tally.converted += r.converted.length;
            tally.relinked += r.changes.length;
            await judgeFork(index, text, r, pristine, why);
            if (rng.chance(0.5)) lines = readFileSync(r.output, 'utf8').split('\n');
          }
        }
        console.log(`      ${JSON.stringify(tally)}`);
        assert.ok(tally.written > 0, 'some repair was written');
      });
    }
  });
}
