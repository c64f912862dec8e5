// Entry digests: the hand-rolled pieces equal the straightforward definitions they replace.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { previewOf } from '../../src/core/entries';
import { indexTranscript } from '../../src/core/transcript';
import { readLineBatches, readLines } from '../../src/core/reader';
import { claudeFixtures } from '../support/fixtures';

const reference = (t: string) => t.slice(0, 400).replace(/\s+/g, ' ').trim().slice(0, 80);

describe('entry digests', () => {
  it('previewOf is text.slice(0, 400).replace(/\\s+/g, " ").trim().slice(0, 80)', () => {
    const alphabet = [
      'a',
      ' ',
      '\n',
      '\t',
      '\u00a0',
      'b',
      '\u2003',
      '\ud83d',
      '\ude00',
      'Z',
      '\u3000',
      '.',
      '\ufeff',
      '\u180e',
      '\u2028',
      '\r',
      '\v',
      '\f',
    ];
    let seed = 7;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const samples = [
      '',
      '   ',
      'hello',
      '  hello   world  ',
      'a'.repeat(500),
      'x'.repeat(79) + '   y',
      'x'.repeat(80) + ' y',
      ' '.repeat(395) + 'abcdefghij',
      '\ud83d\ude00'.repeat(300),
    ];
    for (let k = 0; k < 5000; k++) {
      let t = '';
      const len = Math.floor(rnd() * 450);
      const span = rnd() < 0.5 ? 3 : alphabet.length;
      for (let i = 0; i < len; i++) t += alphabet[Math.floor(rnd() * span)];
      samples.push(t);
    }
    for (const t of samples) assert.equal(previewOf(t), reference(t), JSON.stringify(t));
  });

  it('keeps every text preview of the fixtures as the reference computes it', async () => {
    for (const file of claudeFixtures()) {
      const index = await indexTranscript(file);
      const lines = readFileSync(file, 'utf8').split('\n');
      for (const e of index.entries) {
        if (e.part !== 0) continue;
        let o: any;
        try {
          o = JSON.parse(lines[e.line - 1]);
        } catch {
          continue;
        }
        const c = o?.message?.content;
        const texts: string[] =
          typeof c === 'string'
            ? [c]
            : Array.isArray(c)
              ? c.filter((b: any) => b?.type === 'text').map((b: any) => (typeof b.text === 'string' ? b.text : ''))
              : [];
        const previews = e.blocks.filter((b) => b.type === 'text').map((b) => b.preview);
        assert.deepEqual(previews, texts.map(reference), `${file}:${e.line}`);
      }
    }
  });

  it('yields the same lines in batches as one by one', async () => {
    const file = claudeFixtures().find((f) => f.endsWith('with-compactions.jsonl'))!;
    for (const chunkSize of [1 << 12, 1 << 16, 1 << 22]) {
      const single: string[] = [];
      for await (const l of readLines(file, { chunkSize }))
        single.push(`${l.line}:${l.start}:${l.end}:${l.bytes.length}`);
      const batched: string[] = [];
      for await (const batch of readLineBatches(file, { chunkSize }))
        for (const l of batch) batched.push(`${l.line}:${l.start}:${l.end}:${l.bytes.length}`);
      assert.deepEqual(batched, single);
    }
  });
});
