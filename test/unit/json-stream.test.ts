// `inspect --json` is written piece by piece (src/cli/jsonStream.ts): the bytes must be exactly those of
// JSON.stringify(value, null, 2) + '\n' of the same value, for every fixture's report and for awkward values,
// whether the stream takes every chunk at once or asks the writer to wait.
import { strict as assert } from 'node:assert';
import { Writable } from 'node:stream';
import { basename } from 'node:path';
import { inspectFile } from '../../src/core/inspect';
import { contextMap } from '../../src/core/contextMap';
import { jsonReport } from '../../src/cli/inspect';
import { statedWindow } from '../../src/core/limits';
import { JsonList, jsonPieces, writeJson } from '../../src/cli/jsonStream';
import { agentFixtures, claudeFixtures } from '../support/fixtures';

/** A stream that takes each chunk later (and says "wait" past a small buffer), keeping what it was given. */
function slowSink(): { stream: Writable; text: () => string; writes: () => number } {
  const chunks: string[] = [];
  const stream = new Writable({
    highWaterMark: 1024,
    decodeStrings: false,
    write(chunk: string | Buffer, _enc, done) {
      chunks.push(chunk.toString());
      setImmediate(done);
    },
  });
  return { stream, text: () => chunks.join(''), writes: () => chunks.length };
}

async function written(value: unknown): Promise<{ text: string; writes: number }> {
  const sink = slowSink();
  await writeJson(value, sink.stream);
  return { text: sink.text(), writes: sink.writes() };
}

const expected = (value: unknown) => JSON.stringify(value, null, 2) + '\n';

describe('JSON written in pieces', function () {
  this.timeout(120_000);

  for (const file of [
    ...claudeFixtures(),
    ...agentFixtures('codex'),
    ...agentFixtures('copilot-cli'),
    ...agentFixtures('gemini-cli', /\.json$/),
  ]) {
    it(`inspect --json of ${basename(file)}: the same bytes as one JSON.stringify of the report`, async () => {
      const analysis = await inspectFile(file, { appendable: false });
      const value = jsonReport(
        analysis.report,
        contextMap(analysis),
        statedWindow(analysis.index.format.id, analysis.index.entries),
      );
      const { text } = await written(value);
      assert.equal(text, expected(value));
      const parsed = JSON.parse(text) as { rounds: unknown[] };
      assert.equal(parsed.rounds.length, analysis.report.rounds.length);
    });
  }

  it('awkward values: empty and nested lists, left-out keys, escapes, odd numbers, toJSON, null-prototype objects', async () => {
    const bare = Object.create(null) as Record<string, unknown>;
    bare.k = new JsonList(2, (i) => ({ i }));
    const cases: unknown[] = [
      {},
      { a: new JsonList(0, () => 1) },
      { a: new JsonList(3, (i) => (i === 1 ? undefined : i)) },
      { a: new JsonList(2, (i) => new JsonList(i + 1, (j) => ({ j, s: 'x\ny' }))) },
      { a: undefined, f: () => 1, s: Symbol('s'), b: null, c: [], d: {}, e: [undefined, () => 1] },
      {
        text: 'line\nbreak "quoted" \\ back \u2028 \u2029 \u0000 \ud800 é 😀',
        n: [-0, NaN, Infinity, 1e21, 0.1 + 0.2],
      },
      {
        when: new Date(0),
        nested: { deeper: { list: new JsonList(2, (i) => ({ i, inner: { a: [1, { b: 2 }] } })), after: 'x' } },
      },
      { outer: new JsonList(1, () => ({ list: new JsonList(1, () => 1) })) },
      bare,
      new JsonList(3, (i) => ({ i })),
      [1, { a: 2 }],
      'just a string',
      42,
      null,
    ];
    for (const value of cases) assert.equal((await written(value)).text, expected(value), JSON.stringify(value));
  });

  it('a large list goes out in several writes and in order, waiting when the stream asks', async () => {
    const value = {
      rounds: new JsonList(20_000, (i) => ({ i, label: `round ${i} ${'x'.repeat(i % 97)}` })),
      after: true,
    };
    const { text, writes } = await written(value);
    assert.equal(text, expected(value));
    assert.ok(writes > 1, `${writes} writes`);
  });

  it('pieces: a list is made one item at a time, as it is written', () => {
    let made = 0;
    const item = (i: number) => {
      made++;
      return { i };
    };
    const pieces = jsonPieces({ rounds: new JsonList(1000, item) });
    let seen = 0;
    for (const piece of pieces) {
      if (piece.includes('"i"')) seen++;
      assert.ok(made <= seen + 1, `made ${made} items with ${seen} written`);
    }
    assert.equal(made, 1000);
  });
});
