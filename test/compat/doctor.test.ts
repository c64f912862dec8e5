// Doctor and repair judged by the real Claude Code: sessions broken the way public reports describe (lines missing
// from the middle of the main chain, after and before a compact boundary). Doctor's prediction of what resume loads
// must match the request Claude Code sends; the repaired fork must resume with every remaining call of the active
// context in the request, in order, and the request must be valid.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { checkRequestInvariants, requireClaudeBinary, resumeWithClaude } from '../support/claude-code';
import { startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic';
import { LANES, Lanes } from './lanes';
import { fixture } from '../support/fixtures';
import { buildChain, buildChainWithTables } from '../../src/core/chain';
import { claudeLoader } from '../../src/core/formats/claude-code/loader';
import { activeRegion, diagnose } from '../../src/core/repair/doctor';
import { repairFile } from '../../src/core/repair/repair';
import { indexTranscript, type TranscriptIndex } from '../../src/core/transcript';
import { tempDir } from '../support/temp';

/** tool_use ids of the request's messages, in order. */
function requestCalls(body: { messages?: { content?: unknown }[] } | undefined): string[] {
  const out: string[] = [];
  for (const m of body?.messages ?? [])
    if (Array.isArray(m.content))
      for (const b of m.content as { type?: string; id?: string }[]) if (b.type === 'tool_use' && b.id) out.push(b.id);
  return out;
}

/** tool_use ids resume loads from `index` by doctor's model, in file order, only those whose result is loaded too (Claude Code drops the others). */
function predictedCalls(index: TranscriptIndex): string[] {
  const built = buildChainWithTables(index.entries, claudeLoader);
  const chain = built.chain;
  const on = new Set(chain.main);
  const { region } = activeRegion(index.entries, built);
  const loaded = region.filter((i) => on.has(i)).map((i) => index.entries[i]);
  const answered = new Set(
    loaded.flatMap((e) => e.blocks.filter((b) => b.type === 'tool_result').map((b) => b.toolId)),
  );
  return loaded.flatMap((e) =>
    e.blocks.filter((b) => b.type === 'tool_use' && b.toolId && answered.has(b.toolId)).map((b) => b.toolId!),
  );
}

interface Case {
  source: string;
  /** Where: a fraction of the main chain's user/assistant lines, in the active context or the history before the last boundary. */
  at: number;
  count: number;
  part: 'active' | 'history';
}

const CASES: Case[] = [
  { source: 'v2.1.97-live-after.jsonl', at: 0.5, count: 2, part: 'active' },
  { source: 'v2.1.97-live-after.jsonl', at: 0.8, count: 3, part: 'active' },
  { source: 'v2.1.97-live-after.jsonl', at: 0.3, count: 2, part: 'active' },
  { source: 'with-compactions.jsonl', at: 0.5, count: 2, part: 'active' },
  { source: 'with-compactions.jsonl', at: 0.8, count: 2, part: 'active' },
  // A progress line just before the missing one is no bridge for Claude Code: it loads only what follows the break.
  { source: 'with-compactions.jsonl', at: 0.3, count: 1, part: 'active' },
  { source: 'with-compactions.jsonl', at: 0.4, count: 1, part: 'active' },
  { source: 'with-compactions.jsonl', at: 0.5, count: 2, part: 'history' },
];

// The cases, each in its own folder, run side by side, each lane with its own fake (./lanes.ts).
describe('compat: doctor predicts what Claude Code resumes, and repair brings the rest back (real Claude Code)', function () {
  this.timeout(600_000);
  const lanes = new Lanes<FakeAnthropic>();
  const fakes: FakeAnthropic[] = [];
  let root: string;
  before(async () => {
    requireClaudeBinary();
    root = fs.realpathSync(tempDir('ac-doctor-compat-'));
    for (let i = 0; i < LANES; i++) fakes.push(await startFakeAnthropic());
    await lanes.run(fakes);
  });
  after(async () => {
    for (const fake of fakes) await fake.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  for (const c of CASES) {
    lanes.it(
      `${c.source}: ${c.count} lines removed at ${c.at} of the ${c.part === 'active' ? 'active context (after the last boundary, if any)' : 'history before the last boundary'}`,
      async (fake) => {
        const src = fixture(c.source);
        const original = await indexTranscript(src);
        const chain = buildChain(original.entries);
        const pool =
          c.part === 'history' ? chain.main.slice(0, chain.activeStart) : chain.main.slice(chain.activeStart);
        const msgs = pool.map((i) => original.entries[i]).filter((e) => e.kind === 'user' || e.kind === 'assistant');
        const from = Math.floor(msgs.length * c.at);
        const drop = new Set(msgs.slice(from, from + c.count).map((e) => e.line));
        const dir = fs.mkdtempSync(path.join(root, 'case-'));
        const broken = path.join(dir, 'broken.jsonl');
        fs.writeFileSync(
          broken,
          fs
            .readFileSync(src, 'utf8')
            .split('\n')
            .filter((_, k) => !drop.has(k + 1))
            .join('\n'),
        );

        const index = await indexTranscript(broken);
        const report = diagnose(index);
        const run = await resumeWithClaude({ sessionFile: broken, prompt: 'resume the broken session', fake });
        try {
          assert.equal(run.exitCode, 0, run.stderr);
          assert.deepEqual(
            requestCalls(run.mainRequest?.body),
            predictedCalls(index),
            'doctor predicts the calls Claude Code sends',
          );
          if (c.part === 'active')
            assert.ok(
              report.problems.some((p) => p.kind === 'dangling-parent'),
              'the break is named',
            );
        } finally {
          run.cleanup();
        }

        // Repair refuses when it would load less than Claude Code's own loader already does (it bridges some gaps):
        // then the broken file itself must resume with every remaining call, which the checks below verify.
        const repaired = await repairFile(broken, { out: path.join(dir, 'repaired.jsonl') }).catch((e: Error) => {
          if (/would make resume load fewer messages/.test(e.message)) return { output: null };
          throw e;
        });
        const fixedIndex = repaired.output ? await indexTranscript(repaired.output) : index;
        const after = diagnose(fixedIndex);
        assert.equal(after.apiValid, true);
        // Every call of the original's active context that is still in the file with its result, in order.
        const remaining = predictedCalls(original).filter(
          (id) =>
            fixedIndex.entries.some((e) => e.blocks.some((b) => b.type === 'tool_use' && b.toolId === id)) &&
            fixedIndex.entries.some((e) => e.blocks.some((b) => b.type === 'tool_result' && b.toolId === id)),
        );
        const resumed = await resumeWithClaude({
          sessionFile: repaired.output ?? broken,
          prompt: 'resume the repaired session',
          fake,
        });
        try {
          assert.equal(resumed.exitCode, 0, resumed.stderr);
          assert.deepEqual(checkRequestInvariants(resumed.mainRequest?.body), [], 'the request is valid');
          assert.deepEqual(
            requestCalls(resumed.mainRequest?.body),
            remaining,
            'every remaining call of the active context, in order',
          );
        } finally {
          resumed.cleanup();
        }
      },
    );
  }
});
