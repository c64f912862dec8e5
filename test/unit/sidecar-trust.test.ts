// Files beside a transcript come from other people with it (shared repos, checkpoints, bug reports; git stores
// symlinks and any name). Restore From Backup and Undo never follow a planted link out of the transcript's folder and
// never trust a manifest further than its own saved results; names derived from a legal 250-byte transcript name stay
// legal. Planted files that could block or fill memory (a FIFO, a link to a device, a 3 GB sparse saved result) are
// in test/integration/sidecar-hostile-files.test.ts.
import { strict as assert } from 'node:assert';
import {
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { basename, join } from 'node:path';
import { compactFile } from '../../src/core/compact/compact';
import { planCompaction } from '../../src/core/compact/plan';
import { inspectFile } from '../../src/core/inspect';
import { listBackups, restoreBackup } from '../../src/core/compact/backup';
import { lockPath } from '../../src/core/io/lock';
import { tempPathFor } from '../../src/core/io/atomic';
import { manifestPath } from '../../src/core/io/backups';
import { loadState, statePath, toolResultsDir } from '../../src/core/compact/state';
import { CompactError } from '../../src/core/compact/types';
import { undoCompaction } from '../../src/core/compact/undo';
import { fitName, NAME_MAX } from '../../src/core/io/sidecarFiles';
import { fixture } from '../support/fixtures';
import { diffSnapshots, plantedManifest, snapshotDir } from '../support/reliability';
import { tempDir } from '../support/temp';

const settings = { targetTokens: 60_000, keepRecentTokens: 20_000, maxToolResultChars: 2_000 };
const KEY = '-----BEGIN OPENSSH PRIVATE KEY-----\nnot really a key\n-----END OPENSSH PRIVATE KEY-----\n';
const unsafe = (re: RegExp) => (e: unknown) =>
  e instanceof CompactError && e.code === 'unsafe-path' && re.test(e.message);

describe('Restore From Backup and Undo never follow what is planted beside a transcript', function () {
  this.timeout(300_000);
  let root: string;
  let project: string;
  let outside: string;
  let file: string;
  let backup: string;

  beforeEach(() => {
    root = tempDir('ac-trust-');
    project = join(root, 'project');
    outside = join(root, 'outside');
    mkdirSync(project);
    mkdirSync(outside);
    file = join(project, 'session.jsonl');
    copyFileSync(fixture('with-compactions.jsonl'), file);
    // A backup as a shared folder may carry one: a plain copy, with whatever is planted beside it.
    backup = `${file}.bak-20260101-000000-000`;
    copyFileSync(file, backup);
    writeFileSync(join(outside, 'id_ed25519'), KEY);
    writeFileSync(join(outside, 'toolu_precious.txt'), 'an outside file\n');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  /** A manifest as a planter would write it: the backup's true size and hash (the planter can compute them), and `sidecars`. */
  const plantManifest = (sidecars: object, of = backup) =>
    writeFileSync(manifestPath(of), plantedManifest(of, sidecars));

  it('a tool-results folder that links outside: restoring a backup whose manifest names a file there deletes nothing, changes nothing', async () => {
    symlinkSync(outside, toolResultsDir(file));
    plantManifest({ state: 'none', toolResultsDirCreated: false, toolResults: ['toolu_precious.txt'] });
    const before = snapshotDir(root);
    await assert.rejects(restoreBackup(file, backup), unsafe(/session\.tool-results: it is a symbolic link/));
    assert.deepEqual(diffSnapshots(before, snapshotDir(root)), { added: [], removed: [], changed: [] });
  });

  it("the backup's recorded state file linked to a private key: refused, the key is not copied in, nothing changes", async () => {
    symlinkSync(join(outside, 'id_ed25519'), statePath(backup));
    plantManifest({ state: 'saved', toolResultsDirCreated: false, toolResults: [] });
    const before = snapshotDir(root);
    await assert.rejects(restoreBackup(file, backup), unsafe(/compactor-state\.json: it is a symbolic link/));
    assert.deepEqual(diffSnapshots(before, snapshotDir(root)), { added: [], removed: [], changed: [] });
  });

  it('a backup that is a link to a private key is neither listed nor restored', async () => {
    rmSync(backup);
    symlinkSync(join(outside, 'id_ed25519'), backup);
    assert.deepEqual(await listBackups(file), []);
    const before = snapshotDir(root);
    await assert.rejects(restoreBackup(file, backup), unsafe(/bak-20260101-000000-000: it is a symbolic link/));
    assert.deepEqual(diffSnapshots(before, snapshotDir(root)), { added: [], removed: [], changed: [] });
    assert.ok(!readFileSync(file, 'utf8').includes('PRIVATE KEY'));
  });

  it('a planted manifest cannot remove a saved result it did not write (no recorded hash, or another one), nor name a path', async () => {
    mkdirSync(toolResultsDir(file));
    const mine = join(toolResultsDir(file), 'toolu_mine.txt');
    const other = join(toolResultsDir(file), 'toolu_other.txt');
    writeFileSync(mine, 'a saved result of mine\n');
    writeFileSync(other, 'another saved result\n');
    plantManifest({
      state: 'none',
      toolResultsDirCreated: false,
      toolResults: ['toolu_mine.txt', 'toolu_other.txt'],
      sha256: { 'toolu_other.txt': '0'.repeat(64) },
    });
    await restoreBackup(file, backup);
    assert.equal(readFileSync(mine, 'utf8'), 'a saved result of mine\n');
    assert.equal(readFileSync(other, 'utf8'), 'another saved result\n');

    const second = `${file}.bak-20260101-000000-001`;
    copyFileSync(backup, second);
    plantManifest(
      { state: 'none', toolResultsDirCreated: false, toolResults: ['../../outside/toolu_precious.txt'] },
      second,
    );
    await assert.rejects(
      restoreBackup(file, second),
      (e: unknown) =>
        e instanceof CompactError &&
        e.code === 'bad-backup' &&
        /not a backup manifest Agent Compactor wrote/.test(e.message),
    );
    assert.ok(existsSync(join(outside, 'toolu_precious.txt')));
  });

  it('Undo of a fork whose tool-results folder was swapped for a link outside deletes nothing there', async () => {
    const res = await compactFile(file, { summarizer: 'extractive', settings });
    const saved = res.sidecarsWritten!.toolResults;
    assert.ok(saved.length > 0, 'the fork saved tool results');
    // The folder moved outside and a link left in its place, holding the same names.
    const moved = join(outside, 'moved');
    renameSync(toolResultsDir(file), moved);
    symlinkSync(moved, toolResultsDir(file));
    const before = snapshotDir(outside);
    await undoCompaction(file, res);
    assert.deepEqual(diffSnapshots(before, snapshotDir(outside)), { added: [], removed: [], changed: [] });
    assert.ok(!existsSync(res.output), 'the fork itself is gone');
    assert.ok(lstatSync(toolResultsDir(file)).isSymbolicLink());
  });
});

describe("the transcript's own folder may be reached through a link (the user's choice, not a sidecar)", function () {
  this.timeout(300_000);
  it('compact in place, list backups and restore through a linked project folder', async () => {
    const root = tempDir('ac-linked-');
    try {
      mkdirSync(join(root, 'real'));
      symlinkSync(join(root, 'real'), join(root, 'project'));
      const file = join(root, 'project', 'session.jsonl');
      copyFileSync(fixture('with-compactions.jsonl'), file);
      const original = readFileSync(file);
      const res = await compactFile(file, { summarizer: 'extractive', inPlace: true, settings });
      const backups = await listBackups(file);
      assert.equal(backups.length, 1);
      assert.equal(basename(backups[0]), basename(res.backup!));
      await restoreBackup(file, backups[0]);
      assert.ok(readFileSync(file).equals(original));
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('names derived from a long transcript name stay within NAME_MAX (B5)', function () {
  this.timeout(300_000);
  let dir: string | undefined;
  afterEach(() => dir && rmSync(dir, { recursive: true, force: true }));

  it('fitName keeps short names as they are and shortens long ones the same way every time', () => {
    assert.equal(fitName('session', '.compactor-state.json'), 'session.compactor-state.json');
    const long = 'é'.repeat(120) + 'x'.repeat(20);
    const a = fitName(long, '.compactor-state.json');
    assert.ok(Buffer.byteLength(a) <= NAME_MAX, `${Buffer.byteLength(a)} bytes`);
    assert.equal(a, fitName(long, '.compactor-state.json'));
    assert.notEqual(a, fitName(long.slice(0, -1) + 'y', '.compactor-state.json'), 'another name, another hash');
    assert.ok(a.endsWith('.compactor-state.json') && a.startsWith('éé'));
  });

  it('a 250-character transcript name: plan reads, compact (in place and fork) writes, Restore lists and restores', async () => {
    dir = tempDir('ac-long-');
    const file = join(dir, 'a'.repeat(244) + '.jsonl');
    assert.equal(basename(file).length, 250);
    copyFileSync(fixture('with-compactions.jsonl'), file);
    const original = readFileSync(file);
    for (const p of [
      statePath(file),
      toolResultsDir(file),
      lockPath(file),
      tempPathFor(file),
      tempPathFor(statePath(file)),
    ])
      assert.ok(Buffer.byteLength(basename(p)) <= NAME_MAX, p);
    await planCompaction(await inspectFile(file), settings);
    const res = await compactFile(file, { summarizer: 'extractive', inPlace: true, settings });
    assert.ok(existsSync(statePath(file)) && existsSync(manifestPath(res.backup!)));
    assert.deepEqual(await listBackups(file), [res.backup]);
    await planCompaction(await inspectFile(file), settings, await loadState(file)); // now with a state file, read at the edge
    await restoreBackup(file, res.backup!);
    assert.ok(readFileSync(file).equals(original));
    for (const name of readdirSync(dir)) assert.ok(Buffer.byteLength(name) <= NAME_MAX, name);
    const fork = await compactFile(file, { summarizer: 'extractive', settings });
    assert.ok(existsSync(fork.output));
  });
});
