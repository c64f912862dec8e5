// Restore and undo write through the one commit, and only from a backup known to be whole (issue 31, items 1, 3, 4):
// a backup cut short by a crash (no manifest, or bytes other than its manifest records) is refused with the reason,
// and the CLI's default skips it for the newest whole one; undo of an in-place compaction refuses, changing nothing,
// once the session went on; a restore that fails at any write (a full disk) changes nothing and leaves nothing
// behind, so the retry restores the backup the user chose, not a safety backup of the content it meant to replace.
// SIGKILL and a live agent appending are in test/integration/property (crash-verbs, live-append).
import { strict as assert } from 'node:assert';
import { appendFileSync, copyFileSync, existsSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
// The module object itself (not an import namespace, whose bindings are read-only): the product calls through it.
import fsp from 'node:fs/promises';
import { basename, join } from 'node:path';
import { compactFile } from '../../src/core/compact/compact';
import { listBackups, restoreBackup } from '../../src/core/compact/backup';
import { lockPath } from '../../src/core/io/lock';
import { manifestPath } from '../../src/core/io/backups';
import { CompactError } from '../../src/core/compact/types';
import { undoCompaction } from '../../src/core/compact/undo';
import { runCliInProcess } from '../support/cliInProcess';
import { fixture } from '../support/fixtures';
import { diffSnapshots, snapshotDir } from '../support/reliability';
import { tempDir } from '../support/temp';

const settings = { targetTokens: 60_000, keepRecentTokens: 20_000, maxToolResultChars: 2_000 };
const NO_CHANGE = { added: [], removed: [], changed: [] };
const refusedAs = (code: string, re: RegExp) => (e: unknown) =>
  e instanceof CompactError && e.code === code && re.test(e.message);
/** A turn the agent adds after the compaction. */
const NEW_TURN =
  JSON.stringify({
    type: 'user',
    uuid: 'after-the-compaction',
    parentUuid: null,
    message: { role: 'user', content: 'a turn added after the compaction' },
  }) + '\n';

describe('restore and undo: only whole backups, nothing lost', function () {
  this.timeout(120_000);
  let dir: string;
  let file: string;
  let original: Buffer;

  beforeEach(() => {
    dir = tempDir('ac-whole-');
    file = join(dir, 'session.jsonl');
    copyFileSync(fixture('with-compactions.jsonl'), file);
    original = readFileSync(file);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('a backup cut short by a crash (no manifest) is refused; the CLI restores the newest whole one and names the one it skipped', async () => {
    const res = await compactFile(file, { summarizer: 'extractive', inPlace: true, settings });
    const compacted = readFileSync(file);
    // What a crash while copying left under a backup's name before backups were made whole: a newer, shorter copy.
    const cut = `${file}.bak-29990101-000000-000`;
    writeFileSync(cut, compacted.subarray(0, 1_000_000));
    assert.deepEqual(await listBackups(file), [cut, res.backup]);

    const before = snapshotDir(dir);
    await assert.rejects(
      restoreBackup(file, cut),
      refusedAs('bad-backup', /has no manifest, so it is not known to be whole/),
    );
    assert.deepEqual(diffSnapshots(before, snapshotDir(dir)), NO_CHANGE);
    const explicit = await runCliInProcess(['restore', file, '--backup', cut]);
    assert.equal(explicit.status, 2, explicit.stderr);
    assert.match(explicit.stderr, /not known to be whole/);
    assert.deepEqual(diffSnapshots(before, snapshotDir(dir)), NO_CHANGE);

    const run = await runCliInProcess(['restore', file]);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, new RegExp(`skipped .*${basename(cut)}: .*has no manifest`));
    assert.match(run.stdout, new RegExp(`restored .* from .*${basename(res.backup!)}`));
    assert.ok(readFileSync(file).equals(original), 'the whole backup, the original, is back');
  });

  it('a backup whose bytes are not the ones its manifest records (cut short or changed since) is refused, nothing changed', async () => {
    const res = await compactFile(file, { summarizer: 'extractive', inPlace: true, settings });
    const backup = res.backup!;
    const before = snapshotDir(dir);
    const whole = readFileSync(backup);
    truncateSync(backup, whole.length - 10);
    await assert.rejects(restoreBackup(file, backup), refusedAs('bad-backup', /\d+ bytes, not \d+/));
    writeFileSync(backup, Buffer.concat([whole.subarray(0, 10), Buffer.from('X'), whole.subarray(11)]));
    await assert.rejects(restoreBackup(file, backup), refusedAs('bad-backup', /its sha256 differs/));
    const after = snapshotDir(dir);
    assert.deepEqual(diffSnapshots(before, after), { added: [], removed: [], changed: [basename(backup)] });
    // Of the same size as recorded: the CLI's default takes it, and the restore finds the bytes differ as it copies.
    const run = await runCliInProcess(['restore', file]);
    assert.equal(run.status, 2, run.stdout);
    assert.match(run.stderr, /is not the backup its manifest describes \(its sha256 differs\)/);
    truncateSync(backup, whole.length - 10);
    const shorter = await runCliInProcess(['restore', file]);
    assert.equal(shorter.status, 2, shorter.stdout);
    assert.match(shorter.stderr, /no backup of .* is known to be whole: .*not the \d+ its manifest recorded/);
    assert.deepEqual(diffSnapshots(after, snapshotDir(dir)), { added: [], removed: [], changed: [basename(backup)] });
  });

  it('a backup of an older version (a version 1 manifest, no size or hash) is refused with the reason', async () => {
    const backup = `${file}.bak-20260101-000000-000`;
    copyFileSync(file, backup);
    writeFileSync(
      manifestPath(backup),
      JSON.stringify({ version: 1, state: 'none', toolResultsDirCreated: false, toolResults: [] }),
    );
    appendFileSync(file, NEW_TURN);
    const before = snapshotDir(dir);
    await assert.rejects(
      restoreBackup(file, backup),
      refusedAs('bad-backup', /made by an older version that did not record its size and hash/),
    );
    assert.deepEqual(diffSnapshots(before, snapshotDir(dir)), NO_CHANGE);
  });

  it('undo of an in-place compaction after the session went on refuses and changes nothing; before, it puts the original back', async () => {
    // The CLI's way: the record beside the session.
    const compact = await runCliInProcess(['compact', file, '--in-place', '--summarizer', 'extractive']);
    assert.equal(compact.status, 0, compact.stderr);
    appendFileSync(file, NEW_TURN);
    const before = snapshotDir(dir);
    const undo = await runCliInProcess(['undo', file]);
    assert.equal(undo.status, 2, undo.stdout);
    assert.match(undo.stderr, /went on after the compaction: \d+ bytes were added since .*nothing was changed/);
    assert.deepEqual(diffSnapshots(before, snapshotDir(dir)), NO_CHANGE, 'the new turn stays, nothing moved aside');

    // The extension's way: the result in memory. Undone while nothing was added: the original comes back.
    copyFileSync(fixture('with-compactions.jsonl'), file);
    const res = await compactFile(file, { summarizer: 'extractive', inPlace: true, settings });
    const compacted = readFileSync(file);
    appendFileSync(file, NEW_TURN);
    await assert.rejects(undoCompaction(file, res), refusedAs('changed-on-disk', /went on after the compaction/));
    writeFileSync(file, compacted);
    const safety = await undoCompaction(file, res);
    assert.ok(readFileSync(file).equals(original));
    assert.ok(readFileSync(safety!).equals(compacted), 'the compacted version is kept as a backup');
    // A session changed in place (not only added to) is refused too.
    await compactFile(file, { summarizer: 'extractive', inPlace: true, settings });
    const last = await compactFile(file, {
      summarizer: 'extractive',
      inPlace: true,
      settings: { targetTokens: 30_000 },
    });
    const now = readFileSync(file);
    now[now.length - 2] = 0x20;
    writeFileSync(file, now);
    await assert.rejects(
      undoCompaction(file, last),
      refusedAs('changed-on-disk', /is no longer what the compaction wrote/),
    );
  });

  it('a restore failing at any write (a full disk) changes nothing and leaves nothing; the retry restores the chosen backup', async () => {
    const res = await compactFile(file, { summarizer: 'extractive', inPlace: true, settings });
    const chosen = res.backup!;
    // Writes that can meet a full disk: creating a file for writing, linking, renaming, writing a whole file.
    type Patched = 'open' | 'link' | 'rename' | 'writeFile';
    const real = { open: fsp.open, link: fsp.link, rename: fsp.rename, writeFile: fsp.writeFile };
    const writes = (name: Patched, args: unknown[]) =>
      name !== 'open' || (typeof args[1] === 'string' ? /[wax+]/.test(args[1]) : ((args[1] as number) & 3) !== 0);
    let failAt = 0;
    let calls = 0;
    const patch = () => {
      for (const name of Object.keys(real) as Patched[])
        (fsp as Record<Patched, unknown>)[name] = (...args: unknown[]) => {
          if (writes(name, args) && ++calls === failAt) {
            const err = new Error(`ENOSPC: no space left on device, ${name}`) as NodeJS.ErrnoException;
            err.code = 'ENOSPC';
            return Promise.reject(err);
          }
          return (real[name] as (...a: unknown[]) => Promise<unknown>)(...args);
        };
    };
    const unpatch = () => Object.assign(fsp, real);
    let failures = 0;
    try {
      for (failAt = 1; ; failAt++) {
        const before = snapshotDir(dir);
        calls = 0;
        patch();
        const outcome = await restoreBackup(file, chosen).then(
          () => null,
          (e: unknown) => e,
        );
        unpatch();
        // Done once no write failed, or the one that failed was not needed (the lock's removal claim: the lock is
        // then removed directly, checked below).
        if (outcome === null) break;
        failures++;
        assert.ok(
          outcome instanceof CompactError && outcome.code === 'write-failed',
          `write ${failAt}: ${outcome instanceof Error ? outcome.stack : JSON.stringify(outcome)}`,
        );
        assert.deepEqual(diffSnapshots(before, snapshotDir(dir)), NO_CHANGE, `write ${failAt} failed: nothing changed`);
        assert.deepEqual(
          await listBackups(file),
          [chosen],
          'no backup of the compacted content is left to be restored',
        );
      }
    } finally {
      unpatch();
    }
    assert.ok(failures >= 8, `the restore made ${failures} writes that were failed in turn`);
    assert.ok(readFileSync(file).equals(original), 'the retry restored the chosen backup');
    assert.ok(!existsSync(lockPath(file)), 'the lock is released even when the disk is full');
  });
});
