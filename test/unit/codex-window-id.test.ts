// Codex's `CompactedItem.window_id`: a UUID string in today's records (0.142 on), an integer in older ones. The reader
// reads a rollout alike with either; our compacted record continues the file's own kind of id (a new UUID after a
// UUID, the next integer after an integer), with the next window_number. From a real 0.142-alpha rollout.
import { strict as assert } from 'node:assert';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compactFile } from '../../src/core/compact/compact';
import { inspectFile } from '../../src/core/inspect';
import { sharedFixtures } from '../support/fixtures';
import { tempDir } from '../support/temp';

const SOURCE = join(sharedFixtures, 'codex', 'rollout-0.142-alpha-compacted.jsonl');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The fixture with its compacted record's window_id replaced by `id` (undefined: as it is). */
function derived(dir: string, name: string, id?: number): string {
  const text = readFileSync(SOURCE, 'utf8');
  const lines = text.trimEnd().split('\n');
  const at = lines.findIndex((l) => l.includes('"type":"compacted"'));
  const o = JSON.parse(lines[at]);
  assert.equal(typeof o.payload.window_id, 'string', 'the fixture holds a UUID window_id');
  if (id !== undefined) o.payload.window_id = id;
  lines[at] = JSON.stringify(o);
  const file = join(dir, `rollout-2026-01-01T00-00-00-${name}.jsonl`);
  writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

const lastRecord = (file: string) => JSON.parse(readFileSync(file, 'utf8').trimEnd().split('\n').pop()!);

describe('Codex window_id: a UUID string or an older integer', function () {
  this.timeout(120_000);
  let dir: string;
  beforeEach(() => (dir = tempDir('ac-codex-window-')));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('the reader reads the rollout alike with either: the same boundary, rounds and active context', async () => {
    const uuid = await inspectFile(derived(dir, 'uuid'), { subagents: false });
    const integer = await inspectFile(derived(dir, 'integer', 7), { subagents: false });
    assert.deepEqual(integer.index.malformed, []);
    assert.equal(integer.report.compactBoundaries.length, 1);
    assert.deepEqual(
      integer.report.compactBoundaries.map((b) => b.line),
      uuid.report.compactBoundaries.map((b) => b.line),
    );
    const shape = (a: typeof uuid) => a.report.rounds.map((r) => [r.firstLine, r.inContext, r.tokens.estimate]);
    assert.deepEqual(shape(integer), shape(uuid));
  });

  it('our compacted record continues the kind of id the file uses, and the window number', async () => {
    const settings = { targetTokens: 20_000, keepRecentTokens: 1_000 };
    const uuidFile = derived(dir, 'uuid');
    const before = JSON.parse(
      readFileSync(uuidFile, 'utf8')
        .split('\n')
        .find((l) => l.includes('"compacted"'))!,
    );
    await compactFile(uuidFile, { summarizer: 'extractive', inPlace: true, settings });
    const afterUuid = lastRecord(uuidFile).payload;
    assert.match(afterUuid.window_id, UUID);
    assert.notEqual(afterUuid.window_id, before.payload.window_id);
    assert.equal(afterUuid.window_number, before.payload.window_number + 1);

    const intFile = derived(dir, 'integer', 7);
    await compactFile(intFile, { summarizer: 'extractive', inPlace: true, settings });
    const afterInt = lastRecord(intFile).payload;
    assert.equal(afterInt.window_id, 8);
    assert.equal(afterInt.window_number, before.payload.window_number + 1);
  });
});
