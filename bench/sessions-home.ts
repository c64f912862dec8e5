// A generated Claude Code home of many sessions, for the `sessions` verb's measurements (bench/bench.ts) and the check
// that its output is unchanged across builds: `sessions` files in 40 project folders under `<home>/.claude/projects`,
// copies of the shared fixtures (subagent files left out) with every `cwd` they record replaced, a minute apart.
//
// The project folder of a session is named after the folder it was started in (Claude Code's encoding). `matching`:
// every line records that folder. `mismatch`: the folder is named after another path than any line records (a project
// folder renamed or moved, or a long path Claude Code shortens), so the resume folder is looked for through the whole
// file. `mixed`: a third of each: matching, mismatched, and sessions whose head records a subfolder (a `cd` of the
// Bash tool) and whose later lines the project folder itself.
import { mkdirSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURE_DIR } from './generate-large';

export type HomeKind = 'matching' | 'mismatch' | 'mixed';

const folderOf = (cwd: string) => cwd.replace(/[^a-zA-Z0-9]/g, '-');

/** Writes `<home>/.claude/projects/…` afresh; returns the bytes written. */
export function generateSessionsHome(home: string, kind: HomeKind, sessions = 1000, fixtureDir = FIXTURE_DIR): number {
  rmSync(home, { recursive: true, force: true });
  const projects = join(home, '.claude', 'projects');
  // Each fixture cut once at its cwd fields, joined with each session's.
  const sources = readdirSync(fixtureDir)
    .filter((n) => n.endsWith('.jsonl') && !n.endsWith('subagent.jsonl'))
    .sort()
    .map((n) => readFileSync(join(fixtureDir, n), 'utf8').split(/"cwd":"[^"]*"/));
  const t0 = Date.parse('2026-03-01T10:00:00.000Z');
  let bytes = 0;
  for (let k = 0; k < sessions; k++) {
    const p = k % 40;
    const cwd = `/home/me/work/project-${p}`;
    const shape = kind === 'mixed' ? (['matching', 'mismatch', 'cd'] as const)[k % 3] : kind;
    const folder = shape === 'mismatch' ? folderOf(`/home/me/old/project-${p}`) : folderOf(cwd);
    const dir = join(projects, folder);
    mkdirSync(dir, { recursive: true });
    const parts = sources[k % sources.length];
    const half = Math.ceil((parts.length - 1) / 2);
    let text = parts[0];
    for (let j = 1; j < parts.length; j++)
      text += `"cwd":"${shape === 'cd' && j <= half ? `${cwd}/src` : cwd}"` + parts[j];
    const file = join(dir, `00000000-0000-4000-8000-${String(k).padStart(12, '0')}.jsonl`);
    writeFileSync(file, text);
    bytes += Buffer.byteLength(text);
    const t = new Date(t0 + k * 60_000);
    utimesSync(file, t, t);
  }
  return bytes;
}
