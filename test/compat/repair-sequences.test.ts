// The real Claude Code judges repair over sequences of damage (test/unit/property/repairSequences.ts holds the full
// property): every fixture is damaged step by step (a parentUuid cut, a line deleted, a line written twice, a tool
// call removed so its result is orphaned), repaired into a fork after each step, and the fork is resumed with the
// real CLI (a fork byte for byte the same as one already resumed is judged on that resume's request). The request it sends must be valid, hold every call doctor predicts for the fork (all of the active
// context: the property suite shows the fork loads every message), in order (lines written twice out of place
// aside: Claude Code places those as it likes), and carry every converted tool result as text after the turn's
// remaining tool results.
//
// The fixtures' sequences run two at a time (./lanes.ts), each lane with its own fake, so each resume sees only its
// own request.
import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { checkRequestInvariants, requireClaudeBinary, resumeWithClaude } from '../support/claude-code';
import { damageRandomly } from '../support/damage';
import { startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic';
import { claudeFixtures } from '../support/fixtures';
import { Rng } from '../support/reliability';
import { buildChainWithTables } from '../../src/core/chain';
import { claudeLoader } from '../../src/core/formats/claude-code/loader';
import { activeRegion, diagnose } from '../../src/core/repair/doctor';
import { orphanHeader } from '../../src/core/orphanResults';
import { repairFile } from '../../src/core/repair/repair';
import { indexTranscript, type TranscriptIndex } from '../../src/core/transcript';
import { LANES, Lanes } from './lanes';
import { tempDir } from '../support/temp';

const SEEDS = 2;
const STEPS = 3;

interface WireBlock {
  type?: string;
  id?: string;
  text?: string;
}

const wireBlocks = (m: { content?: unknown }): WireBlock[] =>
  Array.isArray(m.content) ? (m.content as WireBlock[]) : [];

/** tool_use ids of the request's messages, in order. */
function requestCalls(messages: { content?: unknown }[]): string[] {
  return messages.flatMap((m) =>
    wireBlocks(m)
      .filter((b) => b.type === 'tool_use' && b.id)
      .map((b) => b.id!),
  );
}

/** tool_use ids resume loads from `index` by doctor's model, in file order, only those whose result is loaded too (Claude Code drops the others). */
function predictedCalls(index: TranscriptIndex): string[] {
  const built = buildChainWithTables(index.entries, claudeLoader);
  const on = new Set(built.chain.main);
  const { region } = activeRegion(index.entries, built);
  const loaded = region.filter((i) => on.has(i)).map((i) => index.entries[i]);
  const answered = new Set(
    loaded.flatMap((e) => e.blocks.filter((b) => b.type === 'tool_result').map((b) => b.toolId)),
  );
  return loaded.flatMap((e) =>
    e.blocks.filter((b) => b.type === 'tool_use' && b.toolId && answered.has(b.toolId)).map((b) => b.toolId!),
  );
}

describe('compat: repaired forks of damaged fixtures resume whole and valid (real Claude Code)', function () {
  this.timeout(900_000);
  const lanes = new Lanes<FakeAnthropic>();
  const fakes: FakeAnthropic[] = [];
  let root: string;
  /** Converted tool results judged in a real request, over all fixtures. */
  let convertedJudged = 0;
  before(async () => {
    requireClaudeBinary();
    root = fs.realpathSync(tempDir('ac-repair-seq-compat-'));
    for (let i = 0; i < LANES; i++) fakes.push(await startFakeAnthropic());
    await lanes.run(fakes);
  });
  after(async () => {
    for (const fake of fakes) await fake.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  for (const source of claudeFixtures().filter((f) => !f.endsWith('subagent.jsonl'))) {
    const name = path.basename(source);
    lanes.it(`${name}: sequences of ${STEPS} damages, each repaired fork resumed`, async (fake, log) => {
      let resumed = 0;
      /** The request Claude Code sent on resuming a fork, by the fork's sha256. */
      const sentFor = new Map<string, any>();
      // More sequences where damage mostly fell where resume does not read (history before a compact boundary).
      for (let seed = 1; seed <= SEEDS || (resumed < 2 && seed <= 4 * SEEDS); seed++) {
        const rng = new Rng(seed * 104_729 + name.length);
        let lines = fs.readFileSync(source, 'utf8').split('\n');
        const done: string[] = [];
        for (let step = 1; step <= STEPS; step++) {
          const d = damageRandomly(lines, rng);
          if (!d) break;
          lines = d.lines;
          done.push(`${d.damage.kind}@${d.damage.line}`);
          const why = `${name} seed ${seed} step ${step} (${done.join(', ')})`;
          const input = path.join(root, `${name}-${seed}-${step}.jsonl`);
          fs.writeFileSync(input, lines.join('\n'));
          const r = await repairFile(input, { out: path.join(root, `${name}-${seed}-${step}.fixed.jsonl`) });
          if (!r.output) continue;
          const fork = await indexTranscript(r.output);
          assert.equal(diagnose(fork).apiValid, true, why);
          // A fork byte for byte the same as one resumed before (a damage repair undoes, measured: 7 of 37) is judged
          // on the request Claude Code sent for those same bytes, not resumed again.
          const bytes = createHash('sha256').update(fs.readFileSync(r.output)).digest('hex');
          let body = sentFor.get(bytes);
          if (!body) {
            const run = await resumeWithClaude({
              sessionFile: r.output,
              prompt: `resume repaired ${seed}-${step}`,
              fake,
            });
            try {
              assert.equal(run.exitCode, 0, `${why}: ${run.stderr}`);
              body = run.mainRequest?.body;
            } finally {
              run.cleanup();
            }
            sentFor.set(bytes, body);
          }
          const messages = (body?.messages ?? []) as { role: string; content?: unknown }[];
          assert.ok(messages.length > 0, `${why}: no request`);
          assert.deepEqual(checkRequestInvariants(body), [], `${why}: the request is valid`);
          // Every call doctor predicts is sent, in order. Claude Code may send more (a call doctor expects it to drop,
          // answered with a synthetic result: the request is still valid), and places a line written twice out of
          // place where it likes: the order is compared without those.
          const sent = requestCalls(messages);
          const predicted = predictedCalls(fork);
          assert.deepEqual(
            predicted.filter((id) => !sent.includes(id)),
            [],
            `${why}: every call of the active context is sent`,
          );
          const twice = new Set(
            fork.entries
              .filter((e, k) => e.uuid && fork.entries.findIndex((x) => x.uuid === e.uuid) !== k)
              .flatMap((e) => e.blocks.map((b) => b.toolId)),
          );
          const expectedOrder = predicted.filter((id) => !twice.has(id));
          assert.deepEqual(
            sent.filter((id) => expectedOrder.includes(id)),
            expectedOrder,
            `${why}: in order`,
          );
          for (const c of r.converted) {
            for (const id of c.toolIds) {
              const header = (b: WireBlock) =>
                b.type === 'text' &&
                (b.text?.startsWith(orphanHeader(id, false)) || b.text?.startsWith(orphanHeader(id, true)));
              const holder = messages.find((m) => wireBlocks(m).some(header));
              assert.ok(holder, `${why}: the converted result of ${id} (line ${c.line}) is in the request`);
              const blocks = wireBlocks(holder);
              const at = blocks.findIndex(header);
              assert.ok(
                !blocks.slice(at).some((b) => b.type === 'tool_result'),
                `${why}: the converted result of ${id} comes after the turn's tool results`,
              );
              convertedJudged++;
            }
          }
          resumed++;
          if (rng.chance(0.5)) lines = fs.readFileSync(r.output, 'utf8').split('\n');
        }
      }
      log(`      ${resumed} repaired forks judged, ${sentFor.size} different ones resumed\n`);
      assert.ok(resumed > 0);
    });
  }

  it('the sequences above had tool results converted, and each was judged in a real request', () => {
    console.log(`      ${convertedJudged} converted tool results found in the requests`);
    assert.ok(convertedJudged > 0);
  });
});
