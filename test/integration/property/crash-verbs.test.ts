// Crash safety of the other writing verbs: restore, undo and repair, in place, each SIGKILLed at every stretch of its
// run (compact is in crash.test.ts, stopped at each of its steps). A child process (test/support/crash-child.ts) runs
// the verb on a fresh copy of a session of about 13 MB (so its copies, hashes and fsyncs take long enough for kills to
// land inside them); the parent kills it at stratified fractions of the time a reference run took, counted from
// `ready`. A kill that lands after the run finished is tried again sooner, down to a kill right at `ready`.
//
// After every kill: the session is byte for byte what it was or what the verb makes of it, never anything between;
// every backup known to be whole (its manifest, written last, says so and its bytes agree) holds exactly the content
// it backed up, and a backup that is not whole is refused by restore; then the verb run again (taking over the dead
// process's lock) gives the reference result. Issue 31, item 1: a restore killed while it made its safety backup
// left a cut-short backup that the next restore put back.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { compactFile } from '../../../src/core/compact/compact';
import { listBackups, restoreBackup } from '../../../src/core/compact/backup';
import { acquireLock } from '../../../src/core/compact/fsutil';
import { backupFault } from '../../../src/core/compact/sidecars';
import { CompactError } from '../../../src/core/compact/types';
import { undoCompaction } from '../../../src/core/compact/undo';
import { readUndoRecord, writeUndoRecord } from '../../../src/core/compact/undoRecord';
import { repairFile } from '../../../src/core/repair';
import { repoRoot } from '../../support/fixtures';
import { assertCliBuilt } from '../../support/cli';
import { buildTranscript, Rng, secs } from '../../support/reliability';

const KILLS = Number(process.env.CRASH_VERB_KILLS ?? 16);
const SEED = Number(process.env.CRASH_SEED ?? 7);
const CHILD_SOURCE = join(__dirname, '..', '..', 'support', 'crash-child.ts');
// Its own bundle: crash.test.ts builds the same source to another file, and the two may run side by side.
const CHILD = join(repoRoot, 'dist-test', 'crash-child-verbs.js');
const SETTINGS = { targetTokens: 60_000, keepRecentTokens: 20_000, maxToolResultChars: 2_000 };

interface Run {
  killed: boolean;
  /** Killed before the child said it was done. */
  inside: boolean;
  /** Milliseconds from `ready` to the exit. */
  ms: number;
  output: string;
}

/** Runs the verb on the session in `dir`, killing it `delayMs` after `ready` (null: never). */
function runChild(file: string, verb: string[], delayMs: number | null): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CHILD, file, '{}', ...verb], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let ready = 0;
    let killSent = false;
    let doneBeforeKill = false;
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString();
      if (!ready && output.includes('ready\n')) {
        ready = Date.now();
        if (delayMs !== null)
          setTimeout(() => {
            doneBeforeKill = /\n(done|error) /.test(`\n${output}`);
            killSent = true;
            child.kill('SIGKILL');
          }, delayMs);
      }
    });
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('close', (_code, signal) => {
      const killed = signal === 'SIGKILL';
      resolve({
        killed,
        inside: killed && killSent && !doneBeforeKill,
        ms: Date.now() - (ready || Date.now()),
        output,
      });
    });
  });
}

/** A session of about 13 MB with one broken link (so repair has a link to mend), as `lines`. */
function bigSession(): string[] {
  const lines = buildTranscript({ rounds: 240, textChars: 20_000, resultChars: (r) => (r % 5 === 0 ? 40_000 : 8_000) });
  // A line in the middle goes: the next one names a parent that is not there.
  lines.splice(Math.floor(lines.length / 2), 1);
  return lines;
}

interface Verb {
  name: 'restore' | 'undo' | 'repair';
  /** The child's arguments after the file. */
  args: (dir: string) => string[];
}

describe('crash safety: SIGKILL during restore, undo and repair', function () {
  this.timeout(20 * 60_000);
  let root: string;
  let template: string;
  /** The session before the compaction (what its backup holds) and after it (what restore and undo replace). */
  let original: Buffer;
  let compacted: Buffer;
  let backupName: string;

  before(async function () {
    this.timeout(300_000);
    assertCliBuilt();
    await build({
      entryPoints: [CHILD_SOURCE],
      outfile: CHILD,
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      logLevel: 'warning',
    });
    root = mkdtempSync(join(tmpdir(), 'ac-crash-verbs-'));
    template = join(root, 'template');
    mkdirSync(template);
    const file = join(template, 's.jsonl');
    writeFileSync(file, bigSession().join('\n') + '\n');
    original = readFileSync(file);
    // An in-place compaction as `agent-compactor compact` makes one: its backup, and the record undo reads.
    const res = await compactFile(file, { summarizer: 'extractive', inPlace: true, settings: SETTINGS });
    await writeUndoRecord(file, res);
    compacted = readFileSync(file);
    backupName = res.backup!.slice(template.length + 1);
    assert.ok(original.length > 12e6, `the session is ${original.length} bytes`);
  });
  after(() => root && rmSync(root, { recursive: true, force: true }));

  /** A fresh copy of the template; for repair, the original session (broken link and all) in place. */
  const fresh = (name: string, verb: Verb['name']): string => {
    const dir = join(root, name);
    cpSync(template, dir, { recursive: true });
    if (verb === 'repair') writeFileSync(join(dir, 's.jsonl'), original);
    return dir;
  };

  const verbs: Verb[] = [
    { name: 'restore', args: (dir) => ['restore', join(dir, backupName)] },
    { name: 'undo', args: () => ['undo'] },
    { name: 'repair', args: () => ['repair'] },
  ];

  for (const verb of verbs) {
    it(`${verb.name}: ${KILLS} kills across its run leave the session before or after, whole backups only, and the verb then succeeds`, async () => {
      const started = Date.now();
      const ref = fresh(`${verb.name}-reference`, verb.name);
      const refRun = await runChild(join(ref, 's.jsonl'), verb.args(ref), null);
      assert.match(refRun.output, /\ndone\n/, refRun.output);
      const before = verb.name === 'repair' ? original : compacted;
      const after = readFileSync(join(ref, 's.jsonl'));
      assert.ok(!after.equals(before), 'the reference run changed the session');
      if (verb.name !== 'repair') assert.ok(after.equals(original), 'restore and undo put the original back');

      const rng = new Rng(SEED);
      const counts = { runs: 0, inside: 0, before: 0, after: 0, retried: 0, wholeBackups: 0, notWhole: 0 };
      for (let k = 0; k < KILLS; k++) {
        let delayMs = Math.round(((k + rng.next()) / KILLS) * refRun.ms);
        for (let n = 0; ; n++) {
          const dir = fresh(`${verb.name}-${k}-${n}`, verb.name);
          const file = join(dir, 's.jsonl');
          const backupsBefore = new Set(await listBackups(file));
          const r = await runChild(file, verb.args(dir), delayMs);
          counts.runs++;
          const label = `${verb.name} killed ${delayMs} ms after ready (${r.inside ? 'inside the run' : 'after it finished'})`;
          const now = readFileSync(file);
          if (now.equals(before)) counts.before++;
          else if (now.equals(after)) counts.after++;
          else assert.fail(`${label}: the session is neither what it was nor the verb's result (${now.length} bytes)`);
          // Every backup this run made: whole ones hold what was replaced; others are refused by restore.
          for (const b of await listBackups(file)) {
            if (backupsBefore.has(b)) continue;
            const fault = await backupFault(b, true);
            if (fault === null) {
              counts.wholeBackups++;
              assert.ok(
                readFileSync(b).equals(before),
                `${label}: the whole backup ${b} is not the content it replaced`,
              );
            } else {
              counts.notWhole++;
              await assert.rejects(
                restoreBackup(file, b),
                (e: unknown) => e instanceof CompactError && e.code === 'bad-backup',
                `${label}: a backup that is not whole was restored`,
              );
            }
          }
          // The verb again, as the user would: it takes over the dead process's lock and finishes the job.
          if (now.equals(before)) {
            if (verb.name === 'restore') await restoreBackup(file, join(dir, backupName));
            else if (verb.name === 'undo') await undoCompaction(file, await readUndoRecord(file));
            else await repairFile(file, { inPlace: true });
            assert.ok(
              readFileSync(file).equals(after),
              `${label}: the verb run again did not give the reference result`,
            );
          } else {
            // Done before the kill; the dead process's lock, if left, is taken over by the next operation.
            await (await acquireLock(file)).release();
          }
          assert.ok(
            !readdirSync(dir).includes('s.jsonl.compactor.lock'),
            `${label}: a lock is left after the next operation`,
          );
          rmSync(dir, { recursive: true, force: true });
          if (r.inside) {
            counts.inside++;
            break;
          }
          assert.ok(n < 12, `${label}: no kill landed inside the run in ${n + 1} attempts`);
          counts.retried++;
          delayMs = Math.floor(delayMs / 2);
        }
      }
      console.log(
        `      ${verb.name}: reference ${refRun.ms} ms; ${JSON.stringify(counts)}; ${secs(Date.now() - started)} s`,
      );
      assert.equal(counts.inside, KILLS, 'every kill landed inside a run');
    });
  }
});
