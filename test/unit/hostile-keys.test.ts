// Tool ids, tool names and model names come from the transcript: ids named like Object.prototype members
// (`constructor`, `__proto__`, `toString`) must be ordinary keys everywhere they index a dictionary.
import { strict as assert } from 'node:assert';
import { mkdirSync, writeFileSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { inspectFile } from '../../src/core/inspect';
import { planCompaction } from '../../src/core/compact/plan';
import { compactFile } from '../../src/core/compact/compact';
import { emptyState, loadState, statePath } from '../../src/core/compact/state';
import { chooseToolResult, noDecisions, parseDecisions } from '../../src/core/compact/decisions';
import { loadDecisions, saveDecisions } from '../../src/core/compact/savedDecisions';
import { contextMap } from '../../src/core/contextMap';
import { priceFor, withPriceOverrides } from '../../src/core/cost';
import { sessionWithResults } from '../support/sessions';
import { tempDir } from '../support/temp';

const HOSTILE = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'];
const dir = tempDir('ac-hostile-');
let n = 0;

/** sessionWithResults with each tool also named after its id (so tool names are hostile too). */
function write(sizes: number[], ids: string[]): string {
  const text = sessionWithResults(sizes, ids)
    .split('\n')
    .map((line) => {
      if (!line) return line;
      const o = JSON.parse(line) as { message?: { content?: unknown } };
      const content = o.message?.content;
      if (Array.isArray(content))
        for (const b of content as { type: string; id?: string; name?: string }[])
          if (b.type === 'tool_use') b.name = b.id;
      return JSON.stringify(o);
    })
    .join('\n');
  const p = join(dir, `s${n++}`, 'session.jsonl');
  mkdirSync(dirname(p), { recursive: true });
  writeFileSync(p, text);
  return p;
}

const WIDE = { targetTokens: 1_000_000, maxToolResultChars: 50_000, maxToolResultCharsPerMessage: 10_000_000 };

describe('transcript-controlled keys named like Object.prototype members', () => {
  it('a fresh plan treats them as fresh results: over the per-result limit they are replaced, not "frozen"', async () => {
    const p = write(
      HOSTILE.map(() => 60_000),
      HOSTILE,
    );
    const plan = await planCompaction(await inspectFile(p), WIDE, emptyState());
    assert.deepEqual(
      plan.toolResults.map((t) => [t.toolUseId, t.action]),
      HOSTILE.map((id) => [id, 'replaced']),
    );
  });

  it('their frozen decisions reach the state file and are re-applied by the next pass', async () => {
    const p = write(
      HOSTILE.map(() => 60_000),
      HOSTILE,
    );
    const first = await compactFile(p, { settings: WIDE, inPlace: true, summarizer: 'extractive' });
    assert.equal(first.plan.toolResults.filter((t) => t.action === 'replaced').length, HOSTILE.length);
    const raw = JSON.parse(readFileSync(statePath(p), 'utf8')) as { decisions: object };
    assert.deepEqual(Object.keys(raw.decisions).sort(), [...HOSTILE].sort(), 'every id is a key of the state file');
    const state = await loadState(p);
    const again = await planCompaction(await inspectFile(p), { ...WIDE, maxToolResultChars: 10 }, state);
    const previews = new Map(first.plan.toolResults.map((t) => [t.toolUseId, t.preview]));
    for (const t of again.toolResults) {
      assert.equal(t.action, 'frozen', t.toolUseId);
      assert.equal(t.preview, previews.get(t.toolUseId), `${t.toolUseId}: the same preview`);
    }
  });

  it("the user's tool-result choices for them are kept, saved, loaded and honoured", async () => {
    const p = write(
      HOSTILE.map(() => 60_000),
      HOSTILE,
    );
    let d = noDecisions();
    for (const id of HOSTILE) d = chooseToolResult(d, id, 'keep-full');
    assert.deepEqual(Object.keys(d.toolResults).sort(), [...HOSTILE].sort());
    assert.deepEqual(
      Object.keys(parseDecisions(JSON.parse(JSON.stringify(d)), 'test').toolResults).sort(),
      [...HOSTILE].sort(),
    );
    await saveDecisions(p, d);
    const loaded = await loadDecisions(p);
    assert.deepEqual(Object.keys(loaded.toolResults).sort(), [...HOSTILE].sort());
    const plan = await planCompaction(await inspectFile(p), WIDE, undefined, loaded);
    for (const t of plan.toolResults) assert.deepEqual([t.toolUseId, t.action, t.by], [t.toolUseId, 'kept', 'user']);
    // Removing a choice ('auto') removes only that key.
    const fewer = chooseToolResult(loaded, '__proto__', 'auto');
    assert.deepEqual(Object.keys(fewer.toolResults).sort(), HOSTILE.filter((id) => id !== '__proto__').sort());
  });

  it('per-tool token figures keep tools named like them', async () => {
    const p = write([100, 200, 300, 400, 500], HOSTILE);
    const map = contextMap(await inspectFile(p));
    const names = new Set<string>();
    for (const r of map.rounds) for (const name of Object.keys(r.breakdown.byTool)) names.add(name);
    assert.deepEqual([...names].sort(), [...HOSTILE].sort());
    for (const r of map.rounds)
      assert.equal(Object.getPrototypeOf(r.breakdown.byTool), Object.prototype, 'byTool keeps its prototype');
  });

  it('a model named like them has no price, and price overrides accept them as ordinary keys', () => {
    for (const model of HOSTILE) assert.equal(priceFor(model), null, model);
    // Built as JSON.parse builds a setting's value: `__proto__` is then an own key (an object literal would set the prototype).
    const given = JSON.parse(
      '{"__proto__": {"input": 1, "output": 2}, "constructor": {"input": 3, "output": 4}}',
    ) as Record<string, { input: number; output: number }>;
    const priced = withPriceOverrides(given);
    assert.equal(priceFor('__proto__', priced)?.price.input, 1);
    assert.equal(priceFor('constructor', priced)?.price.output, 4);
    assert.equal(Object.getPrototypeOf(priced.models), Object.prototype);
  });
});
