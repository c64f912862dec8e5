// Undo deletes only what a compaction of this session wrote and what is still as it wrote it. The CLI's record
// (`<session>.compactor-undo.json`) travels with the session like every file beside it: a planted one must not
// delete a git folder or the source tree (the built CLI in a real git repository, which `git` itself checks after).
// The rest runs in process (test/unit/undo-trust-core.test.ts): a planted record against the user's saved tool
// results, and the extension's Undo from memory, where a fork resumed since, or a saved result changed since, is the
// user's work by then and stays as well.
import { strict as assert } from 'node:assert';
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { toolResultsDir } from '../../src/core/compact/state';
import { undoRecordPath } from '../../src/core/compact/undoRecord';
import { fixture, repoRoot } from '../support/fixtures';
import { diffSnapshots, snapshotDir } from '../support/reliability';
import { tempDir } from '../support/temp';

const cli = join(repoRoot, 'dist', 'cli.js');
const sha = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.email=a@b', '-c', 'user.name=a', ...args], { cwd, stdio: 'pipe' });
const undoCli = (cwd: string, file: string) =>
  spawnSync(process.execPath, [cli, 'undo', file], { cwd, encoding: 'utf8', timeout: 60_000 });
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
    git(root, 'init', '-q', '.');
    git(root, 'add', '.');
    git(root, 'commit', '-qm', 'i');
    session = join(root, 's.jsonl');
    copyFileSync(fixture('example.jsonl'), session);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('a record naming the git folder as its tool-results folder (the CLI, as an attacker ships it): exit 2, nothing deleted', () => {
    writeFileSync(join(root, 'fork.jsonl'), '{"planted":true}\n');
    plantRecord(session, {
      toolResultsDir: '.git',
      toolResults: ['HEAD', 'index', 'config'],
      outputSha256: sha('{"planted":true}\n'),
    });
    const before = snapshotDir(root);
    const r = undoCli(root, 's.jsonl');
    assert.equal(r.status, 2, r.stdout + r.stderr);
    assert.deepEqual(diffSnapshots(before, snapshotDir(root)), NO_CHANGE);
    git(root, 'status', '--porcelain'); // still a repository
  });

  it('a record naming another folder with names we give, or our folder with names we never give: refused', () => {
    const own = basename(toolResultsDir(session));
    mkdirSync(join(root, own));
    writeFileSync(join(root, own, 'notes'), 'not a saved result\n');
    writeFileSync(join(root, 'fork.jsonl'), '{"compactor":"agent-compactor"}\n');
    const outputSha256 = sha('{"compactor":"agent-compactor"}\n');
    const notes = sha('the user notes\n');
    for (const fields of [
      { toolResultsDir: 'docs', toolResults: ['notes.txt'], toolResultSha256: { 'notes.txt': notes } },
      { toolResultsDir: own, toolResults: ['notes'], toolResultSha256: { notes: sha('not a saved result\n') } },
      { toolResultsDir: null, toolResults: ['notes.txt'] },
    ]) {
      plantRecord(session, { ...fields, outputSha256 });
      const before = snapshotDir(root);
      const r = undoCli(root, session);
      assert.equal(r.status, 2, `${JSON.stringify(fields)}: ${r.stdout}${r.stderr}`);
      assert.deepEqual(diffSnapshots(before, snapshotDir(root)), NO_CHANGE, JSON.stringify(fields));
    }
  });

  it("a record naming a file of the repository as its fork, with that file's true hash: refused (it holds no compaction of ours)", () => {
    plantRecord(session, { output: 'README', outputSha256: sha('hi\n') });
    const before = snapshotDir(root);
    const r = undoCli(root, session);
    assert.equal(r.status, 2, r.stdout + r.stderr);
    assert.match(r.stderr, /changed since the compaction wrote it/);
    assert.deepEqual(diffSnapshots(before, snapshotDir(root)), NO_CHANGE);
  });
});
