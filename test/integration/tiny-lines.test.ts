// Millions of tiny lines (issue 31, item 5): memory follows what a transcript holds, not how many lines it has. The
// built CLI compacts a session followed by 3,000,000 lines of `{}` (fork, extractive) under 600 MB peak RSS, and
// refuses 3,000,000 tiny records (each with a uuid) clearly, writing nothing, before it has spent that much. Before,
// the first took 1.5 GB (6,000,000 lines: V8's "heap out of memory", exit 134) and the second about as much per line.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import {
  closeSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { MAX_TRANSCRIPT_RECORDS } from '../../src/core/transcript';
import { assertCliBuilt, CLI } from '../support/cli';
import { fixture } from '../support/fixtures';
import { tempDir } from '../support/temp';

const MB = 1e6;
const PEAK_LIMIT = 600 * MB;
const LINES = 3_000_000;

/**
 * Loaded into the CLI's process with `--require`: writes the process's peak resident set size (getrusage, what the
 * kernel counted, in bytes) to the file named by AC_PEAK_RSS_FILE when it exits.
 */
const PEAK_RSS_PRELOAD = `process.on('exit', () => {
  require('node:fs').writeFileSync(process.env.AC_PEAK_RSS_FILE, String(process.resourceUsage().maxRSS * 1024));
});
`;

interface Run {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Peak RSS of the CLI's process in bytes; NaN when it died before its exit handlers ran. */
  peakRss: number;
}

/** Runs the built CLI in `dir` and reports how it ended and its peak RSS. */
function runCli(dir: string, args: string[]): Promise<Run> {
  const preload = join(dir, '..', `${process.pid}-peak-rss.cjs`);
  const peakFile = join(dir, '..', `${process.pid}-peak-rss.txt`);
  writeFileSync(preload, PEAK_RSS_PRELOAD);
  rmSync(peakFile, { force: true });
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--require', preload, CLI, ...args], {
      cwd: dir,
      env: { ...process.env, AC_PEAK_RSS_FILE: peakFile },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    // A generous bound against a hang; on an idle machine the slower run takes about 10 s.
    const timer = setTimeout(() => child.kill('SIGKILL'), 150_000);
    child.on('error', reject);
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      let peakRss = NaN;
      try {
        peakRss = Number(readFileSync(peakFile, 'utf8'));
      } catch {
        /* the process died before its exit handlers */
      }
      resolve({ status, signal, stdout, stderr, peakRss });
    });
  });
}

/** Writes `head` (bytes) then `count` lines made by `line`, in large writes. */
function writeLines(file: string, head: Buffer, count: number, line: (i: number) => string): void {
  const fd = openSync(file, 'w');
  try {
    writeSync(fd, head);
    let batch: string[] = [];
    for (let i = 0; i < count; i++) {
      batch.push(line(i));
      if (batch.length === 100_000) {
        writeSync(fd, batch.join('\n') + '\n');
        batch = [];
      }
    }
    if (batch.length) writeSync(fd, batch.join('\n') + '\n');
  } finally {
    closeSync(fd);
  }
}

const mb = (bytes: number) => `${(bytes / MB).toFixed(0)} MB`;

describe('millions of tiny lines (built CLI, peak RSS)', function () {
  this.timeout(300_000);
  let root: string;
  before(() => {
    assertCliBuilt();
    root = tempDir('ac-tiny-lines-');
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it(`compacts a session followed by ${LINES.toLocaleString('en-US')} lines of {} under ${mb(PEAK_LIMIT)} peak RSS`, async () => {
    const dir = mkdtempSync(join(root, 'empty-'));
    const file = join(dir, '0b5e1c1e-7d3a-4c55-9f0e-2d9a4c6b8e11.jsonl');
    const session = readFileSync(fixture('with-compactions.jsonl'));
    writeLines(file, session, LINES, () => '{}');
    const run = await runCli(dir, ['compact', file, '--summarizer', 'extractive']);
    assert.equal(run.status, 0, `exit ${run.status ?? run.signal}: ${run.stderr.slice(0, 2000)}`);
    assert.ok(run.peakRss < PEAK_LIMIT, `peak RSS ${mb(run.peakRss)}, over ${mb(PEAK_LIMIT)}`);
    const written = /^wrote (.+\.jsonl)$/m.exec(run.stdout)?.[1];
    assert.ok(written, `no output named: ${run.stdout.slice(0, 500)}`);
    // A fork: the original's bytes, every tiny line among them, then the compacted conversation.
    const fd = openSync(written, 'r');
    try {
      const head = Buffer.alloc(session.length);
      readSync(fd, head, 0, head.length, 0);
      assert.ok(head.equals(session), 'the output begins with the original session');
    } finally {
      closeSync(fd);
    }
  });

  it(`refuses ${LINES.toLocaleString('en-US')} tiny records clearly, writing nothing, under ${mb(PEAK_LIMIT)} peak RSS`, async () => {
    const dir = mkdtempSync(join(root, 'records-'));
    const file = join(dir, '5d2f8a0c-3b1e-4f6a-8c7d-9e0a1b2c3d4e.jsonl');
    // Progress lines of Claude Code's chain: each has a uuid, so each is a record the engine keeps.
    writeLines(file, Buffer.alloc(0), LINES, (i) => `{"type":"progress","uuid":"p${i}","parentUuid":"p${i - 1}"}`);
    const before = readdirSync(dir).sort();
    const run = await runCli(dir, ['compact', file, '--summarizer', 'extractive']);
    assert.equal(run.status, 2, `exit ${run.status ?? run.signal}: ${run.stderr.slice(0, 2000)}`);
    const max = MAX_TRANSCRIPT_RECORDS.toLocaleString('en-US');
    const over = (MAX_TRANSCRIPT_RECORDS + 1).toLocaleString('en-US');
    assert.equal(
      run.stderr,
      `agent-compactor: ${file}: too large: by line ${over} it holds over ${max} records (messages, events and ` +
        `malformed lines), the most Agent Compactor holds of one transcript, so that one file cannot use up the memory ` +
        `of the process (or of VS Code's extension host)\n`,
    );
    assert.equal(run.stdout, '');
    assert.deepEqual(readdirSync(dir).sort(), before, 'nothing written beside the session');
    assert.ok(run.peakRss < PEAK_LIMIT, `peak RSS ${mb(run.peakRss)}, over ${mb(PEAK_LIMIT)}`);
  });

  it('one round of 249,000 short lines (just under the records cap) is refused as nothing to gain, not a stack overflow', async () => {
    const dir = mkdtempSync(join(root, 'one-round-'));
    const file = join(dir, '7e3c9b2a-4d5f-4a6b-8c1d-2e3f4a5b6c7d.jsonl');
    const sid = '7e3c9b2a-4d5f-4a6b-8c1d-2e3f4a5b6c7d';
    const prompt = JSON.stringify({
      type: 'user',
      uuid: 'u0',
      parentUuid: null,
      sessionId: sid,
      message: { role: 'user', content: 'go' },
    });
    // One response (one message.id) written as 249,000 lines: one round the compaction must keep whole. Its lines were
    // passed to push() as spread arguments, over the engine's stack.
    writeLines(file, Buffer.from(prompt + '\n'), 249_000, (k) =>
      JSON.stringify({
        type: 'assistant',
        uuid: `a${k}`,
        parentUuid: k ? `a${k - 1}` : 'u0',
        sessionId: sid,
        message: { id: 'msg_one', role: 'assistant', model: 'claude-test', content: [{ type: 'text', text: `t${k}` }] },
      }),
    );
    const before = readdirSync(dir).sort();
    const run = await runCli(dir, ['compact', file, '--summarizer', 'extractive', '--target-tokens', '20000']);
    // Nothing to gain is an answer, not a failure: exit 0, said on stdout.
    assert.equal(run.status, 0, `exit ${run.status ?? run.signal}: ${run.stderr.slice(0, 2000)}`);
    assert.match(run.stdout, /^Nothing to gain: the compacted context would be about [\d,]+ tokens/m);
    assert.doesNotMatch(run.stderr, /call stack/);
    assert.deepEqual(readdirSync(dir).sort(), before, 'nothing written beside the session');
  });
});
