// The `sessions` verb on 1,000 sessions and `doctor` on files with many broken links (issue 34), each as a ratio
// measured in the same run: sessions against ccusage (`ccusage session --json --offline`, the usage tool most users
// already run, over the same home), sessions whose project folders are named after another folder than their lines
// record against those whose names match, doctor against the floor (read, split and JSON.parse every line). Every
// run is a fresh process of the real CLI, as users run it, timed by /usr/bin/time (CPU: user + system of the process
// and its children; peak RSS), the kinds alternating; medians.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { benchFixtures, brokenLinksTranscript, generateLarge } from './generate-large';
import { generateSessionsHome, type HomeKind } from './sessions-home';

export const SESSIONS_DOCTOR_HEADING = '## Sessions and doctor';
const RUNS = Math.max(1, Number(process.env.BENCH_SD_RUNS ?? 5));
const SESSIONS = 1000;

interface Timed {
  cpuMs: number;
  wallMs: number;
  rssMB: number;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const fmt = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`);

/** One run of `argv` under /usr/bin/time; exit codes in `ok` count as done (doctor exits 1 when it finds problems). */
function timed(argv: string[], env: NodeJS.ProcessEnv, ok = [0]): Timed {
  const r = spawnSync('/usr/bin/time', ['-f', 'BENCH-TIME %e %U %S %M', ...argv], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
    maxBuffer: 1 << 24,
  });
  const err = r.stderr?.toString() ?? '';
  const m = /BENCH-TIME ([\d.]+) ([\d.]+) ([\d.]+) (\d+)/.exec(err);
  if (!m || !ok.includes(r.status ?? -1))
    throw new Error(`${argv.join(' ')} failed (${r.status}): ${err.slice(0, 500)}`);
  return { wallMs: Number(m[1]) * 1000, cpuMs: (Number(m[2]) + Number(m[3])) * 1000, rssMB: Number(m[4]) / 1024 };
}

/** The home of `kind`, made once and reused while the fixtures are unchanged (stamped). */
function home(work: string, kind: HomeKind): string {
  const dir = join(work, `home-${kind}`);
  const stamp = join(work, `home-${kind}.stamp.json`);
  const key = JSON.stringify({ v: 1, kind, SESSIONS, fixtures: benchFixtures().map((f) => [f, statSync(f).size]) });
  if (!existsSync(stamp) || readFileSync(stamp, 'utf8') !== key || !existsSync(join(dir, '.claude'))) {
    generateSessionsHome(dir, kind, SESSIONS);
    writeFileSync(stamp, key);
  }
  return dir;
}

/** A 100 MB chain of the fixtures (no compaction: all of it is the active context) with every 10th parent link broken. */
async function chainWithBreaks(work: string): Promise<string> {
  const chain = await generateLarge(
    join(work, 'chain.jsonl'),
    100e6,
    benchFixtures().filter((f) => !f.endsWith('with-compactions.jsonl')),
  );
  const out = join(work, 'chain-breaks.jsonl');
  const stamp = `${out}.stamp.json`;
  const key = JSON.stringify({ v: 1, bytes: chain.bytes });
  if (existsSync(out) && existsSync(stamp) && readFileSync(stamp, 'utf8') === key) return out;
  let k = 0;
  const text = readFileSync(chain.path, 'utf8').replace(/^\{"parentUuid":"[^"]+"/gm, (m) =>
    ++k % 10 === 0 ? `{"parentUuid":"gone-${k}"` : m,
  );
  writeFileSync(out, text);
  writeFileSync(stamp, key);
  return out;
}

/** The section's lines (markdown). */
export async function sessionsDoctorSection(o: {
  root: string;
  work: string;
  cli: string;
  floorJs: string;
  log: (m: string) => void;
}): Promise<string[]> {
  const load0 = loadavg()[0];
  const node = process.execPath;
  const ccusage = join(o.root, '.cache', 'ccusage', 'node_modules', '.bin', 'ccusage');
  const haveCcusage = existsSync(ccusage);
  o.log('sessions: generating the homes (reused when unchanged)...');
  const homes = { matching: home(o.work, 'matching'), mismatch: home(o.work, 'mismatch') };
  const envOf = (h: string): NodeJS.ProcessEnv => ({
    PATH: process.env.PATH ?? '',
    HOME: h,
    CLAUDE_CONFIG_DIR: join(h, '.claude'),
    TZ: 'UTC',
  });
  const sessionsArgs = [node, o.cli, 'sessions', '--json', '--limit', String(SESSIONS)];
  const runs: Record<'ccusage' | 'matching' | 'mismatch', Timed[]> = { ccusage: [], matching: [], mismatch: [] };
  type Kind = keyof typeof runs;
  const kinds: Kind[] = haveCcusage ? ['ccusage', 'matching', 'mismatch'] : ['matching', 'mismatch'];
  for (let k = -1; k < RUNS; k++) {
    for (const which of kinds.map((_, i) => kinds[(i + Math.max(k, 0)) % kinds.length])) {
      const t =
        which === 'ccusage'
          ? timed([ccusage, 'session', '--json', '--offline'], envOf(homes.matching))
          : timed(sessionsArgs, envOf(homes[which]));
      if (k >= 0) runs[which].push(t); // the first round warms the page cache and is not counted
      o.log(`sessions run ${k + 1}/${RUNS} ${which}: ${fmt(t.cpuMs)} cpu, ${fmt(t.wallMs)} wall`);
    }
  }
  const cpu = (w: keyof typeof runs) => median(runs[w].map((r) => r.cpuMs));
  const wall = (w: keyof typeof runs) => median(runs[w].map((r) => r.wallMs));
  const pairRatio = (a: keyof typeof runs, b: keyof typeof runs) =>
    median(runs[a].map((r, k) => r.cpuMs / runs[b][k].cpuMs));

  o.log('doctor: generating the files with many broken links (reused when unchanged)...');
  const files = [
    { name: 'a 100 MB chain of the fixtures, every 10th parent link broken', path: await chainWithBreaks(o.work) },
    {
      name: '240,000 short lines a minute apart, every 10th parent link broken (24,000 breaks)',
      path: join(o.work, 'broken-240k.jsonl'),
    },
  ];
  if (!existsSync(files[1].path)) writeFileSync(files[1].path, brokenLinksTranscript(240_000, 10, 60_000));
  const doctor: { floor: Timed[]; doctor: Timed[] }[] = files.map(() => ({ floor: [], doctor: [] }));
  for (let k = -1; k < RUNS; k++)
    files.forEach((f, j) => {
      const pair = k % 2 === 0 ? (['floor', 'doctor'] as const) : (['doctor', 'floor'] as const);
      for (const which of pair) {
        const t =
          which === 'floor'
            ? timed([node, o.floorJs, f.path], process.env)
            : timed([node, o.cli, 'doctor', f.path, '--json'], process.env, [0, 1]);
        if (k >= 0) doctor[j][which].push(t);
        o.log(`doctor run ${k + 1}/${RUNS} ${which} (${statSync(f.path).size} bytes): ${fmt(t.cpuMs)} cpu`);
      }
    });
  const load1 = loadavg()[0];

  const lines: string[] = [SESSIONS_DOCTOR_HEADING, ''];
  lines.push(
    `${RUNS} runs of each after one not counted, alternating, each a fresh process timed by \`/usr/bin/time\` (CPU: user + system of the process and ` +
      `its children; peak RSS); medians, and ratios as the median of the pairs. Load average (1 min) ${load0.toFixed(2)} / ${load1.toFixed(2)} at start / end: ` +
      'the machine is shared, so the ratios, measured side by side, are the figures to quote.',
  );
  lines.push('');
  lines.push(
    `\`sessions --json --limit ${SESSIONS}\` on a generated home of ${SESSIONS.toLocaleString('en-US')} Claude Code sessions in 40 project folders ` +
      '(copies of the fixtures, 857 MB; bench/sessions-home.ts), warm page cache. Matching: each project folder is named after the folder its ' +
      'lines record. Renamed: named after another folder, so the folder the session resumes in is looked for through the whole file. ' +
      (haveCcusage
        ? '`ccusage session --json --offline` over the matching home (it reads every line of every file).'
        : 'ccusage is not provisioned (scripts/provision-ccusage.sh): no comparison with it.'),
  );
  lines.push('');
  lines.push('| | CPU (median) | wall (median) | ratio (CPU) | target | |');
  lines.push('|---|---|---|---|---|---|');
  if (haveCcusage) lines.push(`| ccusage session | ${fmt(cpu('ccusage'))} | ${fmt(wall('ccusage'))} | | | |`);
  const vsCc = haveCcusage ? pairRatio('matching', 'ccusage') : NaN;
  lines.push(
    `| sessions, matching folders | ${fmt(cpu('matching'))} | ${fmt(wall('matching'))} | ${haveCcusage ? `**${vsCc.toFixed(2)}×** ccusage` : ''} | ${haveCcusage ? '≤ 1.0×' : ''} | ${haveCcusage ? (vsCc <= 1 ? 'met' : '**not met**') : ''} |`,
  );
  const mis = pairRatio('mismatch', 'matching');
  lines.push(
    `| sessions, renamed folders | ${fmt(cpu('mismatch'))} | ${fmt(wall('mismatch'))} | **${mis.toFixed(2)}×** matching | | |`,
  );
  lines.push('');
  lines.push(
    "`doctor FILE --json` (what the verb does: index, diagnose, plan the repair, diagnose the result) against the floor's " +
      '`readFileSync` + `split` + `JSON.parse` of every line.',
  );
  lines.push('');
  lines.push('| file | floor CPU | doctor CPU | ratio | doctor peak RSS per MB of file | target | |');
  lines.push('|---|---|---|---|---|---|---|');
  files.forEach((f, j) => {
    const d = doctor[j];
    const ratio = median(d.doctor.map((r, k) => r.cpuMs / d.floor[k].cpuMs));
    const mb = statSync(f.path).size / 1e6;
    lines.push(
      `| ${f.name} | ${fmt(median(d.floor.map((r) => r.cpuMs)))} | ${fmt(median(d.doctor.map((r) => r.cpuMs)))} | **${ratio.toFixed(2)}×** | ` +
        `${(median(d.doctor.map((r) => r.rssMB)) / mb).toFixed(2)} MB | ≤ 2× | ${ratio <= 2 ? 'met' : '**not met**'} |`,
    );
  });
  return lines;
}
