// A live agent appends to its session while the user compacts (or repairs) it in place, again and again. No appended
// line may be lost or reordered at any moment: a compaction or repair either refuses (changed on disk, nothing written)
// or commits and carries over, in the order written, whatever landed between its last check and the rename. A real child process appends by path, in bursts with idle
// gaps (as an agent writes a turn, then waits), while this process compacts in place as often as it can.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { appendFileSync, copyFileSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { compactFile } from '../../../src/core/compact/compact';
import { CompactError } from '../../../src/core/compact/types';
import { checkResumable } from '../../../src/core/compact/validate';
import { fixture } from '../../support/fixtures';
import { inspectFile } from '../../../src/core/inspect';
import { doctorFile } from '../../../src/core/repair/doctor';
import { repairFile } from '../../../src/core/repair/repair';
import { listBackups, restoreBackup } from '../../../src/core/compact/backup';
import { backupFault } from '../../../src/core/io/backups';
import { undoCompaction } from '../../../src/core/compact/undo';
import { forkBeforeCompaction } from '../../../src/core/repair/forkBefore';
import { tempDir } from '../../support/temp';

// Appends turns as an agent does: a user line and an assistant line continuing its own chain (from the leaf it had
// when it started: it never sees our compaction), then a last-prompt line naming its newest entry. It goes on until
// the test closes its stdin (when the verbs have met every interleaving the test asks for: see until()), and prints
// how many lines it has written after each burst, and last.
const APPENDER = `
const { appendFileSync } = require('node:fs');
const [file, seed, leaf, broken] = [process.argv[1], Number(process.argv[2]), process.argv[3], process.argv[4] === 'broken'];
let s = seed >>> 0;
const rnd = () => ((s = (Math.imul(s ^ (s >>> 15), 1 | s) + 0x6d2b79f5) >>> 0) / 4294967296);
let stop = false;
process.stdin.on('data', () => undefined).on('end', () => (stop = true));
let n = 0;
let parent = leaf;
const sleep = (t) => new Promise((r) => setTimeout(r, t));
const write = (o) => appendFileSync(file, JSON.stringify({ ...o, seq: n++, liveAppend: true }) + '\\n');
(async () => {
  while (!stop) {
    const turns = 1 + Math.floor(rnd() * 3);
    for (let t = 0; t < turns; t++) {
      const u = 'live-u-' + n;
      // 'broken': each prompt names a parent that is not in the file (so that repair always has a link to mend).
      write({ type: 'user', uuid: u, parentUuid: broken ? 'gone-' + n : parent, isSidechain: false, message: { role: 'user', content: 'live turn ' + n + ' ' + 'x'.repeat(Math.floor(rnd() * 4000)) } });
      await sleep(rnd() * 8);
      const a = 'live-a-' + n;
      write({ type: 'assistant', uuid: a, parentUuid: u, isSidechain: false, message: { id: 'msg_live_' + n, role: 'assistant', model: 'claude-test', content: [{ type: 'text', text: 'reply ' + 'y'.repeat(Math.floor(rnd() * 4000)) }] } });
      parent = a;
      await sleep(rnd() * 8);
      write({ type: 'last-prompt', lastPrompt: 'live turn', leafUuid: a });
    }
    process.stdout.write(n + '\\n');
    await sleep(rnd() * 300);
  }
  process.stdout.write('total ' + n + '\\n');
})();
`;

/** The agent's lines found in `text`, by their sequence number, in file order. */
function seqs(text: string): number[] {
  const out: number[] = [];
  for (const line of text.split('\n')) {
    if (!line.includes('"liveAppend":true')) continue;
    const o = JSON.parse(line) as { seq: number; uuid?: string };
    // Kept rounds are copied after a boundary with fresh uuids: count the agent's own lines only.
    if (o.uuid === undefined || o.uuid.startsWith('live-')) out.push(o.seq);
  }
  return out;
}

/**
 * Restore and undo replace the session's content, so what it held goes to a backup: every line the agent appended is
 * in the session or in one of its backups (or a file of appends that could not be placed, which a commit names), and
 * the session holds its lines once each, in the order written.
 */
function assertNoneLost(dir: string, file: string, total: number): void {
  const everywhere = new Set<number>();
  for (const n of readdirSync(dir)) {
    if (n.endsWith('.json') || !(n.includes('.bak-') || n.includes('.unplaced-appends-') || join(dir, n) === file))
      continue;
    for (const k of seqs(readFileSync(join(dir, n), 'utf8'))) everywhere.add(k);
  }
  const missing = Array.from({ length: total }, (_, k) => k).filter((k) => !everywhere.has(k));
  assert.deepEqual(missing, [], 'every appended line is in the session or a backup');
  const inSession = seqs(readFileSync(file, 'utf8'));
  assert.deepEqual(
    inSession,
    [...new Set(inSession)].sort((a, b) => a - b),
    "the session's appended lines are there once each, in the order written",
  );
}

/** Every line the agent appended is in the file exactly once, in the order it wrote them. */
function assertAllInOrder(file: string, total: number): void {
  const found = seqs(readFileSync(file, 'utf8'));
  assert.deepEqual(
    [...found].sort((a, b) => a - b),
    Array.from({ length: total }, (_, k) => k),
    'every appended line is in the file exactly once',
  );
  assert.deepEqual(
    found,
    [...found].sort((a, b) => a - b),
    'the appended lines are in the order written',
  );
}

/** The hang bound of one test's appending: only a verb that never meets an interleaving it should reaches it. */
const APPENDING_BOUND_MS = 150_000;

/**
 * Starts the agent appending to `file` and runs `attempt` again and again meanwhile, until `enough()` says the verbs
 * have met every interleaving the test asks for (checked after each attempt) and the agent has written over 20 lines;
 * then stops the agent and returns how many lines it wrote. Attempts are not counted in seconds: how many a machine
 * makes in a given time is a guess about its speed, while the interleavings are what the test is about.
 */
async function whileAppending(
  file: string,
  seed: number,
  leaf: string,
  broken: boolean,
  enough: () => boolean,
  attempt: () => Promise<void>,
  outcomes: () => string,
): Promise<number> {
  const child = spawn(process.execPath, ['-e', APPENDER, file, String(seed), leaf, broken ? 'broken' : ''], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const written = () => Number(/(\d+)\n(?:total \d+\n)?$/.exec(out)?.[1] ?? 0);
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  let running = true;
  void exited.then(() => (running = false));
  const started = Date.now();
  try {
    while (running && !(enough() && written() > 20)) {
      assert.ok(
        Date.now() - started < APPENDING_BOUND_MS,
        `not every interleaving asked for came in ${APPENDING_BOUND_MS} ms (${written()} lines appended): ${outcomes()}`,
      );
      await attempt();
    }
    assert.ok(running, `the appender stopped early: ${out}`);
    child.stdin.end();
    assert.equal(await exited, 0);
    const total = /total (\d+)\n$/.exec(out);
    assert.ok(total, `the appender's last word: ${out.slice(-200)}`);
    return Number(total[1]);
  } finally {
    child.kill();
  }
}

describe('live agent appends while compacting in place, many times', function () {
  this.timeout(180_000);

  for (const [name, seed] of [
    ['v1.0.108-medium.jsonl', 7],
    ['v2.1.97-live-before.jsonl', 11],
  ] as const) {
    it(`${name}: every appended line survives, exactly once`, async () => {
      const dir = tempDir('ac-live-');
      const file = join(dir, '6a4f1c2e-9b1d-4c3a-8e2f-1d2c3b4a5f60.jsonl');
      copyFileSync(fixture(name), file);
      const a = await inspectFile(file, { subagents: false });
      const leaf = a.index.entries[a.chain.leaf].uuid!;
      const outcomes = { committed: 0, carried: 0, changed: 0, other: new Map<string, number>() };
      const said = () => JSON.stringify({ ...outcomes, other: [...outcomes.other] });
      try {
        let i = 0;
        // Until compactions have committed twice, one of them carrying over lines that landed after its last check,
        // and one has been refused as changed on disk.
        const total = await whileAppending(
          file,
          seed,
          leaf,
          false,
          () => outcomes.committed >= 2 && outcomes.carried >= 1 && outcomes.changed >= 1,
          async () => {
            try {
              const res = await compactFile(file, {
                summarizer: 'extractive',
                inPlace: true,
                settings: {
                  targetTokens: 12_000 + (i++ % 4) * 4_000,
                  keepRecentTokens: 2_000,
                  maxToolResultChars: 4_000,
                },
              });
              outcomes.committed++;
              if (res.carriedOverBytes > 0) outcomes.carried++;
            } catch (err) {
              assert.ok(err instanceof CompactError, String(err));
              if (err.code === 'changed-on-disk') outcomes.changed++;
              else outcomes.other.set(err.code, (outcomes.other.get(err.code) ?? 0) + 1);
            }
          },
          said,
        );
        assert.ok(total > 20, `the appender wrote ${total} lines`);
        assertAllInOrder(file, total);
        assert.ok(outcomes.committed >= 2, `compactions committed: ${said()}`);
        const fatal = (await checkResumable(file)).problems.filter((p) => !/over the .*target/.test(p));
        assert.deepEqual(fatal, [], 'the session still resumes');
        // Only ours beside it: backups, the state file and saved tool results; no temp files left behind.
        for (const n of readdirSync(dir))
          assert.match(
            n,
            /^6a4f1c2e-9b1d-4c3a-8e2f-1d2c3b4a5f60\.(jsonl|jsonl\.bak-[0-9-]+(\.manifest\.json|\.compactor-state\.json)?|compactor-state\.json|tool-results)$/,
            n,
          );
        console.log(
          `      ${total} lines appended; ${outcomes.committed} compactions committed (${outcomes.carried} carried over late appends), ${outcomes.changed} refused as changed on disk${outcomes.other.size ? `, other: ${JSON.stringify([...outcomes.other])}` : ''}`,
        );
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }

  it('repair --in-place of a session whose agent keeps writing broken links: every appended line survives, once, in order', async () => {
    const dir = tempDir('ac-live-repair-');
    const file = join(dir, '7b5e2d3f-0c2e-4d4b-9f30-2e3d4c5b6a71.jsonl');
    copyFileSync(fixture('v1.0.108-medium.jsonl'), file);
    const a = await inspectFile(file, { subagents: false });
    const outcomes = { committed: 0, carried: 0, nothing: 0, changed: 0, other: new Map<string, number>() };
    const said = () => JSON.stringify({ ...outcomes, other: [...outcomes.other] });
    try {
      // Until repairs have committed twice, one of them carrying over lines that landed after its last check, and
      // one has been refused as changed on disk.
      const total = await whileAppending(
        file,
        23,
        a.index.entries[a.chain.leaf].uuid!,
        true,
        () => outcomes.committed >= 2 && outcomes.carried >= 1 && outcomes.changed >= 1,
        async () => {
          try {
            const r = await repairFile(file, { inPlace: true });
            if (r.output === null) outcomes.nothing++;
            else outcomes.committed++;
            if (r.carriedOverBytes > 0) outcomes.carried++;
          } catch (err) {
            assert.ok(err instanceof CompactError, String(err));
            if (err.code === 'changed-on-disk') outcomes.changed++;
            else outcomes.other.set(err.code, (outcomes.other.get(err.code) ?? 0) + 1);
          }
        },
        said,
      );
      assert.ok(total > 20, `the appender wrote ${total} lines`);
      assertAllInOrder(file, total);
      assert.ok(outcomes.committed >= 2, `repairs committed: ${said()}`);
      // Idle now: one more repair mends what the agent broke last, and then nothing is left dangling.
      await repairFile(file, { inPlace: true });
      const d = await doctorFile(file);
      assert.deepEqual(
        d.problems.filter((p) => p.kind === 'dangling-parent' && p.severity === 'error'),
        [],
      );
      assert.equal(
        d.leafLine,
        readFileSync(file, 'utf8').trimEnd().split('\n').length - 1,
        'resume starts from the newest message (the last line names it)',
      );
      for (const n of readdirSync(dir))
        assert.match(n, /^7b5e2d3f-0c2e-4d4b-9f30-2e3d4c5b6a71\.jsonl(\.bak-[0-9-]+(\.manifest\.json)?)?$/, n);
      console.log(
        `      ${total} lines appended; ${outcomes.committed} repairs committed (${outcomes.carried} carried over late appends), ${outcomes.nothing} found nothing to do, ${outcomes.changed} refused as changed on disk${outcomes.other.size ? `, other: ${JSON.stringify([...outcomes.other])}` : ''}`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('restore and undo while the agent appends: each refuses, changing nothing, or commits carrying over; no line is lost', async () => {
    const dir = tempDir('ac-live-restore-');
    const file = join(dir, '8c6f3e40-1d3f-4e5c-a041-3f4e5d6c7b82.jsonl');
    copyFileSync(fixture('v1.0.108-medium.jsonl'), file);
    const settings = { targetTokens: 12_000, keepRecentTokens: 2_000, maxToolResultChars: 4_000 };
    await compactFile(file, { summarizer: 'extractive', inPlace: true, settings });
    const a = await inspectFile(file, { subagents: false });
    const outcomes = new Map<string, number>();
    const got = (what: string) => outcomes.get(what) ?? 0;
    const count = (what: string) => outcomes.set(what, (outcomes.get(what) ?? 0) + 1);
    /** A refusal the verb promises ('changed-on-disk': the session changed meanwhile, or went on since); else thrown. */
    const refused = (verb: string) => (err: unknown) => {
      assert.ok(err instanceof CompactError, String(err));
      if (err.code === 'changed-on-disk' || err.code === 'nothing-to-compact') count(`${verb} ${err.code}`);
      else throw err;
    };
    try {
      let i = 0;
      // Until restores have committed twice, one of them carrying over lines that landed after its last check, one
      // has been refused as changed on disk, and an undo has committed.
      const total = await whileAppending(
        file,
        31,
        a.index.entries[a.chain.leaf].uuid!,
        false,
        () =>
          got('restore committed') + got('restore carried over') >= 2 &&
          got('restore carried over') >= 1 &&
          got('restore changed-on-disk') >= 1 &&
          got('undo committed') >= 1,
        async () => {
          if (i++ % 2 === 0) {
            // Restore the newest whole backup (alternately the oldest), as the CLI's default does.
            const backups = await listBackups(file);
            const whole: string[] = [];
            for (const b of backups) if ((await backupFault(b)) === null) whole.push(b);
            assert.ok(whole.length > 0, 'there is a whole backup to restore');
            await restoreBackup(file, i % 4 === 1 ? whole[0] : whole[whole.length - 1]).then((r) => {
              count(r.carriedOverBytes > 0 ? 'restore carried over' : 'restore committed');
            }, refused('restore'));
          } else {
            // Compact and undo at once: the undo commits only when nothing was appended in between.
            const res = await compactFile(file, { summarizer: 'extractive', inPlace: true, settings }).catch(
              (e: unknown) => {
                refused('compact')(e);
                return null;
              },
            );
            if (res) await undoCompaction(file, res).then(() => count('undo committed'), refused('undo'));
          }
        },
        () => JSON.stringify(Object.fromEntries(outcomes)),
      );
      assert.ok(total > 20, `the appender wrote ${total} lines`);
      assertNoneLost(dir, file, total);
      const committed = [...outcomes]
        .filter(([k]) => /^restore (committed|carried)/.test(k))
        .reduce((n, [, v]) => n + v, 0);
      assert.ok(committed >= 2, `restores committed: ${JSON.stringify([...outcomes])}`);
      console.log(`      ${total} lines appended; ${JSON.stringify(Object.fromEntries(outcomes))}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('fork-before while the agent appends: each writes a whole fork or refuses; the session, never written, keeps every line', async () => {
    const dir = tempDir('ac-live-fork-before-');
    const file = join(dir, '9d7a4f51-2e40-4f6d-b152-4a5f6e7d8c93.jsonl');
    copyFileSync(fixture('with-compactions.jsonl'), file);
    // The fixture's last line has no newline; an agent ends each line it writes, so the line before its first does too.
    if (!readFileSync(file).toString('latin1').endsWith('\n')) appendFileSync(file, '\n');
    const a = await inspectFile(file, { subagents: false });
    const outcomes = { forks: 0, changed: 0 };
    const forks = new Set<string>();
    try {
      // Until forks have been written twice and one has been refused as changed on disk.
      const total = await whileAppending(
        file,
        37,
        a.index.entries[a.chain.leaf].uuid!,
        false,
        () => outcomes.forks >= 2 && outcomes.changed >= 1,
        async () => {
          try {
            forks.add((await forkBeforeCompaction(file, 1)).output);
            outcomes.forks++;
          } catch (err) {
            assert.ok(err instanceof CompactError && err.code === 'changed-on-disk', String(err));
            outcomes.changed++;
          }
        },
        () => JSON.stringify(outcomes),
      );
      assert.ok(total > 20, `the appender wrote ${total} lines`);
      assertAllInOrder(file, total);
      assert.ok(outcomes.forks >= 2, `forks written: ${JSON.stringify(outcomes)}`);
      // Each fork is the lines before the first compaction, byte for byte: the same bytes every time.
      const bytes = [...forks].map((f) => readFileSync(f));
      assert.ok(
        bytes.every((b) => b.equals(bytes[0])),
        'every fork holds the same lines',
      );
      console.log(`      ${total} lines appended; ${JSON.stringify(outcomes)}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
