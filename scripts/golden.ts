// The golden comparison of a structural change (issue 32): every figure, summary and written file of the CLI on every
// shared fixture, recorded by one build and compared with another's. A step that only moves code must leave it
// byte-identical.
//
//   node --import tsx scripts/golden.ts record <cli.js> <out.json>   run the verbs below with that build, record them
//   node --import tsx scripts/golden.ts compare <a.json> <b.json>    say what differs (exit 1 when anything does)
//
// Each fixture (of every agent, in ../shared/fixtures) is copied into a folder of its own and run through: inspect,
// plan (default and a 30k target), plan --summary, doctor, compact to a fork, compact in place twice (a compaction of
// a compaction), then undo. Recorded per step: the exit code, stdout, stderr and every file of the folder after it.
// What a run makes afresh is made comparable, and nothing else is touched: the folder's path, new session ids and
// uuids and message and request ids (named in order of appearance, <id-1>…), and times of the run itself (a date in an ISO time, a backup's
// stamp or a Codex rollout's name that is the day of the run, a millisecond epoch within it: <now>), and digests of
// what it wrote (whose text is compared itself: <sha256>). The shared
// fixtures were recorded long before any run, so none of their own times is touched.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative, resolve } from 'node:path';
import { sharedFixtures } from '../test/support/fixtures';

/** One recorded step: what the verb printed and left in the folder, made comparable. */
interface Step {
  step: string;
  exit: number | null;
  stdout: string;
  stderr: string;
  /** Every file of the folder after the step: relative path → the digest of its text made comparable (in `texts`). */
  files: Record<string, string>;
}

/** Per fixture: its steps, and each distinct file text they name, by digest (a file most steps leave as it was). */
type Golden = Record<string, { steps: Step[]; texts: Record<string, string> }>;

const STEPS: readonly { step: string; args: (file: string) => string[] }[] = [
  { step: 'inspect', args: (f) => ['inspect', f, '--json'] },
  { step: 'plan', args: (f) => ['plan', f, '--json'] },
  { step: 'plan 30k', args: (f) => ['plan', f, '--json', '--target-tokens', '30000'] },
  { step: 'plan --summary 30k', args: (f) => ['plan', f, '--summary', '--target-tokens', '30000'] },
  { step: 'doctor', args: (f) => ['doctor', f, '--json'] },
  {
    step: 'compact fork 30k',
    args: (f) => ['compact', f, '--json', '--summarizer', 'extractive', '--target-tokens', '30000'],
  },
  {
    step: 'compact in place 30k',
    args: (f) => ['compact', f, '--json', '--summarizer', 'extractive', '--target-tokens', '30000', '--in-place'],
  },
  {
    step: 'compact in place again 20k',
    args: (f) => ['compact', f, '--json', '--summarizer', 'extractive', '--target-tokens', '20000', '--in-place'],
  },
  { step: 'undo', args: (f) => ['undo', f, '--json'] },
];

/** The shared fixtures: each file of an agent's folder, or each folder of one (a Cline task is a folder). */
function fixtures(): { name: string; path: string; session: string }[] {
  const out: { name: string; path: string; session: string }[] = [];
  for (const agent of readdirSync(sharedFixtures).sort()) {
    const dir = join(sharedFixtures, agent);
    if (!statSync(dir).isDirectory()) continue;
    for (const entry of readdirSync(dir).sort()) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) {
        const session = join(entry, 'api_conversation_history.json');
        if (existsSync(join(dir, session))) out.push({ name: `${agent}/${entry}`, path, session });
      } else if (/\.jsonl?$/.test(entry)) out.push({ name: `${agent}/${entry}`, path, session: entry });
    }
  }
  return out;
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
/** An ISO time (`2026-11-29T01:48:31.123Z`), a Codex rollout name's (`2026-11-29T01-48-31`), a backup's stamp (`20261129-014835-434`). */
const TIMES = /\d{4}-\d\d-\d\dT\d\d[:-]\d\d[:-]\d\d(?:\.\d+)?Z?|\d{8}-\d{6}(?:-\d{3})?/g;
const EPOCH_MS = /\b1\d{12}\b/g;
/** A message or request id the way the API writes them (`msg_…`, `req_…`): fresh ones are derived from the new session id. */
const API_ID = /\b(?:msg|req)_[A-Za-z0-9]{8,}\b/g;
/** A SHA-256 in hex: of a file the run wrote (whose text is compared itself), unless the fixture holds it. */
const SHA256 = /\b[0-9a-f]{64}\b/g;
const RUN_STARTED = Date.now();

/** The days of the run, as its times write them (`2026-11-29`, `20261129`). */
function runDays(): string[] {
  const days = new Set([new Date(RUN_STARTED), new Date()].map((d) => d.toISOString().slice(0, 10)));
  return [...days].flatMap((d) => [d, d.replace(/-/g, '')]);
}

/**
 * Makes the run's own values comparable: the folder's path, uuids the fixture does not hold (in order of appearance),
 * and timestamps written on lines that hold a new uuid.
 */
class Normalizer {
  private readonly names = new Map<string, string>();
  constructor(
    private readonly dir: string,
    private readonly known: ReadonlySet<string>,
    private readonly original: string,
  ) {}

  text(s: string): string {
    const days = runDays();
    const now = Date.now();
    return s
      .split(this.dir)
      .join('<dir>')
      .replace(UUID, (u) => {
        if (this.known.has(u.toLowerCase())) return u;
        let name = this.names.get(u.toLowerCase());
        if (!name) this.names.set(u.toLowerCase(), (name = `<id-${this.names.size + 1}>`));
        return name;
      })
      .replace(API_ID, (id) => {
        if (this.original.includes(id)) return id;
        let name = this.names.get(id);
        if (!name) this.names.set(id, (name = `<${id.slice(0, 3)}-${this.names.size + 1}>`));
        return name;
      })
      .replace(SHA256, (h) => (this.original.includes(h) ? h : '<sha256>'))
      .replace(TIMES, (t) => (days.some((d) => t.startsWith(d)) ? '<now>' : t))
      .replace(EPOCH_MS, (n) => (Number(n) >= RUN_STARTED - 60_000 && Number(n) <= now + 60_000 ? '<now>' : n));
  }
}

function filesOf(dir: string, norm: Normalizer, texts: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else {
        const bytes = readFileSync(p);
        const text = bytes.includes(0)
          ? `(binary) sha256:${createHash('sha256').update(bytes).digest('hex')}`
          : norm.text(bytes.toString('utf8'));
        const digest = createHash('sha256').update(text).digest('hex');
        texts[digest] = text;
        out[norm.text(relative(dir, p))] = digest;
      }
    }
  };
  walk(dir);
  return out;
}

function record(cli: string, outFile: string): void {
  const golden: Golden = {};
  for (const fx of fixtures()) {
    const dir = mkdtempSync(join(tmpdir(), 'ac-golden-'));
    try {
      cpSync(fx.path, join(dir, basename(fx.path)), { recursive: true });
      const original = readFileSync(join(dir, fx.session), 'utf8');
      const norm = new Normalizer(dir, new Set((original.match(UUID) ?? []).map((u) => u.toLowerCase())), original);
      const steps: Step[] = [];
      const texts: Record<string, string> = {};
      for (const s of STEPS) {
        const run = spawnSync(process.execPath, [resolve(cli), ...s.args(join(dir, fx.session))], {
          cwd: dir,
          encoding: 'utf8',
          env: { ...process.env, NO_COLOR: '1', ANTHROPIC_API_KEY: '' },
          maxBuffer: 256 * 1024 * 1024,
        });
        steps.push({
          step: s.step,
          exit: run.status,
          stdout: norm.text(run.stdout),
          stderr: norm.text(run.stderr),
          files: filesOf(dir, norm, texts),
        });
      }
      golden[fx.name] = { steps, texts };
      process.stdout.write(`${fx.name}: ${steps.map((s) => `${s.step} ${s.exit}`).join(', ')}\n`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  writeFileSync(outFile, JSON.stringify(golden));
}

function compare(aFile: string, bFile: string): number {
  const a = JSON.parse(readFileSync(aFile, 'utf8')) as Golden;
  const b = JSON.parse(readFileSync(bFile, 'utf8')) as Golden;
  const problems: string[] = [];
  let compared = 0;
  for (const name of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const sa = a[name]?.steps;
    const sb = b[name]?.steps;
    if (!sa || !sb) {
      problems.push(`${name}: recorded in ${sa ? aFile : bFile} only`);
      continue;
    }
    for (let i = 0; i < Math.max(sa.length, sb.length); i++) {
      const x = sa[i];
      const y = sb[i];
      if (!x || !y || x.step !== y.step) {
        problems.push(`${name}: step ${i} is ${x?.step ?? 'missing'} vs ${y?.step ?? 'missing'}`);
        continue;
      }
      compared++;
      for (const k of ['exit', 'stdout', 'stderr'] as const)
        if (x[k] !== y[k])
          problems.push(`${name} / ${x.step}: ${k} differs\n${firstDifference(String(x[k]), String(y[k]))}`);
      for (const f of new Set([...Object.keys(x.files), ...Object.keys(y.files)]))
        if (x.files[f] !== y.files[f])
          problems.push(
            `${name} / ${x.step}: ${f} ${x.files[f] === undefined || y.files[f] === undefined ? 'is in one only' : `differs\n${firstDifference(a[name].texts[x.files[f]], b[name].texts[y.files[f]])}`}`,
          );
    }
  }
  for (const p of problems) process.stdout.write(`${p}\n`);
  process.stdout.write(
    `${Object.keys(a).length} fixtures, ${compared} steps compared: ${problems.length ? `${problems.length} differences` : 'identical'}\n`,
  );
  return problems.length ? 1 : 0;
}

/** The first differing line of two texts, with its number. */
function firstDifference(x: string, y: string): string {
  const lx = x.split('\n');
  const ly = y.split('\n');
  for (let i = 0; i < Math.max(lx.length, ly.length); i++)
    if (lx[i] !== ly[i])
      return `  line ${i + 1}:\n  - ${(lx[i] ?? '').slice(0, 300)}\n  + ${(ly[i] ?? '').slice(0, 300)}`;
  return '';
}

const [verb, first, second] = process.argv.slice(2);
if (verb === 'record' && first && second) record(first, second);
else if (verb === 'compare' && first && second) process.exitCode = compare(first, second);
else {
  process.stderr.write(
    'usage: node --import tsx scripts/golden.ts record <cli.js> <out.json> | compare <a.json> <b.json>\n',
  );
  process.exitCode = 2;
}
