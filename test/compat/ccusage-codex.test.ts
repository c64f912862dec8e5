// Codex session cost against the real ccusage (pinned, provisioned by scripts/provision-ccusage.sh; its Codex report
// replaces the deprecated @ccusage/codex package and prices offline from its built-in table): the shared Codex
// fixtures in a private CODEX_HOME, `ccusage codex session --json --offline` once (it reports each rollout file as its
// own session, named by the file; each priced as alone: checked the same figures), and our `sessionCost` of each
// rollout, within 2%, with the token counts equal (input without its cached part, cached input, output with its
// reasoning inside).
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { sessionCost } from '../../src/core/cost';
import { indexTranscript } from '../../src/core/transcript';
import { agentFixtures, repoRoot } from '../support/fixtures';
import { tempDir } from '../support/temp';

const CCUSAGE = join(repoRoot, '.cache', 'ccusage', 'node_modules', '.bin', 'ccusage');

interface CcusageCodexSession {
  costUSD: number;
  inputTokens: number;
  cacheReadTokens: number;
  outputTokens: number;
  models: Record<string, { isFallback: boolean }>;
}

/** ccusage's figures for each rollout (null where it finds no usage), from one run over all of them. */
function ccusageCodexSessions(files: string[]): Map<string, CcusageCodexSession | null> {
  const home = tempDir('ac-ccusage-codex-');
  try {
    const day = join(home, '.codex', 'sessions', '2026', '01', '01');
    mkdirSync(day, { recursive: true });
    // ccusage finds rollouts by Codex's own file name: one per fixture, each its own thread id.
    const names = files.map(
      (_, k) =>
        `rollout-2026-01-01T00-00-${String(k).padStart(2, '0')}-0199aaaa-bbbb-7ccc-8ddd-${String(k).padStart(12, '0')}`,
    );
    files.forEach((file, k) => copyFileSync(file, join(day, `${names[k]}.jsonl`)));
    const r = spawnSync(CCUSAGE, ['codex', 'session', '--json', '--offline'], {
      encoding: 'utf8',
      timeout: 120_000,
      env: { PATH: process.env.PATH ?? '', HOME: home, CODEX_HOME: join(home, '.codex'), TZ: 'UTC', NO_COLOR: '1' },
    });
    assert.equal(r.status, 0, `ccusage on ${files.map((f) => basename(f)).join(', ')}: ${r.stderr}`);
    const out = JSON.parse(r.stdout) as { sessions: (CcusageCodexSession & { sessionFile: string })[] };
    const reported = out.sessions.map((x) => x.sessionFile);
    assert.equal(new Set(reported).size, reported.length, `one session per file, got ${reported.join(', ')}`);
    for (const name of reported) assert.ok(names.includes(name), `ccusage reported ${name}, not one of ours`);
    return new Map(files.map((file, k) => [file, out.sessions.find((x) => x.sessionFile === names[k]) ?? null]));
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

describe('Codex session cost agrees with ccusage 20.0.24 (real binary, offline)', function () {
  this.timeout(600_000);
  before(() => {
    if (!existsSync(CCUSAGE))
      throw new Error(`ccusage not provisioned at ${CCUSAGE}: run bash scripts/provision-ccusage.sh`);
  });

  const files = agentFixtures('codex');
  let priced: Map<string, CcusageCodexSession | null> | undefined;
  it('there are Codex fixtures to compare', () => assert.ok(files.length >= 5, files.join(', ')));

  for (const file of files) {
    const name = basename(file);
    it(`${name}: within 2% of ccusage's costUSD, token counts equal`, async () => {
      priced ??= ccusageCodexSessions(files);
      const theirs = priced.get(file);
      assert.ok(theirs, `${name}: ccusage found no Codex usage`);
      for (const [model, m] of Object.entries(theirs.models))
        assert.equal(m.isFallback, false, `${name}: ccusage priced ${model} at a fallback rate`);
      assert.ok(theirs.costUSD > 0, `${name}: ccusage priced nothing`);
      const ours = sessionCost((await indexTranscript(file)).entries);
      assert.deepEqual(ours.unpriced, [], name);
      let input = 0;
      let cached = 0;
      let output = 0;
      for (const r of ours.responses.values()) {
        input += r.usage.input;
        cached += r.usage.cacheRead;
        output += r.usage.output;
      }
      assert.deepEqual(
        { input, cached, output },
        {
          input: theirs.inputTokens,
          cached: theirs.cacheReadTokens,
          output: theirs.outputTokens,
        },
      );
      const gap = Math.abs(ours.total.usd - theirs.costUSD) / theirs.costUSD;
      assert.ok(gap <= 0.02, `${name}: ours $${ours.total.usd.toFixed(6)}, ccusage $${theirs.costUSD.toFixed(6)}`);
    });
  }
});
