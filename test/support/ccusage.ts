// The real ccusage (pinned, provisioned by scripts/provision-ccusage.sh), run on session files under a private HOME:
// `ccusage session --json --offline` (its built-in price table), each file priced as if alone.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { repoRoot } from './fixtures';
import { tempDir } from './temp';

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
  return ccusageSessions([file]).get(file) ?? null;
}

/** The response ids of a session file (its assistant lines' `message.id`): what ccusage counts each response once by. */
function responseIds(file: string): Set<string> {
  const ids = new Set<string>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    try {
      const id = (JSON.parse(line) as { message?: { id?: unknown } } | null)?.message?.id;
      if (typeof id === 'string') ids.add(id);
    } catch {
      // not a line ccusage reads either
    }
  }
  return ids;
}

/**
 * ccusage's figures for each of `files` (null where it finds no usage), each priced as if alone, in as few runs as
 * that allows: ccusage reports each file of a run as its own session (named by the file), but counts a response
 * once across all the files of a run (two fixtures of one session, live-before and live-after, share responses). So
 * files that share a response id, or a name, never share a run; the others do (14 files priced in 4 runs, not 14).
 */
export function ccusageSessions(files: string[]): Map<string, CcusageSession | null> {
  const runs: { files: string[]; ids: Set<string>; names: Set<string> }[] = [];
  for (const file of files) {
    const ids = responseIds(file);
    const name = basename(file, '.jsonl');
    let run = runs.find((r) => !r.names.has(name) && ![...ids].some((id) => r.ids.has(id)));
    if (!run) runs.push((run = { files: [], ids: new Set(), names: new Set() }));
    run.files.push(file);
    run.names.add(name);
    for (const id of ids) run.ids.add(id);
  }
  const out = new Map<string, CcusageSession | null>();
  for (const run of runs) {
    const home = tempDir('ac-ccusage-');
    try {
      // Each file in its own project folder, under its own name: ccusage names the session by the file.
      run.files.forEach((file, k) => {
        const project = join(home, '.claude', 'projects', `-work-project-${k}`);
        mkdirSync(project, { recursive: true });
        copyFileSync(file, join(project, basename(file)));
      });
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
      const names = run.files.map((f) => basename(f)).join(', ');
      assert.equal(r.status, 0, `ccusage on ${names}: ${r.stderr}`);
      const sessions = (JSON.parse(r.stdout) as { session: (CcusageSession & { period: string })[] }).session;
      const periods = sessions.map((x) => x.period);
      assert.equal(new Set(periods).size, periods.length, `one session per file, got ${periods.join(', ')}`);
      for (const period of periods) assert.ok(run.names.has(period), `ccusage reported ${period}, not one of ${names}`);
      for (const file of run.files) out.set(file, sessions.find((x) => x.period === basename(file, '.jsonl')) ?? null);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }
  return out;
}
