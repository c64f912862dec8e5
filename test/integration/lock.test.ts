// The compaction lock (`<file>.compactor.lock`) under contention: real child processes race to
// take over one stale lock, round after round, and exactly one may hold it each time. Also:
// half-written locks (fresh → 'locked', old → taken over), reused pids, other hosts, a claim
// left by a process that died mid-takeover, and a late release that must not delete a lock
// that is no longer its own.
import { strict as assert } from 'node:assert';
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, join } from 'node:path';
import { createInterface } from 'node:readline';
import { acquireLock, HALF_WRITTEN_LOCK_STALE_MS } from '../../src/core/io/lock';
import { CompactError } from '../../src/core/compact/types';
import { bundleChild } from '../support/crashChild';
import { tempDir } from '../support/temp';

/** The racer (test/support/lock-racer.ts), bundled in before() so that each starts with a plain `node`. */
let RACER: string;

/** The pid of a process that has exited: surely dead (until the kernel reuses it, far later). */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', '']);
  assert.equal(r.status, 0);
  assert.throws(() => process.kill(r.pid, 0), /ESRCH/);
  return r.pid;
}

interface Answer {
  round?: number;
  pid?: number;
  won?: boolean;
  code?: string;
  message?: string;
  released?: boolean;
  ready?: boolean;
}

class Racer {
  private waiting: { resolve: (a: Answer) => void; reject: (e: Error) => void }[] = [];
  private constructor(readonly child: ChildProcessWithoutNullStreams) {
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    createInterface({ input: child.stdout }).on('line', (line) =>
      this.waiting.shift()?.resolve(JSON.parse(line) as Answer),
    );
    child.once('exit', (code, signal) => {
      for (const w of this.waiting.splice(0)) w.reject(new Error(`racer exited (${code ?? signal}): ${stderr}`));
    });
  }
  static async start(): Promise<Racer> {
    const r = new Racer(spawn(process.execPath, [RACER], { stdio: 'pipe' }));
    const hello = await r.next();
    assert.ok(hello.ready, JSON.stringify(hello));
    return r;
  }
  private next(): Promise<Answer> {
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }
  send(cmd: object): Promise<Answer> {
    const answer = this.next();
    this.child.stdin.write(JSON.stringify(cmd) + '\n');
    return answer;
  }
  get pid(): number {
    return this.child.pid!;
  }
  stop(): void {
    this.child.kill();
  }
}

const lockOf = (file: string) => `${file}.compactor.lock`;
const readLock = (file: string) =>
  JSON.parse(readFileSync(lockOf(file), 'utf8')) as { pid: number; host?: string; token?: string };

async function lockError(file: string): Promise<CompactError> {
  const err = await acquireLock(file).then(
    (l) => l,
    (e: unknown) => e,
  );
  assert.ok(err instanceof CompactError, `expected 'locked', got ${JSON.stringify(err)}`);
  assert.equal(err.code, 'locked');
  return err;
}

describe('compaction lock', function () {
  this.timeout(120_000);
  let dir: string;
  let file: string;
  before(async () => {
    RACER = await bundleChild('lock-racer.ts', 'lock-racer.js');
  });
  beforeEach(() => {
    dir = tempDir('ac-lock-');
    file = join(dir, 's.jsonl');
    writeFileSync(file, '{}\n');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** Stale locks of every kind the takeover handles, one per round in turn. */
  const staleLocks: { name: string; write: (path: string, dead: number) => void }[] = [
    {
      name: 'dead pid',
      write: (p, dead) =>
        writeFileSync(
          p,
          JSON.stringify({ pid: dead, host: hostname(), started: new Date().toISOString(), token: 'stale' }),
        ),
    },
    {
      name: 'dead pid, older format without host or token',
      write: (p, dead) => writeFileSync(p, JSON.stringify({ pid: dead, started: new Date().toISOString() })),
    },
    {
      name: 'half-written, old',
      write: (p) => {
        writeFileSync(p, '{"pid":');
        const old = (Date.now() - HALF_WRITTEN_LOCK_STALE_MS - 5_000) / 1000;
        utimesSync(p, old, old);
      },
    },
  ];

  for (const n of [2, 8]) {
    it(`${n} processes taking over one stale lock: exactly one holds it, every round`, async () => {
      const racers = await Promise.all(Array.from({ length: n }, () => Racer.start()));
      const dead = deadPid();
      const rounds = n === 2 ? 30 : 45;
      const wins = new Map<number, number>();
      try {
        for (let round = 0; round < rounds; round++) {
          const stale = staleLocks[round % staleLocks.length];
          stale.write(lockOf(file), dead);
          const at = Date.now() + 40;
          const answers = await Promise.all(racers.map((r) => r.send({ cmd: 'acquire', round, file, at })));
          const winners = answers.filter((a) => a.won);
          const label = `round ${round} (${stale.name}): ${JSON.stringify(answers)}`;
          assert.equal(winners.length, 1, label);
          const winner = winners[0].pid!;
          wins.set(winner, (wins.get(winner) ?? 0) + 1);
          assert.equal(readLock(file).pid, winner, `the lock file names the winner; ${label}`);
          for (const a of answers.filter((x) => !x.won)) {
            assert.equal(a.code, 'locked', label);
            assert.match(a.message!, new RegExp(`is running \\(process ${winner}, started `), label);
          }
          const released = await racers.find((r) => r.pid === winner)!.send({ cmd: 'release', round });
          assert.ok(released.released);
          assert.ok(!existsSync(lockOf(file)), `released; ${label}`);
        }
      } finally {
        for (const r of racers) r.stop();
      }
      assert.deepEqual(readdirSync(dir), ['s.jsonl'], 'no temp or claim files left behind');
      console.log(`      ${rounds} rounds, wins per process: ${[...wins.values()].join(', ')}`);
    });
  }

  it("a half-written lock younger than the limit is 'locked' and left alone; an old one is taken over", async () => {
    writeFileSync(lockOf(file), '');
    const err = await lockError(file);
    assert.match(
      err.message,
      /Another compaction of s\.jsonl is starting \(its lock file is still being written\); try again in a few seconds/,
    );
    assert.equal(readFileSync(lockOf(file), 'utf8'), '', 'a fresh half-written lock is not touched');
    const justUnder = (Date.now() - HALF_WRITTEN_LOCK_STALE_MS + 3_000) / 1000;
    utimesSync(lockOf(file), justUnder, justUnder);
    await lockError(file);
    const old = (Date.now() - HALF_WRITTEN_LOCK_STALE_MS - 1_000) / 1000;
    utimesSync(lockOf(file), old, old);
    const lock = await acquireLock(file);
    assert.equal(readLock(file).pid, process.pid);
    await lock.release();
    assert.ok(!existsSync(lockOf(file)));
  });

  it("a live owner's lock is 'locked' with its pid; after its release the lock is free", async () => {
    const owner = await Racer.start();
    try {
      assert.ok((await owner.send({ cmd: 'acquire', round: 0, file, at: 0 })).won);
      const err = await lockError(file);
      assert.match(
        err.message,
        new RegExp(
          `^Another compaction of s\\.jsonl is running \\(process ${owner.pid}, started \\d{4}-.*\\); try again when it has finished\\.$`,
        ),
      );
      assert.equal(readLock(file).pid, owner.pid);
      await owner.send({ cmd: 'release', round: 0 });
      const lock = await acquireLock(file);
      await lock.release();
    } finally {
      owner.stop();
    }
  });

  it('a late release leaves alone a lock that is no longer its own', async () => {
    const first = await acquireLock(file);
    const firstToken = readLock(file).token;
    // The lock disappears under its holder (a user deleted it) and another process takes the file.
    rmSync(lockOf(file));
    const other = await Racer.start();
    try {
      assert.ok((await other.send({ cmd: 'acquire', round: 0, file, at: 0 })).won);
      const theirs = readFileSync(lockOf(file), 'utf8');
      assert.notEqual(JSON.parse(theirs).token, firstToken);
      await first.release();
      assert.equal(readFileSync(lockOf(file), 'utf8'), theirs, "the other process's lock is intact");
      await lockError(file);
      await other.send({ cmd: 'release', round: 0 });
      assert.ok(!existsSync(lockOf(file)));
    } finally {
      other.stop();
    }
  });

  it('a lock whose pid now belongs to another process (start time differs) is taken over on Linux, kept elsewhere', async () => {
    // This process is alive; the lock claims it started at another time, as after pid reuse.
    writeFileSync(
      lockOf(file),
      JSON.stringify({
        pid: process.pid,
        host: hostname(),
        started: '2001-01-01T00:00:00.000Z',
        token: 'reused',
        procStart: '1',
      }),
    );
    if (process.platform === 'linux') {
      const lock = await acquireLock(file);
      assert.notEqual(readLock(file).token, 'reused');
      await lock.release();
    } else {
      await lockError(file);
    }
  });

  it('a lock from before a reboot (boot id differs) is taken over on Linux, even though its pid is alive now', async () => {
    writeFileSync(
      lockOf(file),
      JSON.stringify({
        pid: process.pid,
        host: hostname(),
        started: '2001-01-01T00:00:00.000Z',
        token: 'rebooted',
        boot: 'another-boot',
      }),
    );
    if (process.platform === 'linux') {
      const lock = await acquireLock(file);
      assert.notEqual(readLock(file).token, 'rebooted');
      await lock.release();
    } else {
      await lockError(file);
    }
  });

  it("a lock from another host is never taken over (its pid means nothing here): 'locked', naming the file to delete", async () => {
    writeFileSync(
      lockOf(file),
      JSON.stringify({ pid: deadPid(), host: 'some-other-host', started: '2001-01-01T00:00:00.000Z', token: 'remote' }),
    );
    const err = await lockError(file);
    assert.match(
      err.message,
      /may be running \(process \d+ on some-other-host, started 2001-01-01T00:00:00\.000Z\); this machine cannot tell whether it still is/,
    );
    assert.ok(err.message.includes(`delete ${lockOf(file)} if it is not running`), err.message);
    assert.equal(readLock(file).token, 'remote');
  });

  it('a takeover claim left by a process that died mid-takeover does not block the lock forever', async () => {
    const dead = deadPid();
    const stale = JSON.stringify({ pid: dead, host: hostname(), started: new Date().toISOString(), token: 'stale' });
    writeFileSync(lockOf(file), stale);
    // The claim's name is derived from the stale lock's content (see removeIfStill in core/io/lock.ts).
    const claim = join(
      dir,
      `.${basename(lockOf(file))}.takeover-${createHash('sha256').update(stale).digest('hex').slice(0, 16)}`,
    );
    writeFileSync(
      claim,
      JSON.stringify({ pid: dead, host: hostname(), started: new Date().toISOString(), token: 'dead-claimer' }),
    );
    const lock = await acquireLock(file);
    assert.equal(readLock(file).pid, process.pid);
    assert.ok(!existsSync(claim), 'the dead claim was removed');
    await lock.release();
    assert.deepEqual(readdirSync(dir), ['s.jsonl']);
  });

  it("a live process's takeover claim is respected: the stale lock waits for it", async () => {
    const dead = deadPid();
    const stale = JSON.stringify({ pid: dead, host: hostname(), started: new Date().toISOString(), token: 'stale' });
    writeFileSync(lockOf(file), stale);
    const claim = join(
      dir,
      `.${basename(lockOf(file))}.takeover-${createHash('sha256').update(stale).digest('hex').slice(0, 16)}`,
    );
    writeFileSync(
      claim,
      JSON.stringify({ pid: process.pid, host: hostname(), started: new Date().toISOString(), token: 'live-claimer' }),
    );
    const err = await lockError(file);
    assert.match(err.message, /Could not lock s\.jsonl/);
    assert.equal(readFileSync(lockOf(file), 'utf8'), stale, 'the claimed stale lock is left to its claimer');
    assert.ok(existsSync(claim));
  });
});
