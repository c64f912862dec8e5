// Crash safety and concurrency of in-place compaction.
//
// The CLI (`node dist/cli.js compact <copy> --in-place`) is killed with SIGKILL at points spread
// from its start to the end of a normal run, many times. Afterwards the transcript is either
// untouched (same bytes) or fully replaced by a valid compacted file (original bytes as its
// prefix, re-parses, resumes), with a byte-identical backup whenever it was replaced; never a
// partial file under the final name; sidecars under their final names are complete. Stale temp
// files and a stale lock may remain, and a second compaction must still succeed (the lock of a
// dead process is taken over).
//
// Concurrency: a session appended to while it is compacted is refused ('changed-on-disk',
// nothing lost, nothing written); two compactions of one file at once: one wins, the other is
// refused ('locked'), in-process and across processes.
import { strict as assert } from 'node:assert';
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { COMMITTING, compactFile } from '../../src/core/compact/compact';
import { CompactError } from '../../src/core/compact/types';
import { checkResumable } from '../../src/core/compact/validate';
import { inspectFile } from '../../src/core/inspect';
import { fixture, repoRoot } from '../support/fixtures';
import { Rng, diffSnapshots, snapshotDir, secs, buildTranscript } from '../support/reliability';

const RUNS = Number(process.env.CRASH_RUNS ?? 40);
const SEED = Number(process.env.CRASH_SEED ?? 7);
const SOURCE = fixture('with-compactions.jsonl');
// Summarizes a few rounds and replaces two large tool results, so the run also writes sidecars.
const ARGS = ['--in-place', '--summarizer', 'extractive', '--target-tokens', '60000', '--keep-recent-tokens', '20000', '--max-result-chars', '2000'];
const SETTINGS = { targetTokens: 60_000, keepRecentTokens: 20_000, maxToolResultChars: 2_000 };
const cli = join(repoRoot, 'dist', 'cli.js');
const env = { ...process.env };
delete env.ANTHROPIC_API_KEY;

/** Kill after `afterMs` from the start, or `afterMs` after the progress line `phase` appears. */
interface Kill {
  afterMs: number;
  phase?: string;
}

function runCli(file: string, kill: Kill | null): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string; ms: number }> {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const child = spawn(process.execPath, [cli, 'compact', file, ...ARGS], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    let timer: NodeJS.Timeout | null = null;
    const arm = () => (timer = setTimeout(() => child.kill('SIGKILL'), kill!.afterMs));
    child.stderr.on('data', (d) => {
      stderr += d;
      if (kill?.phase && !timer && stderr.includes(kill.phase)) arm();
    });
    if (kill && !kill.phase) arm();
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      resolve({ code, signal, stderr, ms: Date.now() - t0 });
    });
  });
}

/** Progress lines printed just before the risky steps, and how long after them to kill. */
const PHASES = [
  { phase: 'Writing the compacted transcript…', spreadMs: 150 }, // temp write, fsync, validation, sidecars
  { phase: 'Backing up the original…', spreadMs: 15 }, // backup copy, fsync, rename
];

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
  assert.ok(now.length > original.length, `partial file under the final name: ${now.length} bytes < original ${original.length}`);
  assert.ok(now.subarray(0, original.length).equals(original), 'the replaced file does not start with the original bytes');
  const { report } = await inspectFile(file, { subagents: false });
  originalMalformed ??= (await inspectFile(SOURCE, { subagents: false })).report.malformed.map((m) => m.line);
  assert.deepEqual(report.malformed.map((m) => m.line), originalMalformed, 'the compacted tail added malformed lines');
  const check = await checkResumable(file);
  assert.deepEqual(check.problems.filter((p) => !/over the .*target/.test(p)), [], 'the replaced file resumes cleanly');
  return 'replaced';
}

describe('crash safety: SIGKILL during in-place compaction', function () {
  this.timeout(10 * 60_000);
  let root: string;
  let original: Buffer;
  before(function () {
    this.timeout(120_000);
    const r = spawnSync(process.execPath, [join(repoRoot, 'scripts', 'build.mjs')], { cwd: repoRoot, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    root = mkdtempSync(join(tmpdir(), 'ac-crash-'));
    original = readFileSync(SOURCE);
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it(`${RUNS} kills at spread-out points leave the original or a complete result; a second compaction always succeeds`, async () => {
    const started = Date.now();
    // A reference run without a kill: its duration sets the kill window, its sidecars the expected contents.
    const ref = fresh(root, 'reference');
    const durations: number[] = [];
    for (let i = 0; i < 2; i++) {
      const refRun = await runCli(ref.file, null);
      assert.equal(refRun.code, 0, refRun.stderr);
      durations.push(refRun.ms);
      if (i === 0) {
        await classify(ref.file, original);
        copyFileSync(SOURCE, ref.file);
        chmodSync(ref.file, 0o644);
      }
    }
    const duration = Math.max(...durations);
    const refTools = join(ref.dir, 's.tool-results');
    const refToolFiles = new Map(existsSync(refTools) ? readdirSync(refTools).map((n) => [n, readFileSync(join(refTools, n))]) : []);
    assert.ok(refToolFiles.size > 0, 'the reference run replaced tool results, so the kills also hit the full-text sidecars');

    const rng = new Rng(SEED);
    const timed = Math.ceil(RUNS * 0.7);
    const counts = { runs: 0, timed: 0, phased: 0, killed: 0, finished: 0, untouched: 0, replaced: 0, staleTemp: 0, staleLock: 0, staleState: 0, secondCompacted: 0, secondNothingToDo: 0 };
    for (let i = 0; i < RUNS; i++) {
      const { dir, file } = fresh(root, `run-${i}`);
      // 70% of the runs: kill times stratified over [0, 1.1 × duration], so every phase (start-up,
      // read, summary, temp write, fsync, sidecars, backup, rename) gets hit. The rest: shortly
      // after the progress line announcing the write or the backup, where a kill hurts most.
      let kill: Kill;
      if (i < timed) kill = { afterMs: Math.round(((i + rng.next()) / timed) * duration * 1.1) };
      else {
        const p = PHASES[i % PHASES.length];
        kill = { phase: p.phase, afterMs: Math.round(rng.next() * p.spreadMs) };
      }
      const delay = kill.afterMs;
      const r = await runCli(file, kill);
      counts.runs++;
      if (kill.phase) counts.phased++;
      else counts.timed++;
      if (r.signal === 'SIGKILL') counts.killed++;
      else {
        assert.equal(r.code, 0, `run ${i} finished with ${r.code}: ${r.stderr}`);
        counts.finished++;
      }
      const label = `run ${i} (kill ${delay} ms after ${kill.phase ?? 'start'}, ${r.signal ?? `exit ${r.code}`})`;
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
          assert.ok(refToolFiles.get(n)?.equals(readFileSync(join(dir, 's.tool-results', n))), `${label}: partial full-text file ${n}`);
        }
      }
      if (names.some((n) => /^\.s\..*\.tmp-/.test(n))) counts.staleTemp++;
      if (names.includes('s.jsonl.compactor.lock')) counts.staleLock++;

      // A second compaction succeeds (taking over a dead process's lock).
      const beforeSecond = readFileSync(file);
      const calibration = (await inspectFile(file, { subagents: false })).report.totals.calibrationFactor;
      const backupsBefore = new Set(backups);
      const second = await compactFile(file, { summarizer: 'extractive', settings: SETTINGS, inPlace: true }).catch((e: unknown) => e);
      const afterSecond = readFileSync(file);
      const newBackups = readdirSync(dir).filter((n) => n.startsWith('s.jsonl.bak-') && !/\.(manifest|compactor-state)\.json$/.test(n) && !backupsBefore.has(n));
      if (second instanceof CompactError && second.code === 'nothing-to-compact') {
        // Only a file the first run already compacted can be within the target (the original is not: the reference run compacted it).
        assert.equal(state, 'replaced', `${label}: the second compaction found nothing to do in the untouched original`);
        assert.ok(afterSecond.equals(beforeSecond), `${label}: 'nothing to compact' changed the transcript`);
        assert.deepEqual(newBackups, [], `${label}: 'nothing to compact' made a backup`);
        counts.secondNothingToDo++;
      } else {
        assert.ok(!(second instanceof Error), `${label}: the second compaction failed: ${second instanceof Error ? second.stack : ''}`);
        const res = second as Awaited<ReturnType<typeof compactFile>>;
        assert.equal(res.mode, 'in-place', label);
        assert.equal(res.output, file, label);
        // Appended to what it found (the original, or the first run's result), which is backed up byte for byte.
        assert.ok(afterSecond.length > beforeSecond.length && afterSecond.subarray(0, beforeSecond.length).equals(beforeSecond), `${label}: the second result does not start with the bytes it compacted`);
        assert.deepEqual(newBackups.map((n) => join(dir, n)), [res.backup], `${label}: one new backup, the one reported`);
        assert.ok(readFileSync(res.backup!).equals(beforeSecond), `${label}: the second backup differs from the file it replaced`);
        // Resumable the way Claude Code rebuilds it: starts with our summary, API-valid, on the written leaf, within the target.
        const check = await checkResumable(file, { calibration, expectSummaryFirst: true, targetTokens: res.plan.messageTarget });
        assert.deepEqual(check.problems, [], `${label}: the second result does not resume cleanly`);
        assert.equal(res.postTokens, check.estimatedTokens, `${label}: the reported size is the written file's`);
        counts.secondCompacted++;
      }
      assert.ok(!existsSync(join(dir, 's.jsonl.compactor.lock')), `${label}: lock left by the second compaction`);
      assert.ok(!readdirSync(dir).some((n) => /^\.s\..*\.tmp-/.test(n) && !names.includes(n)), `${label}: temp file left by the second compaction`);
      await classify(file, original).catch((e: Error) => assert.fail(`${label}, after the second compaction: ${e.message}`));
      rmSync(dir, { recursive: true, force: true });
    }
    console.log(
      `\n      crash runs: ${counts.runs} (reference run ${duration} ms; ${counts.timed} kills spread over 0–${Math.round(duration * 1.1)} ms, ${counts.phased} just after the write/backup started), ${counts.killed} killed, ${counts.finished} finished first; ` +
        `afterwards ${counts.untouched} untouched, ${counts.replaced} replaced (all with a byte-identical backup); ` +
        `stale temp files in ${counts.staleTemp}, stale lock in ${counts.staleLock}, sidecars without a replaced transcript in ${counts.staleState}; ` +
        `second compaction: ${counts.secondCompacted} compacted, ${counts.secondNothingToDo} nothing to do; ${refToolFiles.size} full-text sidecar(s) per run; ${secs(Date.now() - started)} s\n`,
    );
    assert.equal(counts.untouched + counts.replaced, RUNS);
    assert.ok(counts.killed >= RUNS / 2, 'most runs were actually killed');
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
    const dir = mkdtempSync(join(tmpdir(), 'ac-conc-'));
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
      const extra = JSON.stringify({ type: 'user', uuid: 'late-1', parentUuid: null, message: { role: 'user', content: 'written by the agent meanwhile' } }) + '\n';
      const err = await compactFile(file, { summarizer: 'extractive', settings, inPlace, onProgress: (step) => step === COMMITTING && appendFileSync(file, extra) }).catch((e: unknown) => e);
      assert.ok(err instanceof CompactError && err.code === 'changed-on-disk', String(err));
      assert.match(err.message, /changed while it was being compacted \(\d+ bytes appended; is an agent still writing to it\?\)\. Nothing was written/);
      assert.ok(readFileSync(file).equals(Buffer.concat([original, Buffer.from(extra)])), 'the original and the appended line are intact');
      const d = diffSnapshots(before, snapshotDir(dir));
      assert.deepEqual(d, { added: [], removed: [], changed: ['s.jsonl'] }, 'no output, backup, state or full-text file left behind');
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
        if (step === 'Reading transcript…') secondRun = compactFile(file, { summarizer: 'extractive', settings, inPlace: true }).catch((e: unknown) => e);
      },
    });
    const res = await first;
    const second = await secondRun;
    assert.ok(second instanceof CompactError && second.code === 'locked', String(second));
    assert.match(second.message, /Another compaction of s\.jsonl is running \(process \d+, started .*\); try again when it has finished/);
    assert.ok(readFileSync(file).subarray(0, original.length).equals(original));
    assert.ok(readFileSync(res.backup!).equals(original));
    assert.equal(readdirSync(dir).filter((n) => n.includes('.bak-') && !/\.(manifest|compactor-state)\.json$/.test(n)).length, 1, 'only the winner made a backup');
    assert.ok(!existsSync(`${file}.compactor.lock`));
    rmSync(dir, { recursive: true, force: true });
  });

  it("across processes: the CLI is refused with 'locked' while another compaction runs", async function () {
    if (!existsSync(cli)) {
      const r = spawnSync(process.execPath, [join(repoRoot, 'scripts', 'build.mjs')], { cwd: repoRoot, encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
    }
    const { dir, file, original } = make();
    let cliRun: ReturnType<typeof spawnSync> | undefined;
    await compactFile(file, {
      summarizer: 'extractive',
      settings,
      inPlace: true,
      onProgress: (step) => {
        if (step === COMMITTING) cliRun = spawnSync(process.execPath, [cli, 'compact', file, '--in-place', '--summarizer', 'extractive', '--target-tokens', '6000'], { env, encoding: 'utf8' });
      },
    });
    assert.equal(cliRun!.status, 1, String(cliRun!.stderr));
    assert.match(String(cliRun!.stderr), /^agent-compactor: Another compaction of s\.jsonl is running \(process \d+/);
    assert.ok(readFileSync(file).subarray(0, original.length).equals(original));
    rmSync(dir, { recursive: true, force: true });
  });
});
