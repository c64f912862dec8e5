// Hand-made bad inputs: each gets a clear, located report and nothing is lost.
import { strict as assert } from 'node:assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspectFile } from '../../src/core/inspect';
import { indexTranscript, NotATranscriptError, assertTranscript } from '../../src/core/transcript';
import { readLines } from '../../src/core/reader';
import { runCliInProcess } from '../support/cliInProcess';
import { tempDir } from '../support/temp';

const dir = tempDir('ac-bad-');
let n = 0;
function file(content: string | Buffer): string {
  const p = join(dir, `case-${n++}.jsonl`);
  writeFileSync(p, content);
  return p;
}

const user = (uuid: string, parent: string | null, text: string) =>
  JSON.stringify({
    type: 'user',
    uuid,
    parentUuid: parent,
    isSidechain: false,
    sessionId: 's',
    message: { role: 'user', content: text },
  });
const asst = (uuid: string, parent: string, id: string, text: string, ctx = 100) =>
  JSON.stringify({
    type: 'assistant',
    uuid,
    parentUuid: parent,
    isSidechain: false,
    sessionId: 's',
    message: {
      id,
      role: 'assistant',
      model: 'claude-test',
      content: [{ type: 'text', text }],
      usage: { input_tokens: ctx, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 5 },
    },
  });
const good = [
  user('u1', null, 'hello'),
  asst('a1', 'u1', 'msg_1', 'hi'),
  user('u2', 'a1', 'more'),
  asst('a2', 'u2', 'msg_2', 'ok', 150),
];

describe('bad input', () => {
  it('reports a non-JSON line with its 1-based line number and keeps going', async () => {
    const p = file([good[0], good[1], 'this is { not json', good[2], good[3]].join('\n') + '\n');
    const { report } = await inspectFile(p);
    assert.equal(report.malformed.length, 1);
    assert.equal(report.malformed[0].line, 3);
    assert.match(report.malformed[0].error, /not valid JSON/);
    assert.equal(report.rounds.filter((r) => r.messageId).length, 2);
  });

  it('recovers two objects joined on one line', async () => {
    const p = file([good[0], good[1] + good[2], good[3]].join('\n') + '\n');
    const { report, index } = await inspectFile(p);
    assert.deepEqual(
      report.malformed.map((m) => m.line),
      [2],
    );
    assert.equal(index.entries.length, 4);
    assert.deepEqual(
      index.entries.map((e) => [e.line, e.part]),
      [
        [1, 0],
        [2, 0],
        [2, 1],
        [3, 0],
      ],
    );
  });

  it('handles a truncated last line (a session being written) as unterminated', async () => {
    const p = file(good.join('\n') + '\n' + good[3].slice(0, 40));
    const { report, index } = await inspectFile(p);
    assert.equal(index.unterminatedTail, true);
    assert.equal(report.malformed.length, 1);
    assert.equal(report.malformed[0].line, 5);
    assert.match(report.malformed[0].error, /unterminated last line/);
    assert.equal(report.rounds.filter((r) => r.messageId).length, 2);
  });

  it('accepts a BOM and CRLF line ends, with exact byte offsets', async () => {
    const text = '\uFEFF' + good.join('\r\n') + '\r\n';
    const p = file(text);
    const index = await indexTranscript(p);
    assert.equal(index.bom, true);
    assert.equal(index.crlfLines, 4);
    assert.equal(index.entries.length, 4);
    assert.equal(index.entries[0].start, 3);
    const buf = Buffer.from(text);
    for (const e of index.entries) assert.equal(buf.subarray(e.start, e.end).toString(), good[e.line - 1]);
  });

  it('reports invalid UTF-8 and keeps the line', async () => {
    const bad = Buffer.concat([
      Buffer.from(good[0].slice(0, -3)),
      Buffer.from([0xff, 0xfe]),
      Buffer.from(good[0].slice(-3)),
    ]);
    const p = file(Buffer.concat([bad, Buffer.from('\n' + good.slice(1).join('\n') + '\n')]));
    const { report, index } = await inspectFile(p);
    assert.equal(report.malformed.length, 1);
    assert.equal(report.malformed[0].line, 1);
    assert.match(report.malformed[0].error, /invalid UTF-8/);
    assert.equal(index.entries.length, 4);
  });

  it('refuses an empty file with a clear error', async () => {
    const p = file('');
    await assert.rejects(
      inspectFile(p),
      (e: Error) => e instanceof NotATranscriptError && /empty file/.test(e.message),
    );
  });

  it('refuses a file that is not a transcript', async () => {
    const p = file('{"name":"package","version":"1.0.0"}\n{"a":1}\n');
    await assert.rejects(
      inspectFile(p),
      (e: Error) => e instanceof NotATranscriptError && /none is a Claude Code transcript entry/.test(e.message),
    );
    const q = file('hello world\nthis is text\n');
    const idx = await indexTranscript(q);
    assert.throws(() => assertTranscript(idx), /not a JSONL transcript \(line 1/);
  });

  it('survives JSON nested 10,000 levels deep', async () => {
    const deep = '{"type":"user","uuid":"d","x":' + '['.repeat(10000) + ']'.repeat(10000) + '}';
    const p = file([good[0], deep, good[1]].join('\n') + '\n');
    const { index } = await inspectFile(p);
    assert.equal(index.entries.length + index.malformed.length >= 3, true);
  });

  it('streams an oversize line without holding it', async () => {
    const p = file(good[0] + '\n' + 'x'.repeat(5000) + '\n' + good[1] + '\n');
    const lines = [];
    for await (const l of readLines(p, { maxLineBytes: 1000, chunkSize: 512 }))
      lines.push({ line: l.line, len: l.bytes.length, oversize: l.oversize === true, start: l.start, end: l.end });
    assert.equal(lines.length, 3);
    assert.deepEqual(lines[1], {
      line: 2,
      len: 0,
      oversize: true,
      start: good[0].length + 1,
      end: good[0].length + 1 + 5000,
    });
    const index = await indexTranscript(p, { maxLineBytes: 1000 });
    assert.equal(index.malformed[0].line, 2);
    assert.match(index.malformed[0].error, /over the 1000-byte limit/);
  });

  it('reads lines across chunk boundaries exactly', async () => {
    const text = good.join('\n') + '\n';
    const p = file(text);
    for (const chunkSize of [1, 7, 64, 4096]) {
      const got: string[] = [];
      for await (const l of readLines(p, { chunkSize })) got.push(Buffer.from(l.bytes).toString());
      assert.deepEqual(got, good);
    }
  });

  // The verbs in this process, as `agent-compactor` runs them (the bundle's own wiring: test/integration/cli.test.ts).
  describe('CLI', () => {
    const run = (...args: string[]) => runCliInProcess(args);
    it('exits 2 with a one-line reason on unusable input', async () => {
      for (const p of [file(''), file('not json at all\n'), join(dir, 'missing.jsonl')]) {
        const r = await run('inspect', p);
        assert.equal(r.status, 2, r.stderr);
        assert.equal(r.stdout, '');
        assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
        assert.match(r.stderr, /^agent-compactor: /);
      }
    });
    it('exits 2 on bad arguments', async () => {
      assert.equal((await run('inspect')).status, 2);
      assert.equal((await run('inspect', '--bogus', 'x')).status, 2);
      assert.equal((await run('frobnicate')).status, 2);
    });
    it('prints JSON with the documented fields', async () => {
      const p = file(good.join('\n') + '\n');
      const r = await run('inspect', p, '--json');
      assert.equal(r.status, 0, r.stderr);
      const j = JSON.parse(r.stdout);
      assert.equal(j.rounds.length, 3);
      const r1 = j.rounds[1];
      assert.deepEqual(Object.keys(r1.tokens).sort(), ['added', 'estimate', 'source']);
      assert.equal(r1.messageId, 'msg_1');
      assert.equal(r1.firstLine, 2);
      assert.deepEqual(r1.usage, { contextTokens: 100, outputTokens: 5 });
      assert.equal(r1.tokens.source, 'usage');
      assert.equal(r1.tokens.added, 50);
      assert.ok(Array.isArray(j.sidechains) && Array.isArray(j.malformed) && typeof j.totals === 'object');
    });
  });
});
