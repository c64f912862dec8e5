// Resource bounds: an over-long line is refused with a clear message and never held in
// memory; a 1 GB file streams with bounded RSS; indexing yields to the event loop.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { closeSync, ftruncateSync, openSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { inspectFile } from '../../../src/core/inspect';
import { indexTranscript, NotATranscriptError } from '../../../src/core/transcript';
import { compactFile } from '../../../src/core/compact/compact';
import { DEFAULT_MAX_LINE_BYTES } from '../../../src/core/reader';
import { repoRoot } from '../../support/fixtures';
import { buildTranscript, secs } from '../../support/reliability';
import { assertCliBuilt } from '../../support/cli';
import { tempDir } from '../../support/temp';

const MiB = 1 << 20;

/** Runs `body` (TypeScript) in a fresh Node process and returns its JSON line on stdout. */
function child(dir: string, body: string): any {
  const script = join(dir, `child-${Date.now()}.ts`);
  writeFileSync(script, body);
  const r = spawnSync(process.execPath, ['--import', 'tsx', script], {
    cwd: repoRoot,
    encoding: 'utf8',
    timeout: 120_000,
  });
  assert.equal(r.status, 0, `child failed (${r.signal ?? r.status}): ${r.stderr}`);
  const line = r.stdout.trim().split('\n').pop()!;
  return JSON.parse(line);
}

describe('resource bounds', function () {
  this.timeout(180_000);
  let dir: string;
  before(() => {
    dir = tempDir('ac-res-');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('reports a line over the configured maxLineBytes with a clear message and exact offsets', async () => {
    const lines = buildTranscript({ rounds: 4 });
    const big = JSON.stringify({
      type: 'user',
      uuid: 'big',
      parentUuid: null,
      message: { role: 'user', content: 'y'.repeat(3 * MiB) },
    });
    const all = [...lines.slice(0, 5), big, ...lines.slice(5)];
    const file = join(dir, 'long-line.jsonl');
    writeFileSync(file, all.join('\n') + '\n');
    const { index, report } = await inspectFile(file, { maxLineBytes: MiB });
    assert.equal(report.malformed.length, 1);
    assert.equal(report.malformed[0].line, 6);
    assert.equal(
      report.malformed[0].error,
      `line is ${Buffer.byteLength(big)} bytes, over the ${MiB}-byte limit; kept verbatim, not parsed`,
    );
    const m = index.malformed[0];
    const bytes = readFileSync(file);
    assert.equal(bytes.subarray(m.start, m.end).toString(), big, 'offsets of the refused line are exact');
    assert.equal(index.entries.length, all.length - 1, 'every other line parsed');
    // Under the default limit the same line parses.
    const again = await inspectFile(file);
    assert.equal(again.report.malformed.length, 0);
  });

  it(`keeps a line over the default ${DEFAULT_MAX_LINE_BYTES / MiB} MiB limit verbatim through inspect (CLI) and compaction`, async () => {
    const lines = buildTranscript({ rounds: 30, textChars: 2000 });
    const huge = JSON.stringify({
      type: 'user',
      uuid: 'huge',
      parentUuid: null,
      message: { role: 'user', content: 'z'.repeat(DEFAULT_MAX_LINE_BYTES + MiB) },
    });
    const all = [...lines.slice(0, 8), huge, ...lines.slice(8)];
    const file = join(dir, 'huge-line.jsonl');
    writeFileSync(file, all.join('\n') + '\n');
    const original = readFileSync(file);
    // CLI: the report names the line and the limit.
    assertCliBuilt();
    const r = spawnSync(process.execPath, [join(repoRoot, 'dist', 'cli.js'), 'inspect', file], {
      encoding: 'utf8',
      maxBuffer: 64 * MiB,
    });
    assert.equal(r.status, 0, r.stderr);
    assert.match(
      r.stdout,
      new RegExp(
        `malformed line 9: line is ${Buffer.byteLength(huge)} bytes, over the ${DEFAULT_MAX_LINE_BYTES}-byte limit; kept verbatim, not parsed`,
      ),
    );
    // Compaction keeps the line byte for byte in the output's prefix.
    const res = await compactFile(file, {
      summarizer: 'extractive',
      settings: { targetTokens: 6000, keepRecentTokens: 2000 },
    });
    const out = readFileSync(res.output);
    assert.ok(
      out.subarray(0, original.length).equals(original),
      'output starts with the original, over-long line included',
    );
    assert.ok(readFileSync(file).equals(original));
  });

  it('streams a 1 GB sparse file with bounded memory (child process RSS)', function () {
    const file = join(dir, 'sparse-1g.jsonl');
    const fd = openSync(file, 'w');
    const head = buildTranscript({ rounds: 2 });
    writeSync(fd, head.join('\n') + '\n');
    ftruncateSync(fd, 1 << 30); // a hole of NULs: one 1 GB "line", no disk blocks used
    writeSync(
      fd,
      '\n' +
        buildTranscript({ rounds: 1 })
          .map((l) => l.replace(/"uuid":"0/g, '"uuid":"1').replace(/"parentUuid":"0/g, '"parentUuid":"1'))
          .join('\n') +
        '\n',
      1 << 30,
    );
    closeSync(fd);
    assert.ok(statSync(file).size > 1 << 30);
    const run = (maxLineBytes: number | undefined) =>
      child(
        dir,
        `import { indexTranscript } from ${JSON.stringify(join(repoRoot, 'src/core/transcript.ts'))};
         (async () => {
           if (global.gc) global.gc();
           const base = process.memoryUsage().rss;
           let peak = base, ticks = 0;
           const iv = setInterval(() => { ticks++; peak = Math.max(peak, process.memoryUsage().rss); }, 5);
           const t0 = Date.now();
           const idx = await indexTranscript(${JSON.stringify(file)}, { maxLineBytes: ${maxLineBytes ?? 'undefined'} });
           clearInterval(iv);
           peak = Math.max(peak, process.memoryUsage().rss);
           console.log(JSON.stringify({ ms: Date.now() - t0, base, peak, ticks, lines: idx.lineCount, entries: idx.entries.length, malformed: idx.malformed }));
         })();`,
      );
    for (const limit of [undefined, MiB]) {
      const res = run(limit);
      const allowed = (limit ?? DEFAULT_MAX_LINE_BYTES) + 64 * MiB;
      console.log(
        `      1 GB sparse, maxLineBytes ${limit ?? 'default'}: ${secs(res.ms)} s, RSS ${(res.base / MiB).toFixed(0)} → peak ${(res.peak / MiB).toFixed(0)} MiB, ${res.ticks} timer ticks during the read`,
      );
      assert.equal(res.entries, head.length + 4);
      assert.equal(res.malformed.length, 1);
      assert.equal(res.malformed[0].line, head.length + 1);
      assert.match(res.malformed[0].error, /^line is \d+ bytes, over the \d+-byte limit; kept verbatim, not parsed$/);
      assert.ok(
        res.peak - res.base < allowed,
        `RSS grew by ${((res.peak - res.base) / MiB).toFixed(0)} MiB (allowed ${allowed / MiB})`,
      );
      assert.ok(res.ticks > 0, 'timers ran while the file was read');
    }
    rmSync(file);
  });

  it('refuses a 1 GB file of NULs as not a transcript, quickly and without holding it', async () => {
    const file = join(dir, 'nul-1g.jsonl');
    const fd = openSync(file, 'w');
    ftruncateSync(fd, 1 << 30);
    closeSync(fd);
    const t0 = Date.now();
    await assert.rejects(
      inspectFile(file, { maxLineBytes: MiB }),
      (e: Error) => e instanceof NotATranscriptError && /over the 1048576-byte limit/.test(e.message),
    );
    assert.ok(Date.now() - t0 < 60_000);
    rmSync(file);
  });

  it('yields to the event loop while indexing when yieldEvery is set (a timer fires mid-chunk)', async () => {
    const file = join(dir, 'many-lines.jsonl');
    const lines: string[] = [];
    for (let i = 0; i < 60_000; i++)
      lines.push(
        JSON.stringify({
          type: 'user',
          uuid: `u${i}`,
          parentUuid: i ? `u${i - 1}` : null,
          message: { role: 'user', content: 'hello world '.repeat(10) },
        }),
      );
    writeFileSync(file, lines.join('\n') + '\n');
    // What happens on the event loop is counted, not timed, so that a busy machine cannot change the outcome: the
    // indexer's yields (setImmediate calls while it runs) and whether a timer set just after its fifth yield, inside
    // the first 1 MiB chunk, ran before indexing ended.
    const measure = async (yieldEvery?: number) => {
      const realSetImmediate = global.setImmediate;
      let yields = 0;
      let indexing = true;
      let timerRanWhileIndexing = false;
      global.setImmediate = ((fn: (...a: unknown[]) => void, ...args: unknown[]) => {
        if (++yields === 5) setTimeout(() => (timerRanWhileIndexing = indexing), 0);
        return realSetImmediate(fn, ...args);
      }) as typeof setImmediate;
      try {
        const index = await indexTranscript(file, { yieldEvery });
        assert.equal(index.entries.length, lines.length);
      } finally {
        indexing = false;
        global.setImmediate = realSetImmediate;
      }
      return { yields, timerRanWhileIndexing };
    };
    const without = await measure();
    const withYield = await measure(100);
    const chunks = Math.ceil(statSync(file).size / MiB);
    console.log(
      `      ${lines.length} lines in ${chunks} chunks: ${without.yields} yields without yieldEvery, ${withYield.yields} with yieldEvery=100`,
    );
    assert.equal(without.yields, 0, 'without yieldEvery the indexer runs each chunk through');
    assert.ok(withYield.yields >= lines.length / 100 - 1, `${withYield.yields} yields for ${lines.length} lines`);
    // The fifth yield is 500 lines in, well inside the first chunk: a timer set there runs before indexing ends.
    assert.ok(withYield.timerRanWhileIndexing, 'a timer set mid-chunk ran while indexing went on');
  });
});
