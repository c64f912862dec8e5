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
import { chmodSync, copyFileSync, cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compactFile } from '../../../src/core/compact/compact';
import { listBackups, restoreBackup } from '../../../src/core/compact/backup';
import { acquireLock } from '../../../src/core/io/lock';
import { backupFault } from '../../../src/core/io/backups';
import { CompactError } from '../../../src/core/compact/types';
import { undoCompaction } from '../../../src/core/compact/undo';
import { readUndoRecord, writeUndoRecord } from '../../../src/core/compact/undoRecord';
import { repairFile } from '../../../src/core/repair/repair';
import { forkBeforeCompaction } from '../../../src/core/repair/forkBefore';
import { inspectFile } from '../../../src/core/inspect';
import { fixture, sharedFixtures } from '../../support/fixtures';
import { assertCliBuilt } from '../../support/cli';
import { bundleCrashChild } from '../../support/crashChild';
import { buildTranscript, Rng, secs } from '../../support/reliability';
import { tempDir } from '../../support/temp';

const KILLS = Number(process.env.CRASH_VERB_KILLS ?? 12);
const SEED = Number(process.env.CRASH_SEED ?? 7);
/** The bundled crash child (bundleCrashChild), made in before(). */
let CHILD: string;
const SETTINGS = { targetTokens: 60_000, keepRecentTokens: 20_000, maxToolResultChars: 2_000 };
const CODEX_SETTINGS = { targetTokens: 20_000 };
const CODEX_FIXTURE = 'rollout-0.142.jsonl';
const ROLLOUT = 'rollout-2026-01-02T00-00-00-019ed917-1cf7-72a3-92f5-c0aa98fb134e.jsonl';

interface Run {
  killed: boolean;
  /** Killed before the child said it was done. */
  inside: boolean;
  /** Milliseconds from `ready` to the exit. */
  ms: number;
  /** Milliseconds from `ready` to `done` or `error` (the verb's whole run), when the child said so before the kill. */
  runMs: number | null;
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
    let runMs: number | null = null;
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString();
      if (ready && !killSent && runMs === null && /\n(done|error) /.test(`\n${output}`)) runMs = Date.now() - ready;
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
        runMs,
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

/** What a verb's run may leave, and how the user finishes the job after a kill. */
interface Verb {
  name: string;
  /** The session it runs on, in a fresh copy of the template folder: `s.jsonl` unless said. */
  session?: string;
  /** The child's arguments after the file. */
  args: (dir: string) => string[];
  /** Puts the session as the verb finds it into a fresh copy (default: as the template holds it). */
  prepare?: (dir: string) => void;
  /**
   * Whether `now`, the session after a run that changed it, is the verb's result (the reference run's bytes for a
   * verb whose output is fixed; checked otherwise for one that stamps the time).
   */
  isResult: (now: Buffer, reference: Buffer, file: string) => Promise<boolean> | boolean;
  /** Runs the verb again in this process (the user's retry after the kill). */
  again: (file: string, dir: string) => Promise<unknown>;
  /** Files other than backups the run may leave (a fork): each must be whole. */
  newFiles?: (dir: string, reference: Map<string, Buffer>, label: string) => number;
}

/** Files of `dir` the template does not hold: new sessions (not hidden temporary files, not backups or their side files). */
const forks = (dir: string, template: string) => {
  const had = new Set(readdirSync(template));
  return readdirSync(dir).filter(
    (n) => !had.has(n) && !n.startsWith('.') && n.endsWith('.jsonl') && !n.includes('.bak-'),
  );
};

describe('crash safety: SIGKILL during restore, undo, repair, a Codex compaction and fork-before', function () {
  this.timeout(20 * 60_000);
  let root: string;
  let template: string;
  /** The session before the compaction (what its backup holds) and after it (what restore and undo replace). */
  let original: Buffer;
  let backupName: string;

  before(async function () {
    this.timeout(300_000);
    assertCliBuilt();
    CHILD = await bundleCrashChild('crash-child-verbs.js');
    root = tempDir('ac-crash-verbs-');
    template = join(root, 'template');
    mkdirSync(template);
    const file = join(template, 's.jsonl');
    writeFileSync(file, bigSession().join('\n') + '\n');
    original = readFileSync(file);
    // An in-place compaction as `agent-compactor compact` makes one: its backup, and the record undo reads.
    const res = await compactFile(file, { summarizer: 'extractive', inPlace: true, settings: SETTINGS });
    await writeUndoRecord(file, res);
    backupName = res.backup!.slice(template.length + 1);
    assert.ok(original.length > 12e6, `the session is ${original.length} bytes`);
    // A Codex rollout (its own writer: the compaction is appended as Codex items) and a Claude Code session with
    // compactions of its own (fork-before copies what came before one).
    copyFileSync(join(sharedFixtures, 'codex', CODEX_FIXTURE), join(template, ROLLOUT));
    chmodSync(join(template, ROLLOUT), 0o644);
    copyFileSync(fixture('with-compactions.jsonl'), join(template, 'agent.jsonl'));
    chmodSync(join(template, 'agent.jsonl'), 0o644);
  });
  after(() => root && rmSync(root, { recursive: true, force: true }));

  /** A copy of the template's files of the verb's session (its name up to `.jsonl`, then a dot: backups, records, sidecars). */
  const fresh = (name: string, verb: Verb): string => {
    const dir = join(root, name);
    const stem = (verb.session ?? 's.jsonl').replace(/\.jsonl$/, '.');
    mkdirSync(dir);
    for (const n of readdirSync(template))
      if (n.startsWith(stem)) cpSync(join(template, n), join(dir, n), { recursive: true });
    verb.prepare?.(dir);
    return dir;
  };
  const sameAsReference = (now: Buffer, reference: Buffer) => now.equals(reference);

  const verbs: Verb[] = [
    {
      name: 'restore',
      args: (dir) => ['restore', join(dir, backupName)],
      isResult: sameAsReference,
      again: (file, dir) => restoreBackup(file, join(dir, backupName)),
    },
    {
      name: 'undo',
      args: () => ['undo'],
      isResult: sameAsReference,
      again: async (file) => undoCompaction(file, await readUndoRecord(file)),
    },
    {
      name: 'repair',
      args: () => ['repair'],
      prepare: (dir) => writeFileSync(join(dir, 's.jsonl'), original),
      isResult: sameAsReference,
      again: (file) => repairFile(file, { inPlace: true }),
    },
    {
      name: 'compact (a Codex rollout)',
      session: ROLLOUT,
      args: () => ['compact', JSON.stringify(CODEX_SETTINGS)],
      // The compaction is appended after the rollout's bytes, stamped with the time: the original is its prefix and
      // the result reads as a whole Codex rollout again.
      isResult: async (now, _reference, file) => {
        const before = readFileSync(join(template, ROLLOUT));
        if (now.length <= before.length || !now.subarray(0, before.length).equals(before)) return false;
        const a = await inspectFile(file, { subagents: false });
        return a.report.malformed.length === 0;
      },
      again: (file) =>
        compactFile(file, { summarizer: 'extractive', inPlace: true, settings: CODEX_SETTINGS }).catch((e: unknown) => {
          if (!(e instanceof CompactError && e.code === 'nothing-to-compact')) throw e;
        }),
    },
    {
      name: 'fork-before',
      session: 'agent.jsonl',
      args: () => ['fork-before', '1'],
      isResult: () => false, // the original is never written
      again: (file) => forkBeforeCompaction(file, 1),
      newFiles: (dir, reference, label) => {
        const made = forks(dir, template);
        for (const n of made)
          assert.ok(
            [...reference.values()].some((r) => r.equals(readFileSync(join(dir, n)))),
            `${label}: the fork ${n} is not whole`,
          );
        return made.length;
      },
    },
  ];

  for (const verb of verbs) {
    it(`${verb.name}: ${KILLS} kills across its run leave the session before or after, whole backups and forks only, and the verb then succeeds`, async () => {
      const started = Date.now();
      const session = verb.session ?? 's.jsonl';
      const ref = fresh(`${verb.name}-reference`.replace(/\W+/g, '-'), verb);
      const before = readFileSync(join(ref, session));
      const refRun = await runChild(join(ref, session), verb.args(ref), null);
      assert.match(refRun.output, /\ndone\n/, refRun.output);
      const reference = readFileSync(join(ref, session));
      const referenceForks = new Map(forks(ref, template).map((n) => [n, readFileSync(join(ref, n))]));
      if (verb.newFiles) assert.equal(referenceForks.size, 1, 'the reference run wrote one fork');
      else
        assert.ok(
          !reference.equals(before) && (await verb.isResult(reference, reference, join(ref, session))),
          'the reference run changed the session',
        );
      if (verb.name === 'restore' || verb.name === 'undo')
        assert.ok(reference.equals(original), 'restore and undo put the original back');

      const rng = new Rng(SEED);
      // The shortest whole run so far: a kill aimed at a fraction of the run follows the machine as its speed changes
      // (aimed at the reference run's length alone, the later fractions of a faster machine all land after the run).
      let shortest = refRun.ms;
      const counts = { runs: 0, inside: 0, before: 0, after: 0, retried: 0, wholeBackups: 0, notWhole: 0, forks: 0 };
      for (let k = 0; k < KILLS; k++) {
        const fraction = (k + rng.next()) / KILLS;
        let delayMs = Math.round(fraction * shortest);
        for (let n = 0; ; n++) {
          const dir = fresh(`${verb.name}-${k}-${n}`.replace(/\W+/g, '-'), verb);
          const file = join(dir, session);
          const backupsBefore = new Set(await listBackups(file));
          const r = await runChild(file, verb.args(dir), delayMs);
          counts.runs++;
          if (r.runMs !== null) shortest = Math.min(shortest, r.runMs);
          const label = `${verb.name} killed ${delayMs} ms after ready (${r.inside ? 'inside the run' : 'after it finished'})`;
          const now = readFileSync(file);
          let done: boolean;
          if (now.equals(before)) done = false;
          else {
            done = await verb.isResult(now, reference, file);
            assert.ok(done, `${label}: the session is neither what it was nor the verb's result (${now.length} bytes)`);
          }
          counts[done ? 'after' : 'before']++;
          if (verb.newFiles) {
            const made = verb.newFiles(dir, referenceForks, label);
            counts.forks += made;
            done = made > 0;
          }
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
          if (!done) {
            await verb.again(file, dir);
            const after = readFileSync(file);
            if (verb.newFiles)
              assert.ok(verb.newFiles(dir, referenceForks, `${label}, run again`) >= 1, `${label}: no fork`);
            else {
              assert.ok(
                await verb.isResult(after, reference, file),
                `${label}: the verb run again did not give its result`,
              );
            }
          } else {
            // Done before the kill; the dead process's lock, if left, is taken over by the next operation.
            await (await acquireLock(file)).release();
          }
          assert.ok(
            !readdirSync(dir).some((n) => n.endsWith('.compactor.lock')),
            `${label}: a lock is left after the next operation`,
          );
          rmSync(dir, { recursive: true, force: true });
          if (r.inside) {
            counts.inside++;
            break;
          }
          assert.ok(n < 12, `${label}: no kill landed inside the run in ${n + 1} attempts`);
          counts.retried++;
          delayMs = Math.min(Math.floor(delayMs / 2), Math.round(fraction * shortest));
        }
      }
      console.log(
        `      ${verb.name}: reference ${refRun.ms} ms; ${JSON.stringify(counts)}; ${secs(Date.now() - started)} s`,
      );
      assert.equal(counts.inside, KILLS, 'every kill landed inside a run');
    });
  }
});
