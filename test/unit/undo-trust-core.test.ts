// Undo deletes only what a compaction of this session wrote and what is still as it wrote it, in process: a planted
// `<session>.compactor-undo.json` deletes none of the user's saved tool results unless they are byte for byte what it
// names and nothing names them; the extension's Undo works from memory, but a fork resumed since, or a saved result
// changed since, is the user's work by then and stays as well. The CLI against planted records in a real git
// repository (and `git` checking it after): test/integration/undo-trust.test.ts.
import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import {
  appendFileSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { basename, join } from 'node:path';
import { compactFile } from '../../src/core/compact/compact';
import { statePath, toolResultsDir } from '../../src/core/compact/state';
import { CompactError } from '../../src/core/compact/types';
import { undoCompaction } from '../../src/core/compact/undo';
import { readUndoRecord, undoRecordPath } from '../../src/core/compact/undoRecord';
import { fixture } from '../support/fixtures';
import { diffSnapshots, snapshotDir } from '../support/reliability';
import { tempDir } from '../support/temp';

const settings = { targetTokens: 60_000, keepRecentTokens: 20_000, maxToolResultChars: 2_000 };
const sha = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');
const NO_CHANGE = { added: [], removed: [], changed: [] };

/** A record as `agent-compactor compact` writes one, with `fields` over it. */
function plantRecord(session: string, fields: Record<string, unknown>): void {
  const record = {
    version: 1,
    mode: 'fork',
    output: 'fork.jsonl',
    backup: null,
    toolResultsDir: null,
    toolResults: [],
    toolResultSha256: {},
    toolResultsDirCreated: false,
    stateCreated: false,
    outputSha256: null,
    ...fields,
  };
  writeFileSync(undoRecordPath(session), JSON.stringify(record));
}

describe('a planted undo record deletes nothing beside the transcript', function () {
  this.timeout(120_000);
  let root: string;
  let session: string;

  beforeEach(() => {
    root = tempDir('ac-undo-trust-');
    writeFileSync(join(root, 'README'), 'hi\n');
    mkdirSync(join(root, 'docs'));
    writeFileSync(join(root, 'docs', 'notes.txt'), 'the user notes\n');
    session = join(root, 's.jsonl');
    copyFileSync(fixture('example.jsonl'), session);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('saved results the record names in our folder stay unless they are byte for byte what it says and nothing names them', async () => {
    const dir = toolResultsDir(session);
    mkdirSync(dir);
    // The user's saved results: one the session names (in use), one the record gets wrong, one it has no hash for.
    writeFileSync(join(dir, 'toolu_inuse.txt'), 'in use\n');
    appendFileSync(session, JSON.stringify({ type: 'system', content: `see ${join(dir, 'toolu_inuse.txt')}` }) + '\n');
    writeFileSync(join(dir, 'toolu_other.txt'), 'the user result\n');
    writeFileSync(join(dir, 'toolu_nohash.txt'), 'no hash\n');
    // What the planted record may delete: files that are exactly what it names (it could have planted them itself).
    writeFileSync(join(dir, 'toolu_planted.txt'), 'planted\n');
    writeFileSync(join(root, 'fork.jsonl'), '{"compactor":"agent-compactor"}\n');
    plantRecord(session, {
      toolResultsDir: basename(dir),
      toolResults: ['toolu_inuse.txt', 'toolu_other.txt', 'toolu_nohash.txt', 'toolu_planted.txt'],
      toolResultSha256: {
        'toolu_inuse.txt': sha('in use\n'),
        'toolu_other.txt': sha('something else\n'),
        'toolu_planted.txt': sha('planted\n'),
      },
      outputSha256: sha('{"compactor":"agent-compactor"}\n'),
    });
    const result = await readUndoRecord(session);
    await undoCompaction(session, result);
    assert.deepEqual(readdirSync(dir).sort(), ['toolu_inuse.txt', 'toolu_nohash.txt', 'toolu_other.txt']);
    assert.equal(readFileSync(join(dir, 'toolu_other.txt'), 'utf8'), 'the user result\n');
    assert.ok(!existsSync(join(root, 'fork.jsonl')));
  });
});

describe("the extension's Undo (from memory) deletes only what is still as the compaction wrote it", function () {
  this.timeout(300_000);
  let root: string;
  let file: string;

  beforeEach(() => {
    root = tempDir('ac-undo-memory-');
    file = join(root, 'session.jsonl');
    copyFileSync(fixture('with-compactions.jsonl'), file);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('a fork resumed since is refused with the reason, and nothing is deleted', async () => {
    const res = await compactFile(file, { summarizer: 'extractive', settings });
    assert.ok(res.sidecarsWritten!.toolResults.length > 0, 'the fork saved tool results');
    appendFileSync(res.output, '{"type":"user","message":{"role":"user","content":"resumed"}}\n');
    const before = snapshotDir(root);
    await assert.rejects(
      undoCompaction(file, res),
      (e: unknown) => e instanceof CompactError && /changed since the compaction wrote it/.test(e.message),
    );
    assert.deepEqual(diffSnapshots(before, snapshotDir(root)), NO_CHANGE);
  });

  it('a saved result changed since stays; the rest of what the fork wrote goes', async () => {
    const before = readdirSync(root).sort();
    const res = await compactFile(file, { summarizer: 'extractive', settings });
    const saved = res.sidecarsWritten!.toolResults;
    assert.ok(saved.length > 1, 'the fork saved tool results');
    writeFileSync(saved[0], 'the user edited this\n');
    await undoCompaction(file, res);
    assert.ok(!existsSync(res.output) && !existsSync(statePath(res.output)), 'the fork and its state are gone');
    assert.deepEqual(readdirSync(toolResultsDir(file)), [basename(saved[0])], 'only the edited result is left');
    assert.deepEqual(readdirSync(root).sort(), [...before, basename(toolResultsDir(file))].sort());
  });
});
