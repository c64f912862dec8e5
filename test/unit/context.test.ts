// One context figure (src/core/context.ts): what the next request carries. It must mean what Claude Code means by
// it: its own compact boundaries record that figure as `preTokens`, and so do ours.
import { strict as assert } from 'node:assert';
import { readFileSync, writeFileSync, copyFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { compactFile } from '../../src/core/compact/compact';
import { contextNow } from '../../src/core/context';
import { inspectFile } from '../../src/core/inspect';
import { claudeFixtures, fixture } from '../support/fixtures';
import { tempDir } from '../support/temp';

describe('the context figure', function () {
  this.timeout(300_000);
  const dir = tempDir('ac-context-');

  it('agrees with the preTokens Claude Code recorded at its own compactions, read from the lines before them', async () => {
    let checked = 0;
    for (const file of claudeFixtures()) {
      const buf = readFileSync(file);
      let offset = 0;
      for (const line of buf.toString('utf8').split('\n')) {
        const at = offset;
        offset += Buffer.byteLength(line) + 1;
        if (!line.includes('"compact_boundary"')) continue;
        const recorded = (JSON.parse(line) as { compactMetadata?: { preTokens?: number } }).compactMetadata?.preTokens;
        if (typeof recorded !== 'number') continue;
        const before = join(dir, `before-${checked}.jsonl`);
        writeFileSync(before, buf.subarray(0, at));
        const figure = contextNow((await inspectFile(before, { subagents: false })).report);
        assert.ok(
          Math.abs(figure.tokens / recorded - 1) < 0.02,
          `${basename(file)}: ours ${figure.tokens}, Claude Code's ${recorded}`,
        );
        assert.equal(figure.overhead + figure.transcript + figure.attached, figure.tokens);
        checked++;
      }
    }
    assert.ok(checked >= 1, 'a fixture holds a Claude Code compaction with preTokens');
  });

  for (const name of ['with-compactions.jsonl', 'v2.1.97-live-after.jsonl', 'example.jsonl']) {
    it(`${name}: our boundary records the context the session had, as the inspection reports it`, async () => {
      const file = join(dir, name);
      copyFileSync(fixture(name), file);
      const figure = contextNow((await inspectFile(file, { subagents: false })).report);
      const result = await compactFile(file, {
        summarizer: 'extractive',
        settings: { targetTokens: Math.round(figure.tokens / 2) },
      });
      const lines = readFileSync(result.output, 'utf8').trimEnd().split('\n');
      const boundary = lines
        .map(
          (l) => JSON.parse(l) as { compactMetadata?: { preTokens: number; postTokens: number; compactor?: string } },
        )
        .reverse()
        .find((o) => o.compactMetadata?.compactor === 'agent-compactor');
      assert.ok(boundary?.compactMetadata);
      assert.equal(boundary.compactMetadata.preTokens, figure.tokens);
      assert.ok(boundary.compactMetadata.postTokens < boundary.compactMetadata.preTokens);
      // The written file's own context figure is what the boundary says it became, within the estimate's rounding.
      const after = contextNow((await inspectFile(result.output, { subagents: false })).report);
      assert.ok(
        Math.abs(after.tokens - boundary.compactMetadata.postTokens) <= 0.1 * boundary.compactMetadata.postTokens,
        `after: ${after.tokens}, recorded ${boundary.compactMetadata.postTokens}`,
      );
    });
  }
});
