// Codex's `history_mode` (session_meta): a thread stored as `legacy` or `paginated` is written back and offered for
// resume; a paginated rollout our writer cannot append to as Codex reads it (no ordinal to continue, or a fork whose
// history is in its original's file) is refused with why; a mode nobody here knows is neither written nor resumed.
// Rollouts derived from a real 0.142 fixture, their session_meta made to say each mode.
import { strict as assert } from 'node:assert';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compactFile } from '../../src/core/compact/compact';
import { CompactError } from '../../src/core/compact/types';
import { codex } from '../../src/core/formats/codex';
import { sharedFixtures } from '../support/fixtures';
import { tempDir } from '../support/temp';

const SOURCE = join(sharedFixtures, 'codex', 'rollout-0.142.jsonl');
const SETTINGS = { targetTokens: 30_000, keepRecentTokens: 2_000 };

/** The fixture with its session_meta given `meta` fields, and (`ordinals`) every record numbered as 0.169 does. */
function derived(dir: string, meta: Record<string, unknown>, ordinals: boolean): string {
  const lines = readFileSync(SOURCE, 'utf8').trimEnd().split('\n');
  let metaDone = false;
  const out = lines.map((line, n) => {
    const { timestamp, ...rest } = JSON.parse(line);
    if (rest.type === 'session_meta' && !metaDone) {
      metaDone = true;
      rest.payload = { ...rest.payload, ...meta };
    }
    return JSON.stringify(ordinals ? { timestamp, ordinal: n, ...rest } : { timestamp, ...rest });
  });
  assert.ok(metaDone, 'the fixture has a session_meta');
  const file = join(dir, 'rollout-2026-01-01T00-00-00-derived.jsonl');
  writeFileSync(file, out.join('\n') + '\n');
  return file;
}

async function refusal(file: string): Promise<CompactError> {
  const before = readFileSync(file);
  for (const inPlace of [true, false]) {
    await assert.rejects(
      compactFile(file, { summarizer: 'extractive', inPlace, settings: SETTINGS }),
      (e: unknown) => e instanceof CompactError && e.code === 'unsupported-format',
    );
    assert.ok(readFileSync(file).equals(before), 'the rollout is unchanged');
  }
  return compactFile(file, { summarizer: 'extractive', inPlace: true, settings: SETTINGS }).then(
    () => assert.fail('compacted'),
    (e: CompactError) => e,
  );
}

describe('Codex history_mode: what is written back and resumed', function () {
  this.timeout(120_000);
  let dir: string;
  beforeEach(() => (dir = tempDir('ac-codex-mode-')));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('a paginated rollout whose records are numbered is compacted, our record numbered after the last, and offered for resume', async () => {
    const file = derived(dir, { history_mode: 'paginated' }, true);
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n').length;
    const result = await compactFile(file, { summarizer: 'extractive', inPlace: true, settings: SETTINGS });
    assert.equal(result.mode, 'in-place');
    const last = JSON.parse(readFileSync(file, 'utf8').trimEnd().split('\n').pop()!);
    assert.equal(last.type, 'compacted');
    assert.equal(last.ordinal, lines, 'ordinals 0..n-1 are followed by n');
    const located = await codex.resume!.locate(file);
    assert.equal(located.refusal, undefined);
    assert.ok(located.sessionId);
  });

  it('a paginated rollout whose last record has no ordinal is refused (Codex refuses it), nothing written', async () => {
    const e = await refusal(derived(dir, { history_mode: 'paginated' }, false));
    assert.match(e.message, /paginated rollout whose last record has no ordinal/);
  });

  it("a paginated fork is refused: its history before the fork is in its original's rollout", async () => {
    const original = '0198c4cf-8587-7d32-8d1c-2c14d331f011';
    const e = await refusal(derived(dir, { history_mode: 'paginated', forked_from_id: original }, true));
    assert.match(e.message, new RegExp(`paginated fork of thread ${original}`));
  });

  it('a history_mode nobody here knows: neither compacted nor offered for resume, the mode named', async () => {
    const file = derived(dir, { history_mode: 'sharded' }, true);
    const e = await refusal(file);
    assert.match(e.message, /history_mode "sharded"/);
    const located = await codex.resume!.locate(file);
    assert.match(located.refusal ?? '', /cannot resume this thread: .*history_mode "sharded"/);
    assert.match((await codex.sessions!.describe(file)).resumeRefusal ?? '', /history_mode "sharded"/);
  });

  it('a legacy rollout (the mode absent, or named) is compacted and offered for resume as before', async () => {
    for (const meta of [{}, { history_mode: 'legacy' }]) {
      const file = derived(dir, meta, false);
      const result = await compactFile(file, { summarizer: 'extractive', inPlace: true, settings: SETTINGS });
      assert.equal(result.mode, 'in-place');
      assert.equal((await codex.resume!.locate(file)).refusal, undefined);
      rmSync(file);
    }
  });
});
