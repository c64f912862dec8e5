// The Sessions list: a fake sessions folder with many projects (copies of the real fixtures, stored the way Claude
// Code stores them), read by file stats and the head and tail of each file only. Its speed is a ratio against reading
// the same files whole, measured in the same run (the absolute time is printed; the 1 s aim is checked in the bench).
import { strict as assert } from 'node:assert';
import {
  appendFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { groupSessions } from '../../src/core/sessionList';
import {
  forkOrigin,
  scanSessions,
  sessionTitle,
  summarizeSession,
  HEAD_BYTES,
  TAIL_BYTES,
  USAGE_SCAN_BYTES,
} from '../../src/core/formats/claude-code/sessionSummary';
import { claudeWindowOf as contextWindowOf } from '../../src/core/formats/claude-code/limits';
import { sessionContext, sessionStats } from '../../src/core/sessionStats';
import { contextNow } from '../../src/core/context';
import { shownContext } from '../../src/extension/model/sessionsTree';
import { inspectFile } from '../../src/core/inspect';
import { claudeFixtures, fixture } from '../support/fixtures';
import { tempDir } from '../support/temp';

const folderOf = (cwd: string) => cwd.replace(/[^a-zA-Z0-9]/g, '-');

describe('sessions list', function () {
  this.timeout(120_000);
  let root: string;
  before(() => (root = tempDir('ac-sessions-')));
  after(() => rmSync(root, { recursive: true, force: true }));

  it('one session: real project path, title, newest context and model, the model window, live mark', async () => {
    const cwd = '/home/me/src/my app';
    const dir = join(root, 'one', folderOf(cwd));
    mkdirSync(dir, { recursive: true });
    const src = fixture('v2.1.97-live-after.jsonl');
    const file = join(dir, '0b6c3e2a-4d5f-4a1b-8c9d-7e6f5a4b3c2d.jsonl');
    writeFileSync(file, readFileSync(src, 'utf8').replace(/"cwd":"[^"]*"/g, JSON.stringify({ cwd }).slice(1, -1)));
    const s = await summarizeSession(file, folderOf(cwd));
    assert.equal(s.cwd, cwd);
    assert.equal(s.id, '0b6c3e2a-4d5f-4a1b-8c9d-7e6f5a4b3c2d');
    assert.ok(s.title.length > 0 && s.title !== '(no prompt)', s.title);
    // The context figure from the end: the newest request's usage plus what followed it, as the full analysis counts
    // it once calibrated by the session's factor.
    const a = await inspectFile(src);
    assert.equal(s.contextTail?.tokens, a.report.totals.contextTokens);
    assert.equal(sessionContext(s, await sessionStats(file), true).tokens, contextNow(a.report).tokens);
    assert.equal(s.contextWindow, 200_000);
    assert.equal(s.live, true);
    utimesSync(file, new Date(Date.now() - 3_600_000), new Date(Date.now() - 3_600_000));
    assert.equal((await summarizeSession(file, folderOf(cwd))).live, false);
    appendFileSync(
      file,
      JSON.stringify({ type: 'custom-title', customTitle: 'My renamed session', sessionId: s.id }) + '\n',
    );
    assert.equal((await summarizeSession(file, folderOf(cwd))).title, 'My renamed session');
    // Claude Code's summary line at the very end of a session read by head and tail (its big middle never read).
    const summarized = join(dir, '5e1c0d2b-9a8f-4e7d-8c6b-5a4f3e2d1c0b.jsonl');
    const big = readFileSync(src, 'utf8').repeat(Math.ceil((HEAD_BYTES + TAIL_BYTES) / statSync(src).size) + 1);
    writeFileSync(
      summarized,
      big +
        JSON.stringify({ type: 'summary', summary: 'Device Role Helper & Dialog Refactoring', leafUuid: 'x' }) +
        '\n',
    );
    assert.ok(statSync(summarized).size > HEAD_BYTES + TAIL_BYTES);
    assert.equal((await summarizeSession(summarized, folderOf(cwd))).title, 'Device Role Helper & Dialog Refactoring');
    assert.equal(contextWindowOf('claude-sonnet-4-5[1m]'), 1_000_000);
  });

  it("titles: a custom title over Claude Code's own (ai-title) over a summary over the first typed prompt; a slash command's output is no prompt", () => {
    const user = (content: string) => ({ type: 'user', message: { role: 'user', content } });
    const command = user('<command-message>ralph-loop</command-message>\n<command-name>/ralph-loop</command-name>');
    const reply = { type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'ok' }] } };
    assert.equal(
      sessionTitle([command, user('Unknown skill: ralph-loop'), user('Fix the login test')], []),
      'Fix the login test',
    );
    assert.equal(
      sessionTitle([command, user('Unknown skill: ralph-loop')], []),
      '/ralph-loop',
      'only a command: its name',
    );
    assert.equal(sessionTitle([command, reply, user('Now the docs')], []), 'Now the docs');
    assert.equal(sessionTitle([user('First'), command, user('Output of it')], []), 'First');
    const head = [{ type: 'summary', summary: 'A summary' }, user('Typed')];
    assert.equal(sessionTitle(head, []), 'A summary');
    // A summary line at the end of the file (read with its tail), after a slash command's output: the newest summary.
    assert.equal(
      sessionTitle(
        [command, user('Unknown skill: ralph-loop')],
        [
          { type: 'summary', summary: 'Older leaf' },
          { type: 'summary', summary: 'Device Role Helper & Dialog Refactoring' },
        ],
      ),
      'Device Role Helper & Dialog Refactoring',
    );
    assert.equal(
      sessionTitle(head, [
        { type: 'ai-title', aiTitle: 'Old' },
        { type: 'ai-title', aiTitle: 'Generated' },
      ]),
      'Generated',
      'the newest generated title',
    );
    assert.equal(
      sessionTitle(head, [
        { type: 'custom-title', customTitle: 'Mine' },
        { type: 'ai-title', aiTitle: 'Generated' },
      ]),
      'Mine',
      "the user's own title first",
    );
  });

  it("forks: Claude Code's forkedFrom lines, and a compaction's copied lines before the fork's own", () => {
    const orig = '11111111-1111-4111-8111-111111111111';
    const fork = '22222222-2222-4222-8222-222222222222';
    assert.deepEqual(
      forkOrigin([{ type: 'user', sessionId: fork, forkedFrom: { sessionId: orig, messageUuid: 'u1' } }], fork, true),
      { sessionId: orig, by: 'agent' },
    );
    assert.deepEqual(
      forkOrigin(
        [
          { type: 'user', sessionId: orig },
          { type: 'system', sessionId: fork },
        ],
        fork,
        true,
      ),
      { sessionId: orig, by: 'compaction' },
    );
    assert.equal(
      forkOrigin([{ type: 'user', sessionId: orig }], fork, false),
      null,
      "none of the file's lines is the fork's own: a copy, not a fork",
    );
    assert.equal(forkOrigin([{ type: 'user', sessionId: fork }], fork, true), null, 'a session of its own');
    assert.equal(
      forkOrigin([{ type: 'user', sessionId: orig }], 'not-a-session-id', true),
      null,
      'an output file named otherwise',
    );
  });

  it('the context figure on every fixture, also when long lines follow the newest request (never an early request of the head)', async () => {
    const dir = join(root, 'newest', 'p');
    mkdirSync(dir, { recursive: true });
    let checked = 0;
    let headHadUsage = 0;
    let leftToBackground = 0;
    for (const src of claudeFixtures().filter((f) => !f.endsWith('subagent.jsonl'))) {
      const expected = contextNow((await inspectFile(src)).report).tokens;
      const file = join(dir, 'session.jsonl');
      writeFileSync(file, readFileSync(src));
      for (const tail of [0, TAIL_BYTES + 1000, USAGE_SCAN_BYTES + 1000]) {
        // Long lines after the newest request (a big tool result, a snapshot): the newest usage is then far from the end.
        if (tail)
          appendFileSync(
            file,
            JSON.stringify({ type: 'file-history-snapshot', messageId: 'm', snapshot: { note: 'x'.repeat(tail) } }) +
              '\n',
          );
        const quick = await summarizeSession(file, 'p');
        const whole = await sessionStats(file);
        const where = `${src} with ${tail} more bytes after the newest request`;
        // The background read (the whole file) is the Rounds tree's figure, always; the quick read is the same once
        // calibrated by it (within the calibration's share before), or unknown when the newest request lies further
        // back than it reads (and the row then shows the background's).
        assert.equal(whole.contextTokens, expected, where);
        if (quick.contextTokens === null && expected !== null) leftToBackground++;
        else {
          assert.ok(Math.abs(quick.contextTokens! - expected) <= expected * 0.01, `${where}: ${quick.contextTokens}`);
          assert.equal(sessionContext(quick, whole, true).tokens, expected, where);
        }
        const shown = shownContext(quick, { kind: 'ready', stats: whole, stale: false });
        assert.equal(shown.contextTokens, expected, where);
        if (expected !== null)
          assert.ok(
            quick.contextTokens === null || (quick.model && whole.model === quick.model),
            `${where}: model read with the usage`,
          );
      }
      if (readFileSync(src, 'utf8').slice(0, HEAD_BYTES).includes('"usage"')) headHadUsage++;
      checked++;
    }
    assert.ok(checked >= 8, `${checked} fixtures checked`);
    // The case that went wrong: an earlier request's usage in the head, which the list used to show instead.
    assert.ok(headHadUsage >= 3, `${headHadUsage} fixtures with a request in the head`);
    assert.ok(leftToBackground >= 1, 'some newest request lies beyond the quick read');
  });

  it('1,000 sessions in 40 projects: grouped by real path, newest first, workspace project first, filtered; faster than parsing them whole', async function () {
    this.timeout(300_000);
    const home = join(root, 'many');
    // Each fixture cut once at its cwd fields, joined with each project's (not a regex pass over every file written).
    const sources = claudeFixtures()
      .filter((f) => !f.endsWith('subagent.jsonl'))
      .map((f) => readFileSync(f, 'utf8').split(/"cwd":"[^"]*"/));
    const t0 = Date.now() - 10 * 86_400_000;
    for (let k = 0; k < 1000; k++) {
      const p = k % 40;
      const cwd = `/home/me/work/project-${p}`;
      const dir = join(home, folderOf(cwd));
      mkdirSync(dir, { recursive: true });
      const id = `00000000-0000-4000-8000-${String(k).padStart(12, '0')}`;
      const file = join(dir, `${id}.jsonl`);
      writeFileSync(file, sources[k % sources.length].join(`"cwd":"${cwd}"`));
      const t = new Date(t0 + k * 60_000);
      utimesSync(file, t, t);
    }
    // Baseline in the same run: what a list that read the sessions whole would at least do, read every file and parse
    // every line. Work of the same kind as the listing's (reading, then parsing), so a busy machine slows both alike:
    // against reading alone (memory-bound, from the page cache) a CPU hog beside the test made the listing look twice
    // as slow (875 ms against 447 ms; 454 against 582 on an idle machine). It stops once it has taken longer than
    // `limit` (the listing's time): the listing is then faster than the whole read, which takes longer still (parsing
    // all 857 MB took 10-40 s, the most costly step of the unit tier, to show a ratio of 0.02-0.03).
    const whole = async (limit: number) => {
      const t = performance.now();
      let lines = 0;
      let files = 0;
      let bytes = 0;
      for (const p of readdirSync(home))
        for (const f of readdirSync(join(home, p))) {
          if (performance.now() - t > limit) {
            assert.ok(lines >= files, 'every file read so far held a line');
            return { ms: performance.now() - t, files, bytes, all: false };
          }
          const buf = await readFile(join(home, p, f));
          for (const line of buf.toString('utf8').split('\n')) {
            if (!line) continue;
            try {
              JSON.parse(line);
              lines++;
            } catch {
              /* a malformed line counts as read */
            }
          }
          files++;
          bytes += buf.length;
        }
      assert.ok(lines > 1000);
      return { ms: performance.now() - t, files, bytes, all: true };
    };
    // Bytes this process read (Linux's count of read() calls, page cache included): what the listing reads, apart from
    // how busy the machine is.
    const bytesRead = () => Number(/^rchar: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'))![1]);
    const scan = async () => {
      const t = performance.now();
      const before = bytesRead();
      const l = await scanSessions(home);
      return { ms: performance.now() - t, read: bytesRead() - before, l };
    };
    const runs = [await scan(), await scan()];
    const ms = Math.min(...runs.map((r) => r.ms));
    const baseline = await whole(ms);
    const list = runs[0].l;
    console.log(
      `      1,000 sessions (${Math.round(list.reduce((s, x) => s + x.size, 0) / 1e6)} MB) listed in ${Math.round(ms)} ms, ${Math.round(Math.min(...runs.map((r) => r.read)) / 1e6)} MB read (reading and parsing them whole: ${baseline.all ? '' : 'over '}${Math.round(baseline.ms)} ms for the first ${baseline.files} files, ${Math.round(baseline.bytes / 1e6)} MB), at most ${(HEAD_BYTES + TAIL_BYTES) / 1024} KiB of each and up to ${USAGE_SCAN_BYTES / 1024} KiB back from the end for the newest request`,
    );
    assert.equal(list.length, 1000);
    // The ends of each file and the newest request, not the files: at most the head, the tail and the scan back for the
    // newest usage of each (the tail and the scan overlap), where reading them whole is every byte.
    const total = list.reduce((sum, x) => sum + x.size, 0);
    const bound = list.reduce((sum, x) => sum + Math.min(x.size, HEAD_BYTES + TAIL_BYTES + USAGE_SCAN_BYTES), 0);
    const read = Math.min(...runs.map((r) => r.read));
    assert.ok(read <= bound, `the listing read ${read} bytes, more than the ${bound} the ends and the scan hold`);
    assert.ok(read < total / 2, `the listing read ${read} of ${total} bytes`);
    assert.ok(
      ms < baseline.ms,
      `listing took ${Math.round(ms)} ms, reading and parsing the files whole ${Math.round(baseline.ms)} ms`,
    );
    assert.ok(
      list.every((s, i) => i === 0 || list[i - 1].mtimeMs >= s.mtimeMs),
      'newest first',
    );
    const groups = groupSessions(list, '/home/me/work/project-3');
    assert.equal(groups.length, 40);
    assert.equal(groups[0].project, '/home/me/work/project-3', 'the workspace project first');
    assert.equal(groups[1].project, '/home/me/work/project-39', 'then the most recently active');
    assert.ok(groups.every((g) => g.sessions.length === 25));
    // The narrow scan the live status makes while the view is hidden: the named project folders only.
    const narrow = await scanSessions(home, Date.now(), [folderOf('/home/me/work/project-3'), 'no-such-folder']);
    assert.equal(narrow.length, 25);
    assert.ok(narrow.every((s) => s.cwd === '/home/me/work/project-3'));
    const filtered = groupSessions(list, null, 'PROJECT-17');
    assert.deepEqual(
      filtered.map((g) => g.project),
      ['/home/me/work/project-17'],
    );
  });
});
