// README's agents table names the versions the project is verified against: the range our reader reads (the oldest
// version a shared fixture was written by, up to the pinned CLI the compat suite runs) and the pinned CLI that
// resumes our results. Tied here to the pins (test/support/pins.ts reads them from the provisioning scripts), so a
// version bump that forgets the README, or a README that claims another version, fails.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLAUDE_CODE_VERSION, CODEX_VERSION, shortVersion as short } from '../support/pins';
import { agentFixtures, claudeFixtures, repoRoot } from '../support/fixtures';
import { indexTranscript } from '../../src/core/transcript';

/** Numeric order of `1.0.98`, `0.119.0-alpha.11`… by their numbers (a pre-release tag after them is ignored). */
function compareVersions(a: string, b: string): number {
  const n = (v: string) => v.split(/[.-]/).map((p) => (/^\d+$/.test(p) ? Number(p) : -1));
  const x = n(a);
  const y = n(b);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d) return d;
  }
  return 0;
}

/** The versions the fixtures of an agent were written by, as our reader reads them, and how many fixtures. */
async function fixtureVersions(files: string[]): Promise<{ oldest: string; count: number }> {
  const versions: string[] = [];
  for (const f of files) {
    const v = (await indexTranscript(f)).format.version;
    assert.ok(v, `${f}: its version is read`);
    versions.push(v);
  }
  versions.sort(compareVersions);
  return { oldest: versions[0], count: files.length };
}

const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
const row = (agent: string) => {
  const line = readme.split('\n').find((l) => l.startsWith(`| ${agent}`));
  assert.ok(line, `README's agents table has a row for ${agent}`);
  return line;
};

describe("README's agents table is tied to the pinned agent versions", () => {
  it('the pins the tests name are read from the provisioning scripts, as exact releases', () => {
    assert.match(CLAUDE_CODE_VERSION, /^\d+\.\d+\.\d+$/);
    assert.match(CODEX_VERSION, /^\d+\.\d+\.\d+$/);
    assert.equal(short('0.36.0'), '0.36');
    assert.equal(short('2.1.332'), '2.1.332');
  });

  it('Claude Code: the range read (oldest fixture to the pin), the fixtures counted, and the version that resumes', async () => {
    const { oldest, count } = await fixtureVersions(claudeFixtures());
    const line = row('Claude Code, JSONL');
    const m = /^\| Claude Code, JSONL ([\d.]+) – ([\d.]+) \((\d+) fixtures/.exec(line);
    assert.ok(m, `the row names the range and the fixtures: ${line}`);
    assert.deepEqual([m[1], m[2], Number(m[3])], [oldest, CLAUDE_CODE_VERSION, count]);
    assert.ok(line.includes(`written by the real ${CLAUDE_CODE_VERSION}`), line);
    assert.ok(line.endsWith(`| yes (Claude Code ${CLAUDE_CODE_VERSION}) |`), line);
  });

  it('Codex CLI: the range read (oldest fixture to the pin), the fixtures counted, and the version that resumes', async () => {
    const { oldest, count } = await fixtureVersions(agentFixtures('codex'));
    const line = row('Codex CLI rollouts');
    const m = /^\| Codex CLI rollouts ([\d.]+) – ([\d.]+) \((\d+) fixtures/.exec(line);
    assert.ok(m, `the row names the range and the fixtures: ${line}`);
    assert.deepEqual([m[1], m[2], Number(m[3])], [short(oldest), short(CODEX_VERSION), count]);
    assert.ok(line.includes(`written by the real ${short(CODEX_VERSION)}`), line);
    assert.ok(line.includes(`| yes (Codex CLI ${CODEX_VERSION},`), line);
  });
});
