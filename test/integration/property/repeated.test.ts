// Repeated compaction, as people use it: compact, compact the result again, and again — in place, and as a chain of
// forks — with tool-result budgets forced on and off, offline and through the real SDK against the fake Messages
// API. After every step every invariant is checked:
//  - every earlier summary's text is in the resumed context (verbatim, or quoted inside the new summary; for the
//    Anthropic summarizer, given to the model as input);
//  - every saved original in a `*.tool-results/` folder is byte-identical to the tool result it came from, and no
//    saved file ever changes or shrinks from one step to the next;
//  - every preview in the resumed context names an absolute path that exists and holds that result's original;
//  - the input's bytes are untouched (in place: the new file starts with them and the backup holds them; a fork
//    leaves its parent byte-identical);
//  - the result is API-valid and resumes from its own leaf (checkResumable);
//  - a run that refuses writes nothing.
import { strict as assert } from 'node:assert';
import { copyFileSync, existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { basename, isAbsolute, join } from 'node:path';
import { compactFile } from '../../../src/core/compact/compact';
import { toolResultText } from '../../../src/core/conversation';
import { activeSummary } from '../../support/summaries';
import { safeToolResultName } from '../../../src/core/compact/state';
import { CompactError, type CompactResult } from '../../../src/core/compact/types';
import { type CompactSettings } from '../../../src/core/compactSettings';
import { checkResumable } from '../../../src/core/compact/validate';
import { inspectFile } from '../../../src/core/inspect';
import { planCompaction } from '../../../src/core/compact/plan';
import { claudeFixtures, fixture } from '../../support/fixtures';
import { startFakeAnthropic, type FakeAnthropic } from '../../support/fake-anthropic';
import { diffSnapshots, Rng, snapshotDir } from '../../support/reliability';
import { tempDir } from '../../support/temp';

const STEPS = 3;
const SEED = 20261123;

/** Every tool result's full text in a transcript, by tool_use_id (ids can repeat across side chains: all kept). */
function toolResultOriginals(file: string): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    let o: any;
    try {
      o = JSON.parse(line);
    } catch {
      continue;
    }
    const content = o?.message?.content;
    if (!Array.isArray(content)) continue;
    for (const b of content) {
      if (b?.type !== 'tool_result' || typeof b.tool_use_id !== 'string') continue;
      const set = out.get(b.tool_use_id) ?? new Set<string>();
      set.add(toolResultText(b.content).text);
      out.set(b.tool_use_id, set);
    }
  }
  return out;
}

interface SavedFile {
  path: string;
  bytes: Buffer;
}

/** Every file inside a `*.tool-results/` folder under `dir`. */
function savedOriginals(dir: string): SavedFile[] {
  const out: SavedFile[] = [];
  for (const d of readdirSync(dir)) {
    if (!d.endsWith('.tool-results')) continue;
    for (const f of readdirSync(join(dir, d)))
      out.push({ path: join(dir, d, f), bytes: readFileSync(join(dir, d, f)) });
  }
  return out;
}

interface Sequence {
  name: string;
  source: string;
  mode: 'in-place' | 'forks';
  budgets: boolean;
  summarizer: 'extractive' | 'anthropic';
}

async function runSequence(
  seq: Sequence,
  rng: Rng,
  fake: FakeAnthropic | null,
): Promise<{ written: number; refused: number }> {
  const dir = tempDir('ac-repeat-');
  const originals = toolResultOriginals(seq.source);
  const nameToId = new Map<string, string>();
  for (const id of originals.keys()) nameToId.set(safeToolResultName(id), id);
  let current = join(dir, basename(seq.source));
  copyFileSync(seq.source, current);
  const sourceBytes = readFileSync(seq.source);
  const budgetSettings: Partial<CompactSettings> = seq.budgets
    ? { maxToolResultChars: 3_000, maxToolResultCharsPerMessage: 20_000 }
    : { maxToolResultChars: 50_000_000, maxToolResultCharsPerMessage: 50_000_000 };
  let written = 0;
  let refused = 0;
  let saved = new Map<string, Buffer>();
  try {
    for (let step = 1; step <= STEPS; step++) {
      const label = `${seq.name} step ${step}`;
      const inputBytes = readFileSync(current);
      const inputSummary = await activeSummary(current);
      const first = await planCompaction(await inspectFile(current, { subagents: false }), {
        ...budgetSettings,
        targetTokens: 10_000_000,
      });
      // Mostly real cuts (a share of the transcript beside the system prompt), sometimes a target so high that only
      // the budgets apply (the case that used to lose an earlier summary).
      const share = rng.chance(0.3) ? 100 : 0.15 + rng.next() * 0.6;
      const targetTokens = Math.max(1_000, Math.round(first.overheadTokens + first.preTokens * share));
      const before = snapshotDir(dir);
      fake?.clearRequests();
      let res: CompactResult;
      try {
        res = await compactFile(current, {
          summarizer: seq.summarizer,
          anthropic: fake
            ? { apiKey: 'sk-test-repeated', baseURL: fake.url, model: 'claude-test', maxRetries: 0, timeoutMs: 20_000 }
            : undefined,
          settings: {
            ...budgetSettings,
            targetTokens,
            keepRecentTokens: Math.max(1, Math.round(first.preTokens * rng.next() * 0.5)),
          },
          inPlace: seq.mode === 'in-place',
        });
      } catch (err) {
        assert.ok(err instanceof CompactError, `${label}: ${err instanceof Error ? err.stack : String(err)}`);
        if (err.code === 'invalid-output')
          assert.equal(
            (await checkResumable(current)).ok,
            false,
            `${label}: refused an API-valid input: ${err.message}`,
          );
        else assert.equal(err.code, 'nothing-to-compact', `${label}: ${err.code}: ${err.message}`);
        assert.deepEqual(
          diffSnapshots(before, snapshotDir(dir)),
          { added: [], removed: [], changed: [] },
          `${label}: a refused run writes nothing`,
        );
        refused++;
        continue;
      }
      written++;
      const out = readFileSync(res.output);

      // Untouched bytes.
      assert.ok(
        out.subarray(0, inputBytes.length).equals(inputBytes),
        `${label}: the result starts with the input's bytes`,
      );
      if (seq.mode === 'in-place') {
        assert.equal(res.output, current);
        assert.ok(res.backup && readFileSync(res.backup).equals(inputBytes), `${label}: the backup holds the input`);
      } else {
        assert.equal(res.mode, 'fork');
        assert.equal(basename(res.output), `${res.sessionId}.jsonl`, `${label}: the fork is named by its session id`);
        assert.ok(readFileSync(current).equals(inputBytes), `${label}: the parent is byte-identical`);
        assert.ok(
          res.resumeCommand?.endsWith(`--resume ${res.sessionId}`),
          `${label}: resume command ${res.resumeCommand}`,
        );
      }
      assert.ok(readFileSync(seq.source).equals(sourceBytes), 'the fixture itself is never touched');

      // Valid and resumable from the new leaf.
      const check = await checkResumable(res.output);
      const fatal = check.problems.filter((p) => !/over the .*target/.test(p));
      assert.deepEqual(fatal, [], `${label}: the result resumes`);

      // Earlier summaries survive.
      const outSummary = await activeSummary(res.output);
      assert.ok(outSummary !== null, `${label}: the result opens with a summary`);
      if (inputSummary !== null) {
        const sentToModel =
          fake
            ?.messageRequests()
            .some((r) => JSON.stringify(r.body.messages).includes(JSON.stringify(inputSummary).slice(1, -1))) ?? false;
        assert.ok(
          outSummary.includes(inputSummary) || (res.summarizer === 'anthropic' && sentToModel),
          `${label}: the earlier summary (${inputSummary.length} chars) is in the new one or was given to the model (summarizer ${res.summarizer})`,
        );
        if (res.summarizer === 'none')
          assert.equal(
            outSummary,
            inputSummary,
            `${label}: with nothing summarized the earlier summary is kept verbatim`,
          );
      }

      // Saved originals: byte-identical to the results they came from, never changed or shrunk.
      const now = new Map<string, Buffer>();
      for (const f of savedOriginals(dir)) {
        const id = nameToId.get(basename(f.path));
        assert.ok(id !== undefined, `${label}: ${f.path} is named after a tool_use_id of the session`);
        assert.ok(
          originals.get(id)!.has(f.bytes.toString('utf8')),
          `${label}: ${f.path} (${f.bytes.length} B) holds the original result`,
        );
        now.set(f.path, f.bytes);
      }
      for (const [p, bytes] of saved) assert.ok(now.get(p)?.equals(bytes), `${label}: saved original ${p} unchanged`);
      saved = now;

      // Previews name absolute paths that exist and hold the original.
      let previews = 0;
      for (const m of check.messages) {
        for (const b of m.content) {
          if (b.type !== 'tool_result') continue;
          const text = toolResultText(b.content).text;
          const at = /Full text saved to: ([^\]\n]+)\]/.exec(text);
          if (!at) continue;
          previews++;
          const path = at[1];
          assert.ok(isAbsolute(path), `${label}: preview path ${path} is absolute`);
          assert.ok(existsSync(path), `${label}: preview path ${path} exists`);
          assert.ok(
            originals.get(b.tool_use_id as string)?.has(readFileSync(path, 'utf8')),
            `${label}: ${path} holds the original of ${String(b.tool_use_id)}`,
          );
        }
      }
      if (seq.budgets && res.plan.toolResults.some((t) => t.preview !== null))
        assert.ok(previews > 0, `${label}: the budget's previews are in the resumed context`);

      current = res.output;
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { written, refused };
}

describe('repeated compaction: compact again and again, lose nothing', function () {
  this.timeout(20 * 60_000);
  const rng = new Rng(SEED);
  let totals = { written: 0, refused: 0 };

  after(() => console.log(`      ${totals.written} compactions written, ${totals.refused} refused cleanly`));

  for (const source of claudeFixtures()) {
    for (const mode of ['in-place', 'forks'] as const) {
      for (const budgets of [true, false]) {
        const name = `${basename(source)} ${mode} budgets ${budgets ? 'on' : 'off'}`;
        it(`${name}: ${STEPS} offline compactions`, async () => {
          const r = await runSequence({ name, source, mode, budgets, summarizer: 'extractive' }, rng, null);
          totals = { written: totals.written + r.written, refused: totals.refused + r.refused };
        });
      }
    }
  }

  describe('with the Anthropic summarizer (real SDK, fake Messages API)', () => {
    let fake: FakeAnthropic;
    before(async () => {
      fake = await startFakeAnthropic();
    });
    after(async () => {
      await fake.close();
    });
    for (const name of ['with-compactions.jsonl', 'v1.0.108-medium.jsonl', 'v2.1.97-live-after.jsonl']) {
      for (const mode of ['in-place', 'forks'] as const) {
        it(`${name} ${mode} budgets on: ${STEPS} compactions`, async () => {
          const r = await runSequence(
            { name: `${name} ${mode} anthropic`, source: fixture(name), mode, budgets: true, summarizer: 'anthropic' },
            rng,
            fake,
          );
          totals = { written: totals.written + r.written, refused: totals.refused + r.refused };
          assert.ok(r.written >= 1, 'at least one compaction was written');
        });
      }
    }
  });

  it('the sequences wrote compactions (the invariants were exercised)', () => {
    assert.ok(totals.written >= claudeFixtures().length * 2, `${totals.written} written`);
  });
});
