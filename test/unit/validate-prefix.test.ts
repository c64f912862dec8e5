// checkResumable with `prefix` (compact.ts passes the original's index): only the appended bytes are read, and the
// check is the same as validating the written file from scratch.
import { strict as assert } from 'node:assert';
import { copyFileSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { inspectFile } from '../../src/core/inspect';
import { compactFile } from '../../src/core/compact/compact';
import { checkResumable } from '../../src/core/compact/validate';
import { claudeFixtures } from '../support/fixtures';
import { tempDir } from '../support/temp';

const root = tempDir('ac-validate-prefix-');
let n = 0;
let compacted = 0;
function place(name: string, bytes: Buffer): string {
  const d = join(root, String(n++));
  mkdirSync(d);
  const p = join(d, name);
  writeFileSync(p, bytes);
  return p;
}

describe('checkResumable after a known prefix', function () {
  this.timeout(300_000);

  for (const src of claudeFixtures()) {
    for (const trailingNewline of [true, false]) {
      it(`${basename(src)}${trailingNewline ? '' : ' (last line unterminated)'}: same result as a full check`, async () => {
        let bytes = readFileSync(src);
        if (!trailingNewline)
          while (bytes.length && bytes[bytes.length - 1] === 10) bytes = bytes.subarray(0, bytes.length - 1);
        const file = place(basename(src), bytes);
        const analysis = await inspectFile(file, { subagents: false });
        const target = Math.max(
          1_000,
          Math.round(analysis.report.rounds.filter((r) => r.inContext).reduce((s, r) => s + r.tokens.estimate, 0) / 3),
        );
        let output: string;
        try {
          output = (
            await compactFile(file, {
              summarizer: 'extractive',
              settings: { targetTokens: target, keepRecentTokens: 1_000 },
              out: join(root, `out-${n++}.jsonl`),
            })
          ).output;
          compacted++;
        } catch {
          // Not compactable (nothing to do, or the input itself is not resumable): check the original against itself.
          output = file;
        }
        const size = statSync(file).size;
        const opts = {
          targetTokens: target,
          calibration: analysis.report.totals.calibrationFactor,
          expectSummaryFirst: true,
        };
        const full = await checkResumable(output, opts);
        const fast = await checkResumable(output, { ...opts, prefix: { index: analysis.index, bytes: size } });
        assert.deepStrictEqual(fast, full);
        // A prefix that does not end where the index stopped: indexed whole, same result.
        const fallback = await checkResumable(output, { ...opts, prefix: { index: analysis.index, bytes: size - 1 } });
        assert.deepStrictEqual(fallback, full);
        // The prefix index is not changed.
        assert.deepStrictEqual(
          (await inspectFile(file, { subagents: false })).index.entries.length,
          analysis.index.entries.length,
        );
      });
    }
  }

  it('compacted most fixtures above (the prefix path was exercised)', () => {
    assert.ok(compacted >= claudeFixtures().length, `${compacted} compactions`);
  });

  it('a written copy with an appended tail line: the prefix index is extended, not the original', async () => {
    const src = claudeFixtures().find((f) => f.endsWith('v1.0.98-small.jsonl'))!;
    const file = place('s.jsonl', readFileSync(src));
    const analysis = await inspectFile(file, { subagents: false });
    const before = analysis.index.entries.length;
    const out = join(root, 'copy.jsonl');
    copyFileSync(file, out);
    writeFileSync(
      out,
      Buffer.concat([readFileSync(out), Buffer.from('{"type":"last-prompt","lastPrompt":"x","leafUuid":"nope"}\n')]),
    );
    const fast = await checkResumable(out, { prefix: { index: analysis.index, bytes: statSync(file).size } });
    assert.deepStrictEqual(fast, await checkResumable(out));
    assert.equal(analysis.index.entries.length, before);
    assert.equal(analysis.index.path, file);
  });
});
