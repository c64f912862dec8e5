// Bytes that are not UTF-8 in lines a compaction writes again (kept rounds, re-linked with new
// ids) come out as the same bytes, not U+FFFD: "kept verbatim" holds byte for byte.
import { strict as assert } from 'node:assert';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compactFile } from '../../src/core/compact/compact';
import { RawBytes } from '../../src/core/lines';
import { inspectFile } from '../../src/core/inspect';
import { fixture } from '../support/fixtures';
import { tempDir } from '../support/temp';

/** A small deterministic generator (mulberry32). */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('invalid UTF-8 in kept rounds', function () {
  this.timeout(300_000);

  it('survives decode, JSON parse and stringify, encode byte for byte (random bytes in a JSON string)', () => {
    const next = rng(7);
    for (let n = 0; n < 2000; n++) {
      const len = 1 + Math.floor(next() * 24);
      // Printable ASCII, multi-byte UTF-8 and stray bytes mixed, never a quote, backslash or control byte.
      const parts: Buffer[] = [];
      for (let k = 0; k < len; k++) {
        const pick = next();
        if (pick < 0.4) parts.push(Buffer.from(String.fromCharCode(0x61 + Math.floor(next() * 26))));
        else if (pick < 0.6) parts.push(Buffer.from(['é', '→', '😀', '中'][Math.floor(next() * 4)]));
        else parts.push(Buffer.of(0x80 + Math.floor(next() * 0x80)));
      }
      const line = Buffer.concat([Buffer.from('{"a":"'), ...parts, Buffer.from('"}')]);
      const raw = new RawBytes(new Set([0]));
      const text = raw.decode(line);
      const again = raw.encode(JSON.stringify(JSON.parse(text)));
      if (raw.escapedLines) assert.deepEqual(again, line, `case ${n}: ${line.toString('hex')}`);
      assert.equal(raw.lossy, false);
    }
  });

  it('tells an escaped byte from an escaped backslash followed by "udc80"', () => {
    const line = Buffer.concat([Buffer.from('{"a":"\\\\udc80 '), Buffer.of(0xff), Buffer.from('"}')]);
    const raw = new RawBytes(new Set([0]));
    const again = raw.encode(JSON.stringify(JSON.parse(raw.decode(line))));
    assert.deepEqual(again, line);
  });

  it('falls back to U+FFFD, and says so, when a written line already holds a lone-surrogate escape', () => {
    const raw = new RawBytes(new Set([0, 1]));
    const a = Buffer.concat([Buffer.from('{"a":"x'), Buffer.of(0xff), Buffer.from('"}')]);
    const b = Buffer.from('{"b":"\\udc80"}');
    const text = JSON.stringify(JSON.parse(raw.decode(a))) + '\n' + JSON.stringify(JSON.parse(raw.decode(b)));
    const out = raw.encode(text).toString('utf8');
    assert.equal(raw.lossy, true);
    assert.equal(out, '{"a":"x\ufffd"}\n{"b":"\ufffd"}');
  });

  it('writes the stray bytes of a kept tool result as they were in the original', async () => {
    const dir = tempDir('ac-rawbytes-');
    const original = readFileSync(fixture('v2.1.97-live-after.jsonl'));
    const a = await inspectFile(fixture('v2.1.97-live-after.jsonl'), { subagents: false });
    // The newest round with a tool result: always kept (the newest response and what answers it).
    const last = [...a.rounds].reverse().find((r) => r.toolResults.length > 0 && r.inContext)!;
    const userLine = last.entries.map((i) => a.index.entries[i]).find((e) => e.kind === 'user')!;
    const lineBytes = original.subarray(userLine.start, userLine.end);
    const at = lineBytes.indexOf('"content":"') + 11;
    assert.ok(at > 11, 'the result line has a string content');
    const stray = Buffer.of(0xc3, 0x28, 0xff, 0xe2, 0x82); // a bad continuation, 0xFF, a cut sequence
    const marker = Buffer.from('STRAY[');
    const changed = Buffer.concat([
      original.subarray(0, userLine.start + at),
      marker,
      stray,
      Buffer.from(']'),
      original.subarray(userLine.start + at),
    ]);
    const file = join(dir, 'session.jsonl');
    writeFileSync(file, changed);
    const result = await compactFile(file, { summarizer: 'extractive', settings: { targetTokens: 30_000 } });
    const out = readFileSync(result.output);
    const needle = Buffer.concat([marker, stray, Buffer.from(']')]);
    const firstCopy = out.indexOf(needle);
    assert.ok(firstCopy >= 0, 'the original line is in the output');
    const appendedCopy = out.indexOf(needle, firstCopy + 1);
    assert.ok(appendedCopy > firstCopy, 'the kept round written again carries the same bytes, not U+FFFD');
    assert.equal(out.indexOf(Buffer.from('STRAY[\uFFFD')), -1);
  });
});
