// Honest token estimates: the metric over the shared fixtures, computed from the
// inspect report exactly as bench/RESULTS.md reports it (bench/accuracy.ts).
//
// For consecutive main-chain rounds r, r+1 that both have usage and no compact boundary
// between them, Δ = context(r+1) − context(r) is the truth and `tokens.estimate` of round r
// the estimate; over all pairs with Δ ≥ 300 the median relative error must be ≤ 10 % and the
// 90th percentile ≤ 30 %. v2.1.97-live-before.jsonl is left out (a byte prefix of live-after:
// its pairs would count twice).
import { strict as assert } from 'node:assert';
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import {
  leaveOneOut,
  loadSessions,
  metricFiles,
  reportedErrors,
  scoredPairs,
  errorStats,
  type SessionData,
} from '../../bench/accuracy';
import { inspectFile } from '../../src/core/inspect';
import {
  rawEstimate,
  SessionCalibration,
  TEXT_TOKENS,
  textFeatures,
  textTokens,
  TOKEN_MODEL,
} from '../../src/core/tokens/estimate';
import type { RoundContent } from '../../src/core/rounds';
import { fixture } from '../support/fixtures';
import { tempDir } from '../support/temp';

describe('estimate accuracy on the shared fixtures', function () {
  this.timeout(120_000);
  let sessions: SessionData[];
  before(async () => {
    sessions = await loadSessions();
  });

  it('scores every fixture but the live-before prefix, and enough pairs to mean something', () => {
    const names = metricFiles().map((f) => basename(f));
    assert.ok(!names.includes('v2.1.97-live-before.jsonl'));
    assert.ok(names.includes('v2.1.97-live-after.jsonl'));
    const pairs = sessions.reduce((n, s) => n + scoredPairs(s).length, 0);
    assert.ok(pairs >= 300, `only ${pairs} scored pairs`);
    for (const s of sessions) for (const { delta } of scoredPairs(s)) assert.ok(delta >= 300);
  });

  it('median relative error ≤ 10 % and 90th percentile ≤ 30 % (inspect report estimates)', () => {
    const s = errorStats(reportedErrors(sessions));
    assert.ok(s.median <= 0.1, `median ${(100 * s.median).toFixed(1)}%`);
    assert.ok(s.p90 <= 0.3, `p90 ${(100 * s.p90).toFixed(1)}%`);
  });

  it('stays within the targets when the weights are refitted without the session scored (leave one out)', () => {
    const s = errorStats(leaveOneOut(sessions).errors);
    assert.ok(s.median <= 0.1, `LOSO median ${(100 * s.median).toFixed(1)}%`);
    assert.ok(s.p90 <= 0.3, `LOSO p90 ${(100 * s.p90).toFixed(1)}%`);
  });

  it('calibrates on earlier rounds only: a prefix of a session gets the same estimates for its complete rounds', async () => {
    const file = fixture('with-compactions.jsonl');
    const lines = readFileSync(file, 'utf8').split('\n');
    const dir = tempDir('ac-acc-');
    const prefix = join(dir, 'prefix.jsonl');
    writeFileSync(prefix, lines.slice(0, Math.floor(lines.length * 0.6)).join('\n') + '\n');
    const full = (await inspectFile(file, { subagents: false })).report.rounds;
    const part = (await inspectFile(prefix, { subagents: false })).report.rounds;
    assert.ok(part.length > 20);
    // The prefix's last round may be cut short; every earlier one must match exactly.
    for (let i = 0; i < part.length - 1; i++) {
      assert.equal(part[i].messageId, full[i].messageId);
      assert.equal(part[i].tokens.estimate, full[i].tokens.estimate, `round ${i}`);
    }
  });
});

describe('estimator pieces', () => {
  it('textTokens is the TEXT_TOKENS-weighted sum of textFeatures', () => {
    const keys = Object.keys(TEXT_TOKENS) as (keyof typeof TEXT_TOKENS)[];
    for (const s of [
      '',
      'plain words only',
      'CamelCase, punctuation!!! and   spaces',
      '  42 → 1337\n\tindent',
      'é日本語😀',
      JSON.stringify({ a: [1, 2, { b: 'c\nd' }] }),
    ]) {
      const f = textFeatures(s);
      const dot = keys.reduce((acc, k, j) => acc + TEXT_TOKENS[k] * f[j], 0);
      assert.ok(Math.abs(textTokens(s) - dot) < 1e-9, s);
    }
    assert.deepEqual(textFeatures('ab  C,.1\n x'), [11, 1, 1, 2, 0, 1]);
  });

  it('scales proxy counts with the characters left when a caller shrinks content', () => {
    const c: RoundContent = {
      assistantText: 0,
      toolUseInput: 0,
      thinking: 0,
      signature: 0,
      userText: 0,
      toolResult: 1000,
      attachment: 0,
      images: 0,
      blocks: 1,
      proxy: { prose: 0, proseChars: 0, toolUseInput: 0, toolUseInputChars: 0, toolResult: 400, toolResultChars: 1000 },
    };
    const base = rawEstimate({ ...c, toolResult: 0 }, true);
    assert.ok(Math.abs(rawEstimate(c, true) - base - 400 * TOKEN_MODEL.toolResultScale) < 1e-9);
    assert.ok(Math.abs(rawEstimate({ ...c, toolResult: 250 }, true) - base - 100 * TOKEN_MODEL.toolResultScale) < 1e-9);
    assert.ok(
      Math.abs(
        rawEstimate({ ...c, toolResult: 1100 }, true) -
          base -
          400 * TOKEN_MODEL.toolResultScale -
          100 * TOKEN_MODEL.toolResult,
      ) < 1e-9,
    );
    const { proxy: _omit, ...noProxy } = c;
    assert.ok(Math.abs(rawEstimate(noProxy, true) - base - 1000 * TOKEN_MODEL.toolResult) < 1e-9);
  });

  it('SessionCalibration is the shrunk median of the observed ratios', () => {
    const cal = new SessionCalibration(10);
    assert.equal(cal.factor, 1);
    cal.observe(299, 100); // below the 300-token floor: ignored
    cal.observe(1000, 0); // no estimate: ignored
    assert.equal(cal.samples, 0);
    for (const [t, r] of [
      [600, 300],
      [900, 300],
      [300, 300],
    ])
      cal.observe(t, r);
    assert.equal(cal.samples, 3);
    assert.ok(Math.abs(cal.factor - (3 * 2 + 10) / 13) < 1e-12); // ratios 1, 2, 3 → median 2
    const copy = cal.clone();
    copy.observe(3000, 300);
    assert.equal(cal.samples, 3);
    assert.equal(copy.samples, 4);
  });
});
