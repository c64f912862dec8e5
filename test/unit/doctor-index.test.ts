// Doctor and repair's plan on a chain with many broken links (issue 34): they follow links by entry index (doctor's
// dead ends, the plan's children of each entry and the latest ancestor of each), not by sets and walks to the root.
// Their answers must be the straightforward ones: each dead end followed back link by link, each broken entry linked
// to the nearest earlier entry that does not continue from it (found by climbing every ancestor). The chain is made to
// trip the shortcuts: a tool result written before its call (a link forward in the file), a reply beside most turns
// that nothing continues from, and every turn's prompt continuing from a line that is not in the file.
import { strict as assert } from 'node:assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { activeRegion, diagnose } from '../../src/core/repair/doctor';
import { planRepair } from '../../src/core/repair/repairPlan';
import { buildChainWithTables } from '../../src/core/chain';
import { claudeLoader } from '../../src/core/formats/claude-code/loader';
import { indexTranscript, type TranscriptIndex } from '../../src/core/transcript';
import type { Entry } from '../../src/core/entries';
import { forwardLinkBreaksTranscript } from '../../bench/generate-large';
import { tempDir } from '../support/temp';

const isMessage = (e: Entry) => e.kind === 'user' || e.kind === 'assistant';

/** Doctor's dead ends, straightforwardly: each tip off the chain followed back one link at a time. */
function deadEndsByWalking(index: TranscriptIndex): { line: number; unreachable: number }[] {
  const entries = index.entries;
  const built = buildChainWithTables(entries, claudeLoader);
  const { region } = activeRegion(entries, built);
  const onMain = new Set(built.chain.main);
  const first = new Map<string, number>();
  entries.forEach((e, i) => e.uuid && !first.has(e.uuid) && first.set(e.uuid, i));
  const out: { line: number; unreachable: number }[] = [];
  for (const tip of region) {
    const t = entries[tip];
    if (onMain.has(tip) || region.some((i) => entries[i].parentUuid === t.uuid)) continue;
    let size = 0;
    let messages = 0;
    let cur = tip;
    const seen = new Set<number>();
    for (;;) {
      seen.add(cur);
      size++;
      if (isMessage(entries[cur])) messages++;
      const p = entries[cur].parentUuid;
      const next = p ? first.get(p) : undefined;
      if (next === undefined || !region.includes(next) || onMain.has(next) || seen.has(next)) {
        if (messages > 0 && next !== undefined && onMain.has(next) && !seen.has(next))
          out.push({ line: t.line, unreachable: size });
        break;
      }
      cur = next;
    }
  }
  return out;
}

/** The plan's links, straightforwardly: each broken prompt to the nearest earlier line it is not an ancestor of. */
function linksByClimbing(index: TranscriptIndex): { line: number; toLine: number }[] {
  const entries = index.entries;
  const at = new Map<string, number>();
  entries.forEach((e, i) => e.uuid && at.set(e.uuid, i));
  const parent: (string | null)[] = entries.map((e) => e.parentUuid ?? null);
  const isAncestor = (from: number, c: number) => {
    const seen = new Set<number>();
    for (let x: number | undefined = c; x !== undefined && !seen.has(x);) {
      if (x === from) return true;
      seen.add(x);
      const p: string | null = parent[x];
      x = p ? at.get(p) : undefined;
    }
    return false;
  };
  const out: { line: number; toLine: number }[] = [];
  entries.forEach((e, i) => {
    if (!e.parentUuid || at.has(e.parentUuid)) return;
    for (let c = i - 1; c >= 0; c--)
      if (!isAncestor(i, c)) {
        parent[i] = entries[c].uuid!;
        out.push({ line: e.line, toLine: entries[c].line });
        return;
      }
  });
  return out;
}

describe('doctor and repair on a chain with many broken links: the answers of a straightforward walk', function () {
  this.timeout(60_000);
  let dir: string;
  before(() => (dir = tempDir('ac-doctor-index-')));

  for (const gapMs of [1_000, 60_000])
    it(`300 turns ${gapMs / 1000} s apart (${gapMs === 1_000 ? 'the loader bridges every break' : 'it bridges none'})`, async () => {
      const file = join(dir, `breaks-${gapMs}.jsonl`);
      writeFileSync(file, forwardLinkBreaksTranscript(300, gapMs));
      const index = await indexTranscript(file);
      const report = diagnose(index);
      const dead = report.problems
        .filter((p) => p.kind === 'dead-end-branch')
        .map((p) => ({ line: p.line, unreachable: p.unreachable! }));
      const expected = deadEndsByWalking(index);
      assert.deepEqual(dead, expected);
      // Bridged, the chain runs through every turn and every reply beside it is a dead end off it; not, none is.
      assert.equal(dead.length, gapMs === 1_000 ? 200 : 0);
      const broken = report.problems.filter((p) => p.kind === 'dangling-parent');
      assert.equal(broken.length, 299);
      if (gapMs === 60_000) {
        // The walk from the leaf stops at the last break: every entry before it is lost (but the last turn's result,
        // written before it); the others are not loaded.
        const last = broken[broken.length - 1];
        assert.equal(last.unreachable, index.entries.filter((e) => e.line < last.line).length - 1, last.detail);
        assert.ok(broken.slice(0, -1).every((p) => p.unreachable === undefined));
      } else assert.ok(broken.every((p) => p.unreachable === 0 && p.severity === 'warning'));
      const plan = planRepair(index.entries, claudeLoader);
      assert.deepEqual(
        plan.changes.map((c) => ({ line: c.line, toLine: c.toLine })),
        linksByClimbing(index),
      );
      assert.equal(plan.changes.length, 299);
    });
});
