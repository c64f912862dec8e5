// Crash safety and concurrency of in-place compaction.
//
// A child process (test/support/crash-child.ts) compacts a copy in place through the library and stops at every
// progress step it reports; the parent SIGKILLs it at a chosen point: exactly at a step (the child is stopped there),
// or some time into the stretch between two steps. A kill meant for a stretch that lands past its end (the next step
// came first, or the run finished) is tried again with half the delay, down to a kill right after the step, so every
// stretch of the run gets kills inside it however fast or loaded the machine is. Afterwards the transcript is either
// untouched (same bytes) or fully replaced by a valid compacted file (original bytes as its prefix, re-parses,
// resumes), with a byte-identical backup whenever it was replaced; never a partial file under the final name;
// sidecars under their final names are complete. Stale temp files and a stale lock may remain, and a second
// compaction must still succeed (the lock of a dead process is taken over).
//
// Concurrency: a session appended to while it is compacted is refused ('changed-on-disk',
// nothing lost, nothing written); two compactions of one file at once: one wins, the other is
// refused ('locked'), in-process and across processes.
import { strict as assert } from 'node:assert';
import { spawn, spawnSync } from 'node:child_process';
import {
  appendFileSync,
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { COMMITTING, compactFile } from '../../../src/core/compact/compact';
import { CompactError } from '../../../src/core/compact/types';
import { checkResumable } from '../../../src/core/compact/validate';
import { inspectFile } from '../../../src/core/inspect';
import { fixture, repoRoot } from '../../support/fixtures';
import { Rng, diffSnapshots, snapshotDir, secs, buildTranscript } from '../../support/reliability';
import { assertCliBuilt } from '../../support/cli';
import { bundleCrashChild } from '../../support/crashChild';
import { tempDir } from '../../support/temp';

const RUNS = Number(process.env.CRASH_RUNS ?? 40);
const SEED = Number(process.env.CRASH_SEED ?? 7);
const SOURCE = fixture('with-compactions.jsonl');
// Summarizes a few rounds and replaces two large tool results, so the run also writes sidecars.
const SETTINGS = { targetTokens: 60_000, keepRecentTokens: 20_000, maxToolResultChars: 2_000 };
/** The bundled crash child (bundleCrashChild), made in before(). */
let CHILD: string;
const cli = join(repoRoot, 'dist', 'cli.js');
const env = { ...process.env };
delete env.ANTHROPIC_API_KEY;

/**
 * Where to kill: `step` is the index of a progress step (-1: the start of the process). `delayMs` null: at the step
 * itself, while the child waits there; a number: that long after the child was let go on from the step.
 */
interface Kill {
  step: number;
  delayMs: number | null;
}

/** A kill inside the stretch after `step`, at `fraction` of it (the stretch's length is only known from earlier runs). */
interface StretchTarget {
  step: number;
  fraction: number;
}

interface ChildRun {
  /** The progress messages the child reported, in order. */
  steps: string[];
  /** Milliseconds from each step (index -1: the spawn) to the next one or the child's exit. */
  stretchMs: number[];
  killed: boolean;
  /** The kill came inside the stretch after `kill.step`: before the next step was reported and before the run ended. */
  inside: boolean;
  code: number | null;
  output: string;
}

/** Runs the child on `file`, letting it go on at every step, and SIGKILLs it as `kill` says (null: never). */
function runChild(file: string, kill: Kill | null): Promise<ChildRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CHILD, file, JSON.stringify(SETTINGS)], {
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const steps: string[] = [];
    const times: number[] = [Date.now()];
    let output = '';
    let pending = '';
    let killSent = false;
    let stepsAtKill = -1;
    const sigkill = () => {
      if (killSent) return;
      killSent = true;
      stepsAtKill = steps.length;
      child.kill('SIGKILL');
    };
    const goOn = () => child.stdin.write('x');
    const afterStep = (delayMs: number) => {
      if (delayMs === 0) sigkill();
      else setTimeout(sigkill, delayMs);
    };
    child.stdin.on('error', () => undefined); // the child may be gone when it is told to go on
    if (kill?.step === -1) afterStep(kill.delayMs ?? 0);
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString();
      pending += d.toString();
      let nl: number;
      while ((nl = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        const m = /^step (\d+) (.*)$/.exec(line);
        if (!m) continue;
        const n = Number(m[1]);
        steps.push(m[2]);
        times.push(Date.now());
        if (killSent) continue;
        if (!kill || n < kill.step) goOn();
        else if (n > kill.step)
          sigkill(); // the next step came first: the kill lands where the child waits now
        else if (kill.delayMs === null) sigkill();
        else {
          goOn();
          afterStep(kill.delayMs);
        }
      }
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code, signal) => {
      times.push(Date.now());
      const killed = signal === 'SIGKILL';
      const stretchMs = times.slice(1).map((t, i) => t - times[i]);
      // Inside: killed before any later step was reported (the child stops at each, so none can slip past unseen).
      const inside =
        killed &&
        kill !== null &&
        kill.delayMs !== null &&
        stepsAtKill === kill.step + 1 &&
        steps.length === kill.step + 1;
      resolve({ steps, stretchMs, killed, inside, code, output: output + stderr });
    });
  });
}

function fresh(root: string, name: string): { dir: string; file: string } {
  const dir = join(root, name);
  mkdirSync(dir);
  const file = join(dir, 's.jsonl');
  copyFileSync(SOURCE, file);
  chmodSync(file, 0o644);
  return { dir, file };
}

/** The transcript is the original, or the original plus a valid compacted tail; returns which. */
let originalMalformed: number[] | undefined;
async function classify(file: string, original: Buffer): Promise<'untouched' | 'replaced'> {
  const now = readFileSync(file);
  if (now.equals(original)) return 'untouched';
  assert.ok(
    now.length > original.length,
    `partial file under the final name: ${now.length} bytes < original ${original.length}`,
  );
  assert.ok(
    now.subarray(0, original.length).equals(original),
    'the replaced file does not start with the original bytes',
  );
  const { report } = await inspectFile(file, { subagents: false });
  originalMalformed ??= (await inspectFile(SOURCE, { subagents: false })).report.malformed.map((m) => m.line);
  assert.deepEqual(
    report.malformed.map((m) => m.line),
    originalMalformed,
    'the compacted tail added malformed lines',
  );
  const check = await checkResumable(file);
  assert.deepEqual(
    check.problems.filter((p) => !/over the .*target/.test(p)),
    [],
    'the replaced file resumes cleanly',
  );
  return 'replaced';
}

type Counts = Record<
  | 'runs'
  | 'killed'
  | 'finished'
  | 'atStep'
  | 'inside'
  | 'retried'
  | 'untouched'
  | 'replaced'
  | 'staleTemp'
  | 'staleLock'
  | 'staleState'
  | 'secondCompacted'
  | 'secondNothingToDo',
  number
>;

/** Everything a killed (or finished) run may leave, checked; then a second compaction, which must succeed. */
async function checkAfterRun(
  dir: string,
  file: string,
  original: Buffer,
  refToolFiles: Map<string, Buffer>,
  label: string,
  counts: Counts,
): Promise<void> {
  const state = await classify(file, original).catch((e: Error) => assert.fail(`${label}: ${e.message}`));
  counts[state]++;
  const names = readdirSync(dir);
  const backups = names.filter((n) => n.startsWith('s.jsonl.bak-') && !/\.(manifest|compactor-state)\.json$/.test(n));
  if (state === 'replaced') {
    assert.ok(backups.length >= 1, `${label}: replaced without a backup`);
    assert.ok(readFileSync(join(dir, backups[0])).equals(original), `${label}: the backup differs from the original`);
  }
  // Whatever exists under a final name is complete: the state parses, the full texts match.
  if (names.includes('s.compactor-state.json')) {
    const st = JSON.parse(readFileSync(join(dir, 's.compactor-state.json'), 'utf8'));
    assert.equal(st.version, 1, label);
    if (state === 'untouched') counts.staleState++;
  }
  if (names.includes('s.tool-results')) {
    for (const n of readdirSync(join(dir, 's.tool-results'))) {
      if (n.startsWith('.')) continue; // a stale temp file of the killed run
      assert.ok(
        refToolFiles.get(n)?.equals(readFileSync(join(dir, 's.tool-results', n))),
        `${label}: partial full-text file ${n}`,
      );
    }
  }
  if (names.some((n) => /^\.s\..*\.tmp-/.test(n))) counts.staleTemp++;
  if (names.includes('s.jsonl.compactor.lock')) counts.staleLock++;

  // A second compaction succeeds (taking over a dead process's lock).
  const beforeSecond = readFileSync(file);
  const calibration = (await inspectFile(file, { subagents: false })).report.totals.calibrationFactor;
  const backupsBefore = new Set(backups);
  const second = await compactFile(file, { summarizer: 'extractive', settings: SETTINGS, inPlace: true }).catch(
    (e: unknown) => e,
  );
  const afterSecond = readFileSync(file);
  const newBackups = readdirSync(dir).filter(
    (n) => n.startsWith('s.jsonl.bak-') && !/\.(manifest|compactor-state)\.json$/.test(n) && !backupsBefore.has(n),
  );
  if (second instanceof CompactError && second.code === 'nothing-to-compact') {
    // Only a file the first run already compacted can be within the target (the original is not: the reference run compacted it).
    assert.equal(state, 'replaced', `${label}: the second compaction found nothing to do in the untouched original`);
    assert.ok(afterSecond.equals(beforeSecond), `${label}: 'nothing to compact' changed the transcript`);
    assert.deepEqual(newBackups, [], `${label}: 'nothing to compact' made a backup`);
    counts.secondNothingToDo++;
  } else {
    assert.ok(
      !(second instanceof Error),
      `${label}: the second compaction failed: ${second instanceof Error ? second.stack : ''}`,
    );
    const res = second as Awaited<ReturnType<typeof compactFile>>;
    assert.equal(res.mode, 'in-place', label);
    assert.equal(res.output, file, label);
    // Appended to what it found (the original, or the first run's result), which is backed up byte for byte.
    assert.ok(
      afterSecond.length > beforeSecond.length && afterSecond.subarray(0, beforeSecond.length).equals(beforeSecond),
      `${label}: the second result does not start with the bytes it compacted`,
    );
    assert.deepEqual(
      newBackups.map((n) => join(dir, n)),
      [res.backup],
      `${label}: one new backup, the one reported`,
    );
    assert.ok(
      readFileSync(res.backup!).equals(beforeSecond),
      `${label}: the second backup differs from the file it replaced`,
    );
    // Resumable the way Claude Code rebuilds it: starts with our summary, API-valid, on the written leaf, within the target.
    const check = await checkResumable(file, {
      calibration,
      expectSummaryFirst: true,
      targetTokens: res.plan.messageTarget,
    });
    assert.deepEqual(check.problems, [], `${label}: the second result does not resume cleanly`);
    assert.equal(res.postTokens, check.estimatedTokens, `${label}: the reported size is the written file's`);
    counts.secondCompacted++;
  }
  assert.ok(!existsSync(join(dir, 's.jsonl.compactor.lock')), `${label}: lock left by the second compaction`);
  assert.ok(
    !readdirSync(dir).some((n) => /^\.s\..*\.tmp-/.test(n) && !names.includes(n)),
    `${label}: temp file left by the second compaction`,
  );
  await classify(file, original).catch((e: Error) =>
    assert.fail(`${label}, after the second compaction: ${e.message}`),
  );
}

describe('crash safety: SIGKILL during in-place compaction', function () {
  this.timeout(20 * 60_000);
  let root: string;
  let original: Buffer;
  before(async function () {
    this.timeout(120_000);
    // dist/tokens-worker.js, which the bundled child finds beside dist-test/.
    assertCliBuilt();
    CHILD = await bundleCrashChild('crash-child.js');
    root = tempDir('ac-crash-');
    original = readFileSync(SOURCE);
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it(`${RUNS} kills at each progress step and inside every stretch between them leave the original or a complete result; a second compaction always succeeds`, async () => {
    const started = Date.now();
    // A reference run without a kill: its steps name the stretches, their lengths seed the delays, its sidecars are
    // the expected contents.
    const ref = fresh(root, 'reference');
    const refRun = await runChild(ref.file, null);
    assert.equal(refRun.code, 0, refRun.output);
    await classify(ref.file, original);
    const steps = refRun.steps;
    assert.ok(
      steps.includes('Writing the compacted transcript…') &&
        steps.includes(COMMITTING) &&
        steps.includes('Backing up the original…'),
      `the run reports the steps around its writes: ${steps.join(' | ')}`,
    );
    const refTools = join(ref.dir, 's.tool-results');
    const refToolFiles = new Map(
      existsSync(refTools) ? readdirSync(refTools).map((n) => [n, readFileSync(join(refTools, n))]) : [],
    );
    assert.ok(
      refToolFiles.size > 0,
      'the reference run replaced tool results, so the kills also hit the full-text sidecars',
    );

    // Targets: a kill at each step (the child waiting there), then kills inside the stretches, the ones holding the
    // writes (after "Writing…" and after "Backing up…") twice as often, at stratified fractions of each stretch.
    const rng = new Rng(SEED);
    const atSteps: Kill[] = steps.map((_, step) => ({ step, delayMs: null }));
    const writes = new Set([
      steps.indexOf('Writing the compacted transcript…'),
      steps.indexOf('Backing up the original…'),
    ]);
    const weighted = [-1, ...steps.keys()].flatMap((step) => (writes.has(step) ? [step, step] : [step]));
    const stretches = Array.from(
      { length: Math.max(0, RUNS - atSteps.length) },
      (_, i) => weighted[i % weighted.length],
    );
    const seen = new Map<number, number>();
    const inStretches: StretchTarget[] = stretches.map((step) => {
      const nth = seen.get(step) ?? 0;
      seen.set(step, nth + 1);
      return { step, fraction: (nth + rng.next()) / stretches.filter((s) => s === step).length };
    });
    // The shortest each stretch has taken in any run so far: delays follow the machine as its speed changes.
    const shortest = [...refRun.stretchMs];

    const counts: Counts = {
      runs: 0,
      killed: 0,
      finished: 0,
      atStep: 0,
      inside: 0,
      retried: 0,
      untouched: 0,
      replaced: 0,
      staleTemp: 0,
      staleLock: 0,
      staleState: 0,
      secondCompacted: 0,
      secondNothingToDo: 0,
    };
    const where = (k: Kill) =>
      k.delayMs === null
        ? `at step ${k.step} (${steps[k.step]})`
        : `${k.delayMs} ms after ${k.step < 0 ? 'the start' : `step ${k.step} (${steps[k.step]})`}`;
    /** One run killed as `kill` says, and everything it left checked. */
    const attempt = async (name: string, kill: Kill): Promise<ChildRun> => {
      const { dir, file } = fresh(root, name);
      const r = await runChild(file, kill);
      counts.runs++;
      if (r.killed) counts.killed++;
      else {
        assert.equal(r.code, 0, `run ${name} finished with ${r.code}: ${r.output}`);
        counts.finished++;
      }
      // Stretches the run went all the way through (each ends at the next step it reported; the last, of a run that
      // finished, at its exit): without the last, its kills stayed aimed at the reference run's, and on a machine
      // faster than then they landed after the exit, each a run tried again.
      const through = r.killed ? r.steps.length : r.steps.length + 1;
      for (let k = 0; k < through; k++) shortest[k] = Math.min(shortest[k], r.stretchMs[k]);
      const label = `run ${name} (kill ${where(kill)}: ${r.killed ? `killed after ${r.steps.length} step(s)` : 'finished first'})`;
      await checkAfterRun(dir, file, original, refToolFiles, label, counts);
      rmSync(dir, { recursive: true, force: true });
      return r;
    };
    for (const [t, kill] of atSteps.entries()) {
      const r = await attempt(`step-${t}`, kill);
      assert.ok(
        r.killed && r.steps.length === kill.step + 1,
        `run step-${t}: the child was not stopped at step ${kill.step}`,
      );
      counts.atStep++;
    }
    for (const [t, target] of inStretches.entries()) {
      let delayMs = Math.max(1, Math.round(target.fraction * shortest[target.step + 1]));
      for (let n = 0; ; n++) {
        const r = await attempt(`stretch-${t}-${n}`, { step: target.step, delayMs });
        if (r.inside) {
          counts.inside++;
          break;
        }
        // Past the stretch (the machine got faster than the runs before): sooner, down to right after the step.
        assert.ok(
          n < 20,
          `run stretch-${t}: no kill landed inside the stretch after step ${target.step} in ${n + 1} attempts`,
        );
        counts.retried++;
        delayMs = Math.min(Math.floor(delayMs / 2), Math.round(target.fraction * shortest[target.step + 1]));
      }
    }
    console.log(
      `\n      crash runs: ${counts.runs} (steps: ${steps.join(' | ')}; reference stretches ${refRun.stretchMs.join('/')} ms); ` +
        `${counts.atStep} killed at a step, ${counts.inside} inside a stretch, ${counts.retried} retried sooner (landed past their stretch: ${counts.finished} of them finished first); ` +
        `afterwards ${counts.untouched} untouched, ${counts.replaced} replaced (all with a byte-identical backup); ` +
        `stale temp files in ${counts.staleTemp}, stale lock in ${counts.staleLock}, sidecars without a replaced transcript in ${counts.staleState}; ` +
        `second compaction: ${counts.secondCompacted} compacted, ${counts.secondNothingToDo} nothing to do; ${refToolFiles.size} full-text sidecar(s) per run; ${secs(Date.now() - started)} s\n`,
    );
    assert.equal(counts.untouched + counts.replaced, counts.runs);
    assert.equal(counts.atStep + counts.inside, atSteps.length + inStretches.length, 'every target got its kill');
  });
});

describe('concurrency', function () {
  this.timeout(60_000);
  const settings = { targetTokens: 6_000, keepRecentTokens: 2_000, maxToolResultChars: 1_000 };
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const make = () => {
    const dir = tempDir('ac-conc-');
    dirs.push(dir);
    const file = join(dir, 's.jsonl');
    const lines = buildTranscript({ rounds: 20, textChars: 1_500, resultChars: (r) => (r % 3 === 0 ? 4_000 : 300) });
    writeFileSync(file, lines.join('\n') + '\n');
    return { dir, file, original: readFileSync(file) };
  };

  for (const inPlace of [false, true]) {
    it(`a session appended to during compaction is refused: 'changed-on-disk', nothing lost or written (${inPlace ? 'in place' : 'new file'})`, async () => {
      const { dir, file, original } = make();
      const before = snapshotDir(dir);
      const extra =
        JSON.stringify({
          type: 'user',
          uuid: 'late-1',
          parentUuid: null,
          message: { role: 'user', content: 'written by the agent meanwhile' },
        }) + '\n';
      const err = await compactFile(file, {
        summarizer: 'extractive',
        settings,
        inPlace,
        onProgress: (step) => step === COMMITTING && appendFileSync(file, extra),
      }).catch((e: unknown) => e);
      assert.ok(err instanceof CompactError && err.code === 'changed-on-disk', String(err));
      assert.match(
        err.message,
        /changed while it was being compacted \(\d+ bytes appended; is an agent still writing to it\?\)\. Nothing was written/,
      );
      assert.ok(
        readFileSync(file).equals(Buffer.concat([original, Buffer.from(extra)])),
        'the original and the appended line are intact',
      );
      const d = diffSnapshots(before, snapshotDir(dir));
      assert.deepEqual(
        d,
        { added: [], removed: [], changed: ['s.jsonl'] },
        'no output, backup, state or full-text file left behind',
      );
      rmSync(dir, { recursive: true, force: true });
    });
  }

  it("two compactions of one file at once: one wins, the other gets 'locked'", async () => {
    const { dir, file, original } = make();
    let secondRun: Promise<unknown> | undefined;
    const first = compactFile(file, {
      summarizer: 'extractive',
      settings,
      inPlace: true,
      onProgress: (step) => {
        // The first holds the lock from its first step on: start the second then (it asks for the lock at once,
        // long before the first has read, planned, written and checked its result).
        if (step === 'Reading transcript…')
          secondRun = compactFile(file, { summarizer: 'extractive', settings, inPlace: true }).catch((e: unknown) => e);
      },
    });
    const res = await first;
    const second = await secondRun;
    assert.ok(second instanceof CompactError && second.code === 'locked', String(second));
    assert.match(
      second.message,
      /Another compaction of s\.jsonl is running \(process \d+, started .*\); try again when it has finished/,
    );
    assert.ok(readFileSync(file).subarray(0, original.length).equals(original));
    assert.ok(readFileSync(res.backup!).equals(original));
    assert.equal(
      readdirSync(dir).filter((n) => n.includes('.bak-') && !/\.(manifest|compactor-state)\.json$/.test(n)).length,
      1,
      'only the winner made a backup',
    );
    assert.ok(!existsSync(`${file}.compactor.lock`));
    rmSync(dir, { recursive: true, force: true });
  });

  it("across processes: the CLI is refused with 'locked' while another compaction runs", async function () {
    assertCliBuilt();
    const { dir, file, original } = make();
    let cliRun: ReturnType<typeof spawnSync> | undefined;
    await compactFile(file, {
      summarizer: 'extractive',
      settings,
      inPlace: true,
      onProgress: (step) => {
        if (step === COMMITTING)
          cliRun = spawnSync(
            process.execPath,
            [cli, 'compact', file, '--in-place', '--summarizer', 'extractive', '--target-tokens', '6000'],
            { env, encoding: 'utf8' },
          );
      },
    });
    assert.equal(cliRun!.status, 1, String(cliRun!.stderr));
    assert.match(String(cliRun!.stderr), /^agent-compactor: Another compaction of s\.jsonl is running \(process \d+/);
    assert.ok(readFileSync(file).subarray(0, original.length).equals(original));
    rmSync(dir, { recursive: true, force: true });
  });
});
