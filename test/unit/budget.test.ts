// Tool-result budgeting: previews, largest-first, frozen decisions, forks, safe file names.
import { strict as assert } from 'node:assert';
import { mkdirSync, writeFileSync, readFileSync, existsSync, readdirSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { makePreview } from '../../src/core/compact/budget';
import { cloneState, emptyState, safeToolResultName, loadState, statePath } from '../../src/core/compact/state';
import { inspectFile } from '../../src/core/inspect';
import { planCompaction, planDetails } from '../../src/core/compact/plan';
import { compactFile } from '../../src/core/compact/compact';
import { checkResumable } from '../../src/core/compact/validate';
import { sessionWithResults } from '../support/sessions';
import { tempDir } from '../support/temp';

const dir = tempDir('ac-budget-');

let n = 0;
function write(text: string): string {
  const p = join(dir, `s${n++}`, 'session.jsonl');
  mkdirSync(dirname(p), { recursive: true });
  writeFileSync(p, text);
  return p;
}

describe('tool-result previews', () => {
  it('keeps the head, cuts at a newline past the middle, and says where the full text is', () => {
    const text = Array.from({ length: 500 }, (_, i) => `row ${i}`).join('\n');
    const p = makePreview(text, 2000, '/x/session.tool-results/toolu_1.txt');
    assert.equal(text.length, 3889);
    assert.match(p, /the original was 3,889 characters \(3,889 bytes\)/);
    assert.match(p, /Full text saved to: \/x\/session\.tool-results\/toolu_1\.txt/);
    const body = p.split('\n').slice(2, -1).join('\n');
    assert.ok(text.startsWith(body));
    assert.ok(body.length <= 2000 && body.length > 1000);
    assert.ok(!body.endsWith('row'), 'cut at a line end');
    // The exact text, computed independently: rows 0-9 take 6 bytes with their newline, rows 10-99 7, rows 100+ 8, so
    // the whole rows within 2,000 bytes are rows 0..262 (10×6 + 90×7 + 163×8 = 1,994 bytes; row 262's newline is
    // byte 1,994, row 263 would end at byte 2,001). The preview text is frozen into the state file and re-sent on every
    // later pass, so any change to it (wording, sizes, path, cut) changes what the API receives: it is pinned here.
    const rows = text.split('\n');
    let head = '';
    for (const r of rows) {
      const next = head ? `${head}\n${r}` : r;
      if (Buffer.byteLength(next + '\n') > 2000) break;
      head = next;
    }
    assert.equal(head, rows.slice(0, 263).join('\n'));
    assert.equal(head.length, 1_993);
    const expected =
      '[Tool result replaced by a preview to save context: the original was 3,889 characters (3,889 bytes). Full text saved to: /x/session.tool-results/toolu_1.txt]\n' +
      `Preview (first 1,993 bytes):\n${head}\n[… 1,896 more characters in /x/session.tool-results/toolu_1.txt]`;
    assert.equal(p, expected);
    // The same bytes in a fresh process with another locale and time zone: test/integration/preview-locale.test.ts.
  });

  it('never splits a multi-byte character', () => {
    const text = 'é'.repeat(3000);
    const p = makePreview(text, 2001, 'p');
    assert.ok(!p.includes('\uFFFD'));
    // 2,001 bytes hold 1,000 whole 'é' (2 bytes each): the half character is dropped, not replaced.
    assert.equal(
      p,
      `[Tool result replaced by a preview to save context: the original was 3,000 characters (6,000 bytes). Full text saved to: p]\nPreview (first 2,000 bytes):\n${'é'.repeat(1000)}\n[… 2,000 more characters in p]`,
    );
  });
});

describe('budget decisions', () => {
  it('replaces the largest fresh results first until the wire message fits', async () => {
    const p = write(sessionWithResults([30_000, 90_000, 60_000, 40_000]));
    const plan = await planCompaction(
      await inspectFile(p),
      { maxToolResultCharsPerMessage: 100_000, maxToolResultChars: 200_000, targetTokens: 1_000_000 },
      emptyState(),
    );
    const byId = Object.fromEntries(plan.toolResults.map((t) => [t.toolUseId, t.action]));
    // 220k total: replacing 90k then 60k brings it to ~74k.
    assert.deepEqual(byId, { toolu_0: 'kept', toolu_1: 'replaced', toolu_2: 'replaced', toolu_3: 'kept' });
    assert.equal(plan.wireMessages.length, 2);
    const wm = plan.wireMessages.find((w) => w.beforeChars > 0)!;
    assert.equal(wm.beforeChars, 220_000);
    assert.ok(wm.afterChars <= 100_000);
  });

  it('replaces any single result over the per-result limit', async () => {
    const p = write(sessionWithResults([1_000, 70_000]));
    const plan = await planCompaction(await inspectFile(p), { targetTokens: 1_000_000 }, emptyState());
    assert.deepEqual(
      plan.toolResults.map((t) => t.action),
      ['kept', 'replaced'],
    );
    assert.match(plan.toolResults[1].reason, /50,000-character limit/);
  });

  it('exempts tools and keeps decisions frozen across passes, byte for byte', async () => {
    const p = write(sessionWithResults([80_000, 70_000]));
    const exempt = await planCompaction(
      await inspectFile(p),
      { targetTokens: 1_000_000, exemptTools: ['Read'] },
      emptyState(),
    );
    assert.deepEqual(
      exempt.toolResults.map((t) => t.action),
      ['kept', 'kept'],
    );

    // Decisions of a first pass, frozen, are re-applied exactly even under settings that would decide otherwise.
    const details = await planDetails(await inspectFile(p), { targetTokens: 1_000_000 }, emptyState());
    const replaced = details.plan.toolResults.filter((t) => t.action === 'replaced');
    assert.equal(replaced.length, 2);
    const frozen = cloneState(emptyState());
    for (const t of replaced)
      frozen.decisions[t.toolUseId] = {
        action: 'replaced',
        originalChars: t.originalChars,
        preview: t.preview!,
        fullTextPath: t.fullTextPath!,
      };
    const again = await planCompaction(
      await inspectFile(p),
      { targetTokens: 1_000_000, maxToolResultChars: 10 },
      frozen,
    );
    assert.deepEqual(
      again.toolResults.map((t) => [t.action, t.preview]),
      replaced.map((t) => ['frozen', t.preview]),
    );
  });

  it('clones state for a fork without touching the original', () => {
    const a = emptyState();
    a.decisions.x = { action: 'replaced', originalChars: 5, preview: 'p', fullTextPath: 'f' };
    const b = cloneState(a);
    b.decisions.x.preview = 'changed';
    b.decisions.y = { action: 'kept', originalChars: 1 };
    assert.equal(a.decisions.x.preview, 'p');
    assert.equal(a.decisions.y, undefined);
  });

  it('makes safe file names from hostile tool ids', () => {
    for (const id of ['../../etc/passwd', 'a/b', 'x\u0000y', 'C:\\Windows\\x', '..', '', '/abs']) {
      const name = safeToolResultName(id);
      assert.match(name, /^[A-Za-z0-9_-]+\.txt$/);
      const folder = '/base/s.tool-results';
      assert.equal(dirname(resolve(folder, name)), folder);
    }
    assert.notEqual(safeToolResultName('a/b'), safeToolResultName('a_b'));
    assert.equal(safeToolResultName('toolu_01ABC'), 'toolu_01ABC.txt');
  });

  it('persists full originals and decisions so a later pass reproduces the same bytes', async () => {
    const p = write(sessionWithResults([60_000, 3_000, 2_000]));
    const r1 = await compactFile(p, {
      summarizer: 'extractive',
      settings: { targetTokens: 12_000, keepRecentTokens: 100_000 },
    });
    assert.ok(r1.toolResultsDir && existsSync(r1.toolResultsDir));
    const files = readdirSync(r1.toolResultsDir);
    assert.deepEqual(files, ['toolu_0.txt']);
    assert.equal(readFileSync(join(r1.toolResultsDir, 'toolu_0.txt'), 'utf8').length, 60_000);
    const state = await loadState(r1.output);
    assert.equal(state.decisions.toolu_0.action, 'replaced');
    assert.ok(existsSync(statePath(r1.output)));
    const check = await checkResumable(r1.output, { expectSummaryFirst: true });
    assert.deepEqual(check.problems, []);
    const preview = r1.plan.toolResults.find((t) => t.toolUseId === 'toolu_0')!.preview!;
    assert.ok(readFileSync(r1.output, 'utf8').includes(JSON.stringify(preview).slice(1, -1)));
  });
});
