// Files beside a transcript come from other people with it: a planted FIFO, a link to a device or a 3 GB (sparse)
// saved result is refused at once, never waited on and never read into memory. Kept out of the unit tier: a
// regression here blocks or fills the process, and the FIFOs are made by `mkfifo`. The rest of what Restore From
// Backup and Undo refuse beside a transcript: test/unit/sidecar-trust.test.ts.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import {
  closeSync,
  copyFileSync,
  ftruncateSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { compactFile } from '../../src/core/compact/compact';
import { restoreBackup } from '../../src/core/compact/backup';
import { manifestPath } from '../../src/core/io/backups';
import { statePath, toolResultsDir } from '../../src/core/compact/state';
import { CompactError } from '../../src/core/compact/types';
import { readSidecar } from '../../src/core/io/sidecarFiles';
import { fixture } from '../support/fixtures';
import { withTimeout, plantedManifest } from '../support/reliability';
import { tempDir } from '../support/temp';

const settings = { targetTokens: 60_000, keepRecentTokens: 20_000, maxToolResultChars: 2_000 };
const KEY = '-----BEGIN OPENSSH PRIVATE KEY-----\nnot really a key\n-----END OPENSSH PRIVATE KEY-----\n';
const unsafe = (re: RegExp) => (e: unknown) =>
  e instanceof CompactError && e.code === 'unsafe-path' && re.test(e.message);

describe('Restore From Backup and compact never block on or read what is planted beside a transcript', function () {
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

  it('the state file or a manifest as a FIFO: refused at once, never waited on', async () => {
    execFileSync('mkfifo', [manifestPath(backup)]);
    await withTimeout(
      assert.rejects(restoreBackup(file, backup), unsafe(/manifest\.json: it is a named pipe/)),
      30_000,
      'restore with a FIFO manifest',
    );
    // A whole backup's manifest, so that the restore goes on to read the state file.
    rmSync(manifestPath(backup));
    writeFileSync(manifestPath(backup), plantedManifest(backup, null));
    execFileSync('mkfifo', [statePath(file)]);
    await withTimeout(
      assert.rejects(restoreBackup(file, backup), unsafe(/compactor-state\.json: it is a named pipe/)),
      30_000,
      'restore with a FIFO state file',
    );
    symlinkSync('/dev/zero', join(project, 'zero'));
    await withTimeout(
      assert.rejects(readSidecar(join(project, 'zero'), 1 << 20), unsafe(/a symbolic link/)),
      30_000,
      'a link to /dev/zero',
    );
    writeFileSync(join(project, 'big'), Buffer.alloc(2 << 20));
    await assert.rejects(readSidecar(join(project, 'big'), 1 << 20), unsafe(/more than 1048576 bytes/));
  });

  it('a planted saved tool result of 3 GB (sparse) where a compaction saves one: refused as different, never read', async () => {
    const first = await compactFile(file, { summarizer: 'extractive', settings });
    const saved = first.sidecarsWritten!.toolResults;
    assert.ok(saved.length > 0, 'the compaction saves tool results');
    // The session as before that compaction, and a huge file where its first saved result goes.
    rmSync(first.output);
    rmSync(statePath(first.output));
    rmSync(toolResultsDir(file), { recursive: true });
    mkdirSync(toolResultsDir(file));
    const fd = openSync(saved[0], 'w');
    ftruncateSync(fd, 3 * 1024 ** 3);
    closeSync(fd);
    // (Listed, not hashed: a snapshot would read the 3 GB file itself.)
    const listing = () => [...readdirSync(project), ...readdirSync(toolResultsDir(file))].sort();
    const before = listing();
    const rss = process.memoryUsage().rss;
    await withTimeout(
      assert.rejects(
        compactFile(file, { summarizer: 'extractive', settings }),
        unsafe(/already holds a different saved tool result; it is never overwritten/),
      ),
      60_000,
      'compact beside a 3 GB saved result',
    );
    assert.ok(process.memoryUsage().rss - rss < 512 << 20, 'the file was not read into memory');
    assert.deepEqual(listing(), before, 'nothing was written');
    assert.equal(lstatSync(saved[0]).size, 3 * 1024 ** 3);
  });
});
