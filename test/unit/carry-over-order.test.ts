// In-place writes (repair and compaction share commitOutput) carry over what a live agent appends while the file is
// replaced, in the order the agent wrote it. The race is made deterministic from the test side, without any hook in
// the product: `fs.promises.rename` is wrapped so that, at the rename that replaces the transcript, the agent's next
// line lands in the old file just before it (after the last copy of late bytes) and the line that continues from it
// lands in the new file just after it, as an agent appending by path would write them around the rename.
import { strict as assert } from 'node:assert';
import {
  appendFileSync,
  copyFileSync,
  promises as fsPromises,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { brokenLinksTranscript } from '../../bench/generate-large';
import { compactFile } from '../../src/core/compact/compact';
import { doctorFile } from '../../src/core/repair/doctor';
import { inspectFile } from '../../src/core/inspect';
import { repairFile } from '../../src/core/repair/repair';
import { fixture } from '../support/fixtures';
import { tempDir } from '../support/temp';

type Rename = typeof fsPromises.rename;
const realRename: Rename = fsPromises.rename;
const setRename = (f: Rename) =>
  Object.defineProperty(fsPromises, 'rename', { value: f, configurable: true, writable: true });

let dir: string;
before(() => (dir = tempDir('ac-carry-')));
after(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => setRename(realRename));

const agentLine = (uuid: string, parentUuid: string, type: 'user' | 'assistant', k: number) =>
  JSON.stringify({
    type,
    uuid,
    parentUuid,
    isSidechain: false,
    sessionId: 'S',
    timestamp: new Date(Date.parse('2027-01-01T00:00:00.000Z') + k * 1000).toISOString(),
    message:
      type === 'user'
        ? { role: 'user', content: `live ${k}` }
        : {
            role: 'assistant',
            id: `msg_live_${k}`,
            model: 'claude-test',
            content: [{ type: 'text', text: `live reply ${k}` }],
          },
  }) + '\n';

/**
 * Wraps rename: at the first `times` renames onto `file`, the agent appends one line to the file before it and the
 * line continuing from it after it. Returns the uuids in the order the agent wrote them.
 */
function agentAroundRenames(file: string, leaf: string, times: number): string[] {
  const written: string[] = [];
  let parent = leaf;
  let n = 0;
  setRename(async (from, to) => {
    if (String(to) !== file || n >= times) return realRename(from, to);
    n++;
    const a = `live-a-${n}`;
    appendFileSync(file, agentLine(a, parent, 'user', 2 * n));
    await realRename(from, to);
    const b = `live-b-${n}`;
    appendFileSync(file, agentLine(b, a, 'assistant', 2 * n + 1));
    written.push(a, b);
    parent = b;
  });
  return written;
}

const liveUuids = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.includes('"uuid":"live-'))
    .map((l) => (JSON.parse(l) as { uuid: string }).uuid);

describe('in-place carry-over keeps the agent order', () => {
  it('repair --in-place: a line appended just before the rename stays before the line continuing from it', async () => {
    const file = join(dir, '11111111-2222-4333-8444-555555555555.jsonl');
    writeFileSync(file, brokenLinksTranscript(40, 10));
    const written = agentAroundRenames(file, 'line-39', 1);
    const r = await repairFile(file, { inPlace: true });
    assert.equal(r.changes.length, 3);
    assert.deepEqual(liveUuids(file), written, 'every appended line, once, in the order written');
    assert.ok(r.carriedOverBytes > 0 && r.notes.some((n) => n.includes('carried over')), JSON.stringify(r.notes));
    const d = await doctorFile(file);
    assert.equal(d.reachability, 1, JSON.stringify(d.problems));
    assert.equal(d.leafLine, 42, 'resume starts from the newest line');
  });

  it('compact --in-place: the same race, the same order', async () => {
    const file = join(dir, '6a4f1c2e-9b1d-4c3a-8e2f-1d2c3b4a5f60.jsonl');
    copyFileSync(fixture('v1.0.108-medium.jsonl'), file);
    const a = await inspectFile(file, { subagents: false });
    const leaf = a.index.entries[a.chain.leaf].uuid!;
    const written = agentAroundRenames(file, leaf, 1);
    const res = await compactFile(file, {
      summarizer: 'extractive',
      inPlace: true,
      settings: { targetTokens: 12_000, keepRecentTokens: 2_000, maxToolResultChars: 4_000 },
    });
    assert.ok(res.carriedOverBytes > 0);
    assert.deepEqual(
      liveUuids(file).filter((u) => written.includes(u)),
      written,
      'every appended line, once, in the order written',
    );
    // They continue the history before the compaction (as compact's note says); the newest is what resume starts from.
    const d = await doctorFile(file);
    assert.equal(
      d.leafLine,
      readFileSync(file, 'utf8').trimEnd().split('\n').length,
      'resume starts from the newest line',
    );
  });

  it('an agent that races every replacement: the bytes it cannot place in order are saved beside it and named, none lost', async () => {
    const file = join(dir, '22222222-2222-4333-8444-555555555555.jsonl');
    writeFileSync(file, brokenLinksTranscript(40, 10));
    const written = agentAroundRenames(file, 'line-39', 1_000);
    const r = await repairFile(file, { inPlace: true });
    const saved = readdirSync(dir).filter((n) =>
      n.startsWith('22222222-2222-4333-8444-555555555555.jsonl.unplaced-appends-'),
    );
    assert.equal(saved.length, 1, readdirSync(dir).join(' '));
    assert.ok(
      r.notes.some((n) => n.includes(saved[0])),
      JSON.stringify(r.notes),
    );
    const rest = readFileSync(join(dir, saved[0]), 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => (JSON.parse(l) as { uuid: string }).uuid);
    // The last line written before the final replacement is saved; every other line is in the file, in order.
    assert.deepEqual(rest, [written[written.length - 2]]);
    assert.deepEqual(
      liveUuids(file),
      written.filter((u) => !rest.includes(u)),
    );
  });
});
