// What a transcript of many lines costs (issue 31, item 5): a line that holds nothing but its kind gets a small entry
// that reads as the full digest would, and the index refuses a file past its caps of lines and records while reading
// it. The default caps on the built CLI, with real peak RSS, are in test/integration/tiny-lines.test.ts.
import { strict as assert } from 'node:assert';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { digestEntry, holdsOnlyKind, isKindOnly, parseLine, type Entry } from '../../src/core/entries';
import { readSessionIndex } from '../../src/core/inspect';
import {
  extendIndex,
  indexTranscript,
  MAX_TRANSCRIPT_RECORDS,
  NotATranscriptError,
  UNCAPPED,
} from '../../src/core/transcript';
import { buildTranscript } from '../support/reliability';
import { tempDir } from '../support/temp';

/** Every field of an entry, own or inherited, as a plain object. */
function fields(e: Entry): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k in e) out[k] = (e as unknown as Record<string, unknown>)[k];
  return out;
}

/** The rejection of a file past a cap. */
const tooLarge = (pattern: RegExp) => (e: unknown) =>
  e instanceof NotATranscriptError && e.reason === 'too-large' && pattern.test(e.message);

describe('kind-only entries', () => {
  it('a line of nothing but a kind reads as its full digest, field for field', () => {
    const full = digestEntry({ type: 'progress', uuid: 'u1' }, 3, 0, 10, 40);
    assert.equal(isKindOnly(full), false);
    for (const [value, kind] of [
      [{}, 'unknown'],
      [{ type: 'progress' }, 'progress'],
      [{ type: 'file-history-snapshot', messageId: 'm', snapshot: { files: [] } }, 'file-history-snapshot'],
    ] as const) {
      const e = digestEntry(value, 7, 0, 100, 120);
      assert.equal(isKindOnly(e), true, JSON.stringify(value));
      const expected = { ...fields(full), line: 7, start: 100, end: 120, kind, uuid: undefined };
      assert.deepEqual(fields(e), expected);
      assert.equal(e.part, 0);
      assert.equal(e.isSidechain, false);
      assert.deepEqual(e.blocks, []);
      const asFull = { type: kind === 'unknown' ? undefined : kind, uuid: 'u' };
      assert.equal(
        JSON.stringify(e),
        JSON.stringify({ ...digestEntry(asFull, 7, 0, 100, 120), uuid: undefined }),
        'the same JSON',
      );
    }
  });

  it('each field of a full digest but its place, kind and blocks, changed alone, makes it more than its kind', () => {
    const empty = fields(digestEntry({}, 0, 0, 0, 0));
    assert.equal(holdsOnlyKind(empty as unknown as Entry), true, 'the empty digest holds only its kind');
    const own = new Set(['line', 'start', 'end', 'kind', 'blocks']);
    const changed = Object.keys(fields(digestEntry({ uuid: 'u' }, 0, 0, 0, 0))).filter((k) => !own.has(k));
    assert.ok(changed.length >= 30, `the digest's fields: ${changed.join(', ')}`);
    for (const k of changed) {
      const e = { ...empty, [k]: { changed: k } } as unknown as Entry;
      assert.equal(holdsOnlyKind(e), false, `${k} changed`);
    }
  });

  it('a line with anything the engine reads gets a full digest', () => {
    for (const value of [
      { type: 'progress', uuid: 'u' },
      { parentUuid: null },
      { timestamp: '2025-01-01T00:00:00Z' },
      { type: 'user', message: { role: 'user', content: 'hi' } },
      { type: 'summary', leafUuid: 'x' },
      { isSidechain: true },
      { type: 'system', subtype: 'compact_boundary' },
    ])
      assert.equal(isKindOnly(digestEntry(value, 1, 0, 0, 10)), false, JSON.stringify(value));
    // A further object of a joined line keeps its part.
    const joined = parseLine('{}{}', 1, 0, 4).entries;
    assert.deepEqual(
      joined.map((e) => [e.part, isKindOnly(e)]),
      [
        [0, true],
        [1, false],
      ],
    );
  });

  it('a reader may add a field to one (its own), and none can add a block to all', () => {
    const a = digestEntry({}, 1, 0, 0, 2);
    const b = digestEntry({}, 2, 0, 3, 5);
    a.contextWindow = 1000;
    assert.equal(a.contextWindow, 1000);
    assert.equal(b.contextWindow, undefined);
    assert.throws(() => a.blocks.push({ type: 'text', chars: 1 }), TypeError);
    assert.equal(b.blocks.length, 0);
  });
});

describe('transcript caps', () => {
  let dir: string;
  before(() => {
    dir = tempDir('ac-caps-');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses the line past maxLines, naming it, and reads a file of as many lines', async () => {
    const file = join(dir, 'lines.jsonl');
    const session = buildTranscript({ rounds: 2 });
    writeFileSync(file, [...session, '{}', '', '{}'].join('\n') + '\n');
    const lines = session.length + 3;
    const index = await indexTranscript(file, { maxLines: lines });
    assert.equal(index.lineCount, lines);
    await assert.rejects(
      indexTranscript(file, { maxLines: lines - 1 }),
      tooLarge(new RegExp(`^${file}: too large: line ${lines} is over the limit of ${lines - 1} lines; `)),
    );
  });

  it('counts records (entries with content, malformed lines) against maxRecords; kind-only lines do not count', async () => {
    const file = join(dir, 'records.jsonl');
    const session = buildTranscript({ rounds: 2 });
    // The session's records, 1,000 kind-only lines, one malformed line.
    writeFileSync(file, [...session, ...Array<string>(1000).fill('{"type":"progress"}'), 'not json'].join('\n') + '\n');
    const records = session.length + 1;
    const index = await indexTranscript(file, { maxRecords: records });
    assert.equal(index.entries.length, session.length + 1000);
    await assert.rejects(
      indexTranscript(file, { maxRecords: records - 1 }),
      tooLarge(
        new RegExp(
          `^${file}: too large: by line ${(session.length + 1001).toLocaleString('en-US')} it holds over ${records - 1} records `,
        ),
      ),
    );
    await assert.rejects(
      indexTranscript(file, { maxRecords: session.length - 1 }),
      tooLarge(new RegExp(`by line ${session.length} it holds over ${session.length - 1} records`)),
    );
  });

  it('applies to appended lines (a live session) and not to UNCAPPED reads', async () => {
    const file = join(dir, 'live.jsonl');
    const session = buildTranscript({ rounds: 3 });
    writeFileSync(file, session.slice(0, 4).join('\n') + '\n');
    const index = await indexTranscript(file, { maxRecords: 5 });
    writeFileSync(file, session.join('\n') + '\n');
    await assert.rejects(extendIndex(index, { maxRecords: 5 }), tooLarge(/by line 6 it holds over 5 records/));
    const again = await indexTranscript(file, { maxRecords: 5 }).catch(() => null);
    assert.equal(again, null, 'refused from scratch as well');
    assert.equal((await indexTranscript(file, UNCAPPED)).entries.length, session.length);
  });

  it(`refuses a JSON document of over ${MAX_TRANSCRIPT_RECORDS.toLocaleString('en-US')} messages before reading them`, async () => {
    const file = join(dir, 'array.json');
    const message = '{"type":"user","uuid":"u","message":{"role":"user","content":"hi"}}';
    writeFileSync(
      file,
      `[${Array<string>(MAX_TRANSCRIPT_RECORDS + 1)
        .fill(message)
        .join(',\n')}]`,
    );
    await assert.rejects(
      readSessionIndex(file),
      tooLarge(
        new RegExp(
          `^${file}: too large: it holds ${(MAX_TRANSCRIPT_RECORDS + 1).toLocaleString('en-US')} messages, over `,
        ),
      ),
    );
  });
});
