// The real ccusage (pinned, provisioned by scripts/provision-ccusage.sh), run on one session file alone under a
// private HOME: `ccusage session --json --offline` (its built-in price table).
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { repoRoot } from './fixtures';

export const CCUSAGE = join(repoRoot, '.cache', 'ccusage', 'node_modules', '.bin', 'ccusage');

export interface CcusageSession {
  totalCost: number;
  inputTokens: number;
  outputTokens: number;
  modelBreakdowns: {
    modelName: string;
    cost: number;
    inputTokens: number;
    outputTokens: number;
    cacheCreationTokens: number;
    cacheReadTokens: number;
    missingPricing?: boolean;
  }[];
}

/** ccusage's figures for `file` alone (null when it finds no usage in it). */
export function ccusageSession(file: string): CcusageSession | null {
  const home = mkdtempSync(join(tmpdir(), 'ac-ccusage-'));
  try {
    const project = join(home, '.claude', 'projects', '-work-project');
    mkdirSync(project, { recursive: true });
    copyFileSync(file, join(project, basename(file)));
    const r = spawnSync(CCUSAGE, ['session', '--json', '--offline'], {
      encoding: 'utf8',
      timeout: 120_000,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: home,
        CLAUDE_CONFIG_DIR: join(home, '.claude'),
        TZ: 'UTC',
        NO_COLOR: '1',
      },
    });
    assert.equal(r.status, 0, `ccusage on ${basename(file)}: ${r.stderr}`);
    const out = JSON.parse(r.stdout) as { session: CcusageSession[] };
    assert.ok(out.session.length <= 1, `one session per file, got ${out.session.length}`);
    return out.session[0] ?? null;
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
