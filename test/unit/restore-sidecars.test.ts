// Restore From Backup after in-place compactions: the transcript, its state file and its saved
// tool results come back exactly as they were before the compaction whose backup is restored.
import { strict as assert } from 'node:assert';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, join, relative } from 'node:path';
import { compactFile } from '../../src/core/compact/compact';
import { listBackups, restoreBackup, transcriptOfBackup } from '../../src/core/compact/backup';
import { statePath, toolResultsDir } from '../../src/core/compact/state';
import { fixture } from '../support/fixtures';
import { tempDir } from '../support/temp';

/** Every file under `dir` but backups and what is recorded beside them: path → bytes (hex for a readable diff). */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const full = join(d, e.name);
      if (e.name.includes('.bak-')) continue;
      if (e.isDirectory()) {
        out[relative(dir, full) + '/'] = '';
        walk(full);
      } else out[relative(dir, full)] = readFileSync(full).toString('base64');
    }
  };
  walk(dir);
  return out;
}

describe('Restore From Backup brings back the sidecars of an in-place compaction', function () {
  this.timeout(300_000);
  let dir: string;
  let file: string;
  const first = { targetTokens: 60_000, keepRecentTokens: 20_000, maxToolResultChars: 2_000 };
  const second = { targetTokens: 30_000, keepRecentTokens: 10_000 };

  beforeEach(() => {
    dir = tempDir('ac-restore-');
    mkdirSync(dir, { recursive: true });
    file = join(dir, 'session.jsonl');
    copyFileSync(fixture('with-compactions.jsonl'), file);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('restoring the backup: transcript, state file and tool-results folder exactly as before, byte for byte', async () => {
    // Sidecars from before: a state file (its decisions are remade afresh: none match) and a saved result of another run.
    writeFileSync(statePath(file), JSON.stringify({ version: 1, decisions: {} }) + '\n');
    mkdirSync(toolResultsDir(file));
    writeFileSync(join(toolResultsDir(file), 'toolu_earlier.txt'), 'an earlier saved result\n');
    const before = snapshot(dir);
    const res = await compactFile(file, { summarizer: 'extractive', inPlace: true, settings: first });
    const after = snapshot(dir);
    assert.notEqual(
      after[basename(statePath(file))],
      before[basename(statePath(file))],
      'the compaction changed the state file',
    );
    assert.ok(Object.keys(after).filter((k) => !(k in before)).length > 0, 'the compaction saved tool results');

    assert.deepEqual(
      await listBackups(file),
      [res.backup],
      'only transcript backups are listed, not the files recorded beside them',
    );
    await restoreBackup(file, res.backup!);
    assert.deepEqual(snapshot(dir), before);
  });

  it('restoring a backup taken before any sidecar existed removes them (and leaves unlisted files alone)', async () => {
    const before = snapshot(dir);
    const one = await compactFile(file, { summarizer: 'extractive', inPlace: true, settings: first });
    await compactFile(file, { summarizer: 'extractive', inPlace: true, settings: second });
    // A file no compaction created: never removed.
    const foreign = join(toolResultsDir(file), 'mine.txt');
    writeFileSync(foreign, 'not a saved result\n');
    await restoreBackup(file, one.backup!);
    assert.ok(!existsSync(statePath(file)), 'the state file is gone');
    assert.equal(readFileSync(foreign, 'utf8'), 'not a saved result\n');
    assert.deepEqual(readdirSync(toolResultsDir(file)), ['mine.txt'], 'only the unlisted file is left in the folder');
    rmSync(toolResultsDir(file), { recursive: true });
    assert.deepEqual(snapshot(dir), before);
  });

  it('restoring the safety backup undoes the restore of the state file', async () => {
    const res = await compactFile(file, { summarizer: 'extractive', inPlace: true, settings: first });
    const compacted = readFileSync(file);
    const state = readFileSync(statePath(file));
    const { safety } = await restoreBackup(file, res.backup!);
    assert.ok(!existsSync(statePath(file)));
    await restoreBackup(file, safety);
    assert.ok(readFileSync(file).equals(compacted));
    assert.ok(readFileSync(statePath(file)).equals(state), 'the state file of the compacted transcript is back');
    assert.ok(statSync(file).isFile());
  });
});

describe('which transcript a backup belongs to (Restore is offered only where one exists)', () => {
  it('maps a backup to its transcript and nothing else to anything', () => {
    assert.equal(transcriptOfBackup('/p/s.jsonl.bak-20261123T101010123Z'), '/p/s.jsonl');
    assert.equal(transcriptOfBackup('/p/a.bak-b.jsonl.bak-1'), '/p/a.bak-b.jsonl');
    assert.equal(
      transcriptOfBackup('/p/s.jsonl.bak-1.manifest.json'),
      undefined,
      'the manifest recorded beside a backup',
    );
    assert.equal(
      transcriptOfBackup('/p/s.jsonl.bak-1.compactor-state.json'),
      undefined,
      'the state copy recorded beside a backup',
    );
    assert.equal(transcriptOfBackup('/p/s.jsonl'), undefined);
    assert.equal(transcriptOfBackup('/p/.bak-1'), undefined);
  });

  it('agrees with listBackups on the backups an in-place compaction writes', async () => {
    const dir = tempDir('ac-backup-of-');
    const file = join(dir, 'session.jsonl');
    copyFileSync(fixture('with-compactions.jsonl'), file);
    await compactFile(file, { summarizer: 'extractive', inPlace: true, settings: { targetTokens: 30_000 } });
    const backups = await listBackups(file);
    assert.equal(backups.length, 1);
    for (const name of readdirSync(dir)) {
      const full = join(dir, name);
      assert.equal(transcriptOfBackup(full), backups.includes(full) ? file : undefined, name);
    }
  });
});
