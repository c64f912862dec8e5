// The harness of the hostile-sidecar suites (sidecars.test.ts, sidecars-restore.test.ts, sidecars-codex.test.ts):
// whatever is planted beside a transcript (a link to an outside file or folder, to /dev/zero or /dev/stdin, a
// dangling link, a link loop, a FIFO, a huge file), at every path the verbs read, write or delete there, every verb
// of the real built CLI (inspect, plan, compact, doctor, repair, restore, undo, sessions; on a Claude Code session, a
// Cline task and a Codex rollout) finishes, changes nothing outside the sessions' folders, copies nothing from
// outside into them, and either succeeds or ends with exit 2 and a one-line reason. The sessions live in a home
// folder of their own (`~/.claude/projects/…`, `~/.codex/sessions/…`), so `sessions` lists them and whatever is
// planted among them. The extension's commands over the same plants: test/host/12-sidecars.
//
// Each case is a fresh copy of a template made once per file, its verb run in a child process (a FIFO or /dev/stdin
// may block whoever opens it: never in this process) killed after HANG_MS. A child runs one case after another
// (`main(args)` of the built CLI, cliBatch.ts), so that Node's start and the bundle's load are paid per child, not per
// case; a case that hangs gets its child killed and the next case a new one. Cases share nothing but the read-only
// template, so a few run side by side (POOL, a child each); the suite is split in three files by target so that mocha's parallel
// jobs share them out.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  copyFileSync,
  cpSync,
  utimesSync,
  ftruncateSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { type BatchRun, CliBatch } from '../../support/cliBatch';
import { bundleChild } from '../../support/crashChild';
import { repoRoot, sharedFixtures } from '../../support/fixtures';
import { buildTranscript, diffSnapshots, snapshotDir } from '../../support/reliability';
import { tempDir } from '../../support/temp';

const CLI = join(repoRoot, 'dist', 'cli.js');
const SMALL = ['--target-tokens', '14000', '--keep-recent-tokens', '9000', '--max-result-chars', '2000'];
/**
 * A hang detector, not a speed test: every run here takes a second or two alone on an idle machine. POOL runs share
 * the cores, each taking longer than alone, so the bound is twice what one run at a time had.
 */
export const HANG_MS = 120_000;
const MARKER = 'OUTSIDE-SENTINEL-7f3a9c';
const HUGE_BYTES = 80 << 20;

export type Kind = 'link-file' | 'link-dir' | 'link-zero' | 'link-stdin' | 'dangling' | 'loop' | 'fifo' | 'huge';
export const KINDS: Kind[] = ['link-file', 'link-dir', 'link-zero', 'link-stdin', 'dangling', 'loop', 'fifo', 'huge'];

export type Verb =
  | 'inspect'
  | 'plan'
  | 'compact'
  | 'compact-in-place'
  | 'doctor'
  | 'repair'
  | 'repair-in-place'
  | 'restore'
  | 'undo'
  | 'cline-inspect'
  | 'cline-plan'
  | 'sessions'
  | 'codex-inspect'
  | 'codex-plan'
  | 'codex-compact'
  | 'codex-compact-in-place'
  | 'codex-restore'
  | 'codex-undo';
const CLAUDE_VERBS: Verb[] = [
  'inspect',
  'plan',
  'compact',
  'compact-in-place',
  'doctor',
  'repair',
  'repair-in-place',
  'restore',
  'undo',
];
// Cline tasks are read-only: plan reads the task (and ui_messages.json) before refusing with exit 2; doctor reads JSONL only.
const CLINE_VERBS: Verb[] = ['cline-inspect', 'cline-plan'];
const CODEX_VERBS: Verb[] = [
  'codex-inspect',
  'codex-plan',
  'codex-compact',
  'codex-compact-in-place',
  'codex-restore',
  'codex-undo',
];
export const ALL_VERBS: Verb[] = [...CLAUDE_VERBS, ...CLINE_VERBS, 'sessions', ...CODEX_VERBS];

/** Where the sessions are, relative to a case's folder: a home folder with Claude Code's and Codex's layouts. */
const PROJECT = join('home', '.claude', 'projects', '-work-project');
const CODEX_DAY = join('home', '.codex', 'sessions', '2026', '01', '02');
const CODEX_ID = '019ed917-1cf7-72a3-92f5-c0aa98fb134e';
const ROLLOUT = `rollout-2026-01-02T00-00-00-${CODEX_ID}`;
const inProject = (p: string) => join(PROJECT, p);
const inCodex = (p: string) => join(CODEX_DAY, p);

/** The template's sidecar names, found once it is made. */
interface Names {
  /** The Claude Code session's backup (an in-place compaction) and the saved tool results it wrote. */
  backup: string;
  saved: string[];
  /** The fork the session's undo record names (the last compaction was a fork). */
  fork: string;
  /** The Codex rollout's backup (its undo record names an in-place compaction). */
  codexBackup: string;
}

/**
 * Which file checks a target: 'compaction' sidecars.test.ts (a Claude Code session's compaction sidecars),
 * 'read-restore-undo' sidecars-restore.test.ts (what inspect, restore, undo, Cline's verbs and `sessions` read),
 * 'codex' sidecars-codex.test.ts (a Codex rollout's sidecars).
 */
export type Group = 'compaction' | 'read-restore-undo' | 'codex';

export interface Target {
  id: string;
  /** The file that checks it (a Group names one file). */
  group: Group;
  /** Path of the sidecar, relative to the case's folder. */
  path: (n: Names) => string;
  /** The verbs that read, write or delete it. */
  verbs: Verb[];
  /** False when planting it would take away the folder other targets live in. */
  withOthers: boolean;
  /** The kinds planted there (default: all of them). */
  kinds?: Kind[];
}

/**
 * One of each class (a link out, a device, a FIFO, a huge file), for paths whose reads go through the same code as a
 * path above that gets every kind (a Codex rollout's sidecars are a Claude Code session's), or that are only listed.
 */
const CLASSES: Kind[] = ['link-file', 'link-zero', 'fifo', 'huge'];

export const TARGETS: Target[] = [
  {
    id: 'state file',
    group: 'compaction',
    path: () => inProject('s.compactor-state.json'),
    verbs: ['plan', 'compact', 'compact-in-place', 'restore', 'undo'],
    withOthers: true,
  },
  {
    id: 'tool-results folder',
    group: 'compaction',
    path: () => inProject('s.tool-results'),
    verbs: ['compact', 'compact-in-place', 'restore', 'undo'],
    withOthers: false,
  },
  {
    id: 'a saved tool result',
    group: 'compaction',
    path: (n) => inProject(join('s.tool-results', n.saved[0])),
    verbs: ['compact', 'compact-in-place', 'restore', 'undo'],
    withOthers: true,
  },
  {
    id: 'a subagent transcript',
    group: 'read-restore-undo',
    path: () => inProject(join('s', 'subagents', 'agent-x.jsonl')),
    verbs: ['inspect', 'doctor'],
    withOthers: true,
  },
  {
    id: 'the subagents folder',
    group: 'read-restore-undo',
    path: () => inProject(join('s', 'subagents')),
    verbs: ['inspect', 'doctor'],
    withOthers: false,
  },
  {
    id: 'the session folder',
    group: 'read-restore-undo',
    path: () => inProject('s'),
    verbs: ['inspect'],
    withOthers: false,
  },
  {
    id: 'the lock',
    group: 'compaction',
    path: () => inProject('s.jsonl.compactor.lock'),
    verbs: ['compact', 'compact-in-place', 'repair', 'repair-in-place', 'restore', 'undo'],
    withOthers: true,
  },
  {
    id: 'the backup',
    group: 'read-restore-undo',
    path: (n) => inProject(n.backup),
    verbs: ['restore', 'compact-in-place'],
    withOthers: true,
  },
  {
    id: "the backup's state file (its manifest says there is one)",
    group: 'read-restore-undo',
    path: (n) => inProject(`${n.backup}.compactor-state.json`),
    verbs: ['restore'],
    withOthers: true,
  },
  {
    id: "the backup's manifest",
    group: 'read-restore-undo',
    path: (n) => inProject(`${n.backup}.manifest.json`),
    verbs: ['restore'],
    withOthers: true,
  },
  {
    id: 'the undo record',
    group: 'read-restore-undo',
    path: () => inProject('s.compactor-undo.json'),
    verbs: ['undo'],
    withOthers: true,
  },
  {
    id: 'the fork the undo record names',
    group: 'read-restore-undo',
    path: (n) => inProject(n.fork),
    verbs: ['undo'],
    withOthers: true,
  },
  {
    id: "the fork's state file",
    group: 'read-restore-undo',
    path: (n) => inProject(n.fork.replace(/\.jsonl$/, '.compactor-state.json')),
    verbs: ['undo'],
    withOthers: true,
  },
  {
    id: "Cline's ui_messages.json",
    group: 'read-restore-undo',
    path: () => inProject(join('cline', 'ui_messages.json')),
    verbs: CLINE_VERBS,
    withOthers: true,
  },
  {
    id: 'another session',
    group: 'read-restore-undo',
    path: () => inProject('other.jsonl'),
    verbs: ['sessions'],
    withOthers: true,
  },
  {
    id: 'another project folder',
    group: 'read-restore-undo',
    path: () => join('home', '.claude', 'projects', '-other'),
    verbs: ['sessions'],
    withOthers: true,
    kinds: CLASSES,
  },
  {
    id: 'another Codex rollout',
    group: 'read-restore-undo',
    path: () => inCodex(`rollout-2026-01-02T00-00-09-${CODEX_ID.replace(/^0/, '1')}.jsonl`),
    verbs: ['sessions'],
    withOthers: true,
    kinds: CLASSES,
  },
  {
    id: 'a Codex day folder',
    group: 'read-restore-undo',
    path: () => join('home', '.codex', 'sessions', '2026', '01', '03'),
    verbs: ['sessions'],
    withOthers: true,
    kinds: CLASSES,
  },
  {
    id: "the Codex rollout's state file",
    group: 'codex',
    path: () => inCodex(`${ROLLOUT}.compactor-state.json`),
    verbs: ['codex-plan', 'codex-compact', 'codex-compact-in-place', 'codex-restore', 'codex-undo'],
    withOthers: true,
    kinds: CLASSES,
  },
  {
    id: "the Codex rollout's tool-results folder",
    group: 'codex',
    path: () => inCodex(`${ROLLOUT}.tool-results`),
    verbs: ['codex-compact-in-place', 'codex-restore', 'codex-undo'],
    withOthers: true,
    kinds: CLASSES,
  },
  {
    id: "the Codex rollout's lock",
    group: 'codex',
    path: () => inCodex(`${ROLLOUT}.jsonl.compactor.lock`),
    verbs: ['codex-compact', 'codex-compact-in-place', 'codex-restore', 'codex-undo'],
    withOthers: true,
    kinds: CLASSES,
  },
  {
    id: "the Codex rollout's backup",
    group: 'codex',
    path: (n) => inCodex(n.codexBackup),
    verbs: ['codex-restore', 'codex-compact-in-place', 'codex-undo'],
    withOthers: true,
    kinds: CLASSES,
  },
  {
    id: "the Codex backup's manifest",
    group: 'codex',
    path: (n) => inCodex(`${n.codexBackup}.manifest.json`),
    verbs: ['codex-restore', 'codex-undo'],
    withOthers: true,
    kinds: CLASSES,
  },
  {
    id: "the Codex rollout's undo record",
    group: 'codex',
    path: () => inCodex(`${ROLLOUT}.compactor-undo.json`),
    verbs: ['codex-undo'],
    withOthers: true,
  },
];

export type Run = BatchRun;

/**
 * The children that run the cases' verbs, `main(args)` of dist/cli.js for one case after another (cliBatch.ts), with
 * stdin an open pipe nobody writes to (so reading /dev/stdin would block) and no agent folder variable; each case
 * has its own folder as HOME, and is killed after HANG_MS (its child then, the next case getting a new one).
 */
class Runners {
  private readonly idle: CliBatch[] = [];
  private readonly all: CliBatch[] = [];
  private readonly env: NodeJS.ProcessEnv;

  constructor(private readonly bundle: string) {
    this.env = { ...process.env, ANTHROPIC_API_KEY: '' };
    delete this.env.CLAUDE_CONFIG_DIR;
    delete this.env.CODEX_HOME;
  }

  /** Runs `args` (the CLI's, as `node dist/cli.js` takes them) with `home` as the home folder. */
  async run(args: string[], home: string): Promise<Run> {
    let batch = this.idle.pop();
    if (!batch) this.all.push((batch = new CliBatch(this.bundle, this.env, HANG_MS)));
    try {
      return await batch.run(args.slice(1), home);
    } finally {
      this.idle.push(batch);
    }
  }

  get children(): number {
    return this.all.length;
  }

  async dispose(): Promise<void> {
    await Promise.all(this.all.map((b) => b.dispose()));
  }
}

function argsFor(verb: Verb, dir: string): string[] {
  const claude = join(dir, PROJECT, 's.jsonl');
  const cline = join(dir, PROJECT, 'cline', 'api_conversation_history.json');
  const codex = join(dir, CODEX_DAY, `${ROLLOUT}.jsonl`);
  switch (verb) {
    case 'inspect':
    case 'doctor':
    case 'undo':
    case 'restore':
      return [CLI, verb, claude];
    case 'plan':
    case 'compact':
      return [CLI, verb, claude, ...SMALL];
    case 'compact-in-place':
      return [CLI, 'compact', claude, '--in-place', ...SMALL];
    case 'repair':
      return [CLI, 'repair', claude];
    case 'repair-in-place':
      return [CLI, 'repair', claude, '--in-place'];
    case 'cline-inspect':
      return [CLI, 'inspect', cline];
    case 'cline-plan':
      return [CLI, 'plan', cline, ...SMALL];
    case 'sessions':
      return [CLI, 'sessions', '--limit', '1000'];
    case 'codex-inspect':
      return [CLI, 'inspect', codex];
    case 'codex-plan':
      return [CLI, 'plan', codex, ...SMALL];
    case 'codex-compact':
      return [CLI, 'compact', codex, ...SMALL];
    case 'codex-compact-in-place':
      return [CLI, 'compact', codex, '--in-place', ...SMALL];
    case 'codex-restore':
      return [CLI, 'restore', codex];
    case 'codex-undo':
      return [CLI, 'undo', codex];
  }
}

/** Puts a `kind` where `path` is (removing what was there), pointing outside into `outside`. */
function plant(path: string, kind: Kind, outside: string): void {
  rmSync(path, { recursive: true, force: true });
  mkdirSync(dirname(path), { recursive: true });
  switch (kind) {
    case 'link-file':
      return symlinkSync(join(outside, 'id_ed25519'), path);
    case 'link-dir':
      return symlinkSync(join(outside, 'dir'), path);
    case 'link-zero':
      return symlinkSync('/dev/zero', path);
    case 'link-stdin':
      return symlinkSync('/dev/stdin', path);
    case 'dangling':
      return symlinkSync(join(outside, 'nowhere'), path);
    case 'loop':
      return symlinkSync(basename(path), path);
    case 'fifo':
      execFileSync('mkfifo', [path]);
      return;
    case 'huge': {
      const fd = openSync(path, 'w');
      ftruncateSync(fd, HUGE_BYTES);
      closeSync(fd);
    }
  }
}

/** Regular files under `dir` (links not followed) that hold the outside marker, or are as large as /dev/zero's gift. */
function leaks(dir: string, planted: Set<string>, bySize: boolean): string[] {
  const found: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const full = join(d, name);
      const st = lstatSync(full);
      if (st.isDirectory()) walk(full);
      else if (st.isFile() && !planted.has(full)) {
        if (bySize && st.size >= HUGE_BYTES) found.push(`${full}: ${st.size} bytes`);
        if (st.size < HUGE_BYTES && readFileSync(full).includes(MARKER))
          found.push(`${full}: holds an outside file's content`);
      }
    }
  };
  walk(dir);
  return found;
}

/**
 * How many cases run side by side. A case is mostly one child process on one core, with file work in this process
 * (copying the template, walking the result) around it. Four keep two cores busy through that work and through a
 * test's last cases; more would only queue on a busy machine. HANG_MS counts from each case's own start, never
 * from the queue.
 */
export const POOL = 4;

/**
 * Runs `jobs`, `width` at a time, each started only when one before it has finished; no job is left running on
 * return. After a failure no further job starts; the first failure (in the order of `jobs`) is thrown once those
 * running have finished. Otherwise returns the results in the order of `jobs`.
 */
export async function inPool<T>(jobs: (() => Promise<T>)[], width = POOL): Promise<T[]> {
  const results: T[] = new Array<T>(jobs.length);
  const failures = new Map<number, unknown>();
  let next = 0;
  const worker = async () => {
    while (next < jobs.length && failures.size === 0) {
      const i = next++;
      try {
        results[i] = await jobs[i]();
      } catch (e) {
        failures.set(i, e);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(width, jobs.length)) }, worker));
  if (failures.size > 0) throw failures.get(Math.min(...failures.keys()));
  return results;
}

/** A case: a verb run over a fresh copy of the template with these plants put in. */
export type Case = [Verb, [Target, Kind][]];

/** The template sessions of one file, and its cases (each a copy of the template, in a folder of its own). */
export class SidecarCases {
  private readonly template: string;
  private caseNo = 0;
  /** Runs (and their time) over the whole file, for the summary line. */
  private readonly runs: number[] = [];
  /** The slowest run so far, and what it was. */
  private slowest = { ms: -1, what: '' };
  private readonly started = Date.now();

  private constructor(
    private readonly root: string,
    private readonly names: Names,
    private readonly runners: Runners,
  ) {
    this.template = join(root, 'template');
  }

  /**
   * Makes the template (three runs of the CLI, one after another, in the children that then run the cases). For a
   * before hook, after assertCliBuilt().
   */
  static async create(): Promise<SidecarCases> {
    const root = tempDir('ac-sidecar-fuzz-');
    let runners: Runners | undefined;
    try {
      // Bundled into this file's own folder: the sidecar files run side by side.
      runners = new Runners(await bundleChild('cli-batch-child.ts', 'cli-batch-child.js', root));
      const run = runners;
      const names = await makeTemplate(join(root, 'template'), async (...args) => {
        // The user's own home folder, as a CLI run from a shell has it (the sessions are not under it).
        const r = await run.run([CLI, ...args], process.env.HOME ?? homedir());
        assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
        return r.stdout;
      });
      return new SidecarCases(root, names, run);
    } catch (e) {
      await runners?.dispose();
      rmSync(root, { recursive: true, force: true });
      throw e;
    }
  }

  /** Ends the children, removes the cases' folders and says how long the runs took. For an after hook. */
  async dispose(): Promise<void> {
    await this.runners.dispose();
    rmSync(this.root, { recursive: true, force: true });
    const sorted = [...this.runs].sort((a, b) => a - b);
    const took = Math.round((Date.now() - this.started) / 1000);
    console.log(
      `      ${this.runs.length} runs, ${POOL} at a time in ${this.runners.children} children, in ${took} s; median ${sorted[sorted.length >> 1]} ms, slowest ${this.slowest.ms} ms (${this.slowest.what}; a hang is ${HANG_MS} ms)`,
    );
  }

  /** Every case, POOL at a time (see inPool); their runs in the order of `cases`. */
  checkAll(cases: Case[]): Promise<Run[]> {
    return inPool(cases.map((c) => () => this.check(...c)));
  }

  /** One run: a fresh copy of the template, `plants` put in, `verb` run; every property checked. */
  async check(verb: Verb, plants: [Target, Kind][]): Promise<Run> {
    const names = this.names;
    const dir = join(this.root, `case-${this.caseNo++}`);
    cpSync(this.template, dir, { recursive: true, verbatimSymlinks: true });
    const home = join(dir, 'home');
    const outside = join(dir, 'outside');
    const planted = new Set<string>();
    for (const [t, kind] of plants) {
      const path = join(dir, t.path(names));
      if (t.id.startsWith("the backup's state file")) {
        // A planted manifest that says a state file was recorded, so that restoring reads it.
        // (Before the manifest itself may be planted: TARGETS lists it first.)
        const manifest = join(dir, PROJECT, `${names.backup}.manifest.json`);
        const m = JSON.parse(readFileSync(manifest, 'utf8')) as object;
        writeFileSync(manifest, JSON.stringify({ ...m, state: 'saved' }));
      }
      plant(path, kind, outside);
      // Files from a checkout or an archive are not being written this second (a lock younger than 10 s with no
      // owner in it may be one its owner is still writing: 'try again', exit 1).
      if (lstatSync(path).isFile())
        utimesSync(path, new Date(Date.now() - 3_600_000), new Date(Date.now() - 3_600_000));
      planted.add(path);
    }
    const before = snapshotDir(outside);
    const r = await this.runners.run(argsFor(verb, dir), home);
    this.runs.push(r.ms);
    const what = `${verb} with ${plants.map(([t, k]) => `${t.id} as ${k}`).join(', ')}`;
    if (r.ms > this.slowest.ms)
      this.slowest = { ms: r.ms, what: plants.length > 0 ? what : `${verb} with nothing planted` };
    assert.equal(
      r.signal,
      null,
      `HANG: ${what} did not finish within ${HANG_MS / 1000} s (killed)\n${r.stderr.slice(-2000)}`,
    );
    assert.deepEqual(
      diffSnapshots(before, snapshotDir(outside)),
      { added: [], removed: [], changed: [] },
      `${what}: nothing outside the sessions' folders changes`,
    );
    // Run in a child that goes on to other cases: a file left open would stay open there (a process of its own
    // would have closed it on exit), and is a leak in the verb.
    assert.deepEqual(r.openFiles, [], `${what}: no file is left open`);
    // A huge planted file may rightly be copied (a huge backup restored): the size check is for /dev/zero's bytes.
    assert.deepEqual(
      leaks(home, planted, !plants.some(([, k]) => k === 'huge')),
      [],
      `${what}: nothing from outside is copied in`,
    );
    if (r.code !== 0) {
      assert.equal(r.code, 2, `${what}: exit ${r.code}, expected 0 or 2\n${r.stderr}`);
      const lines = r.stderr.split('\n').filter((l) => l.startsWith('agent-compactor: '));
      assert.equal(lines.length, 1, `${what}: one error line\n${r.stderr}`);
      assert.doesNotMatch(r.stderr, /^\s+at /m, `${what}: no stack trace`);
    }
    // Removed without blocking this process, so that the other cases' children are started and read meanwhile.
    await rm(dir, { recursive: true, force: true });
    return r;
  }
}

/**
 * Makes the template sessions in `template`: a Claude Code session compacted in place and then forked, a Cline task,
 * a Codex rollout compacted in place, and outside them what a planted link points at. Returns the sidecars' names.
 */
async function makeTemplate(template: string, cli: (...args: string[]) => Promise<string>): Promise<Names> {
  const project = join(template, PROJECT);
  mkdirSync(join(project, 's', 'subagents'), { recursive: true });
  const claude = join(project, 's.jsonl');
  writeFileSync(
    claude,
    buildTranscript({
      rounds: 16,
      textChars: 1_500,
      resultChars: (r) => (r % 4 === 0 ? 3_000 : r % 4 === 1 ? 1_500 : 300),
    }).join('\n') + '\n',
  );
  writeFileSync(join(project, 's', 'subagents', 'agent-a.jsonl'), buildTranscript({ rounds: 2 }).join('\n') + '\n');
  writeFileSync(join(project, 'other.jsonl'), buildTranscript({ rounds: 2 }).join('\n') + '\n');
  mkdirSync(join(project, 'cline'));
  for (const f of ['api_conversation_history.json', 'ui_messages.json'])
    copyFileSync(join(sharedFixtures, 'cline', 'task-opus', f), join(project, 'cline', f));
  // A real in-place compaction: a backup with its manifest, a state file and saved tool results, as users have them.
  await cli('compact', claude, '--in-place', ...SMALL);
  const backup = readdirSync(project).find((n) => /^s\.jsonl\.bak-[0-9-]+$/.test(n));
  const saved = readdirSync(join(project, 's.tool-results'));
  assert.ok(backup && saved.length > 0, 'the template has a backup and saved tool results');
  // The transcript back as it was, without the state file or saved results: so each compaction below decides
  // afresh and writes its saved tool results, while the backup and its manifest stay for Restore. Then a fork, the
  // last compaction, which the undo record names: it wrote the same saved results again (Undo deletes them).
  copyFileSync(join(project, backup), claude);
  rmSync(join(project, 's.compactor-state.json'));
  rmSync(join(project, 's.tool-results'), { recursive: true });
  const fork = (JSON.parse(await cli('compact', claude, ...SMALL, '--json')) as { output: string }).output;
  assert.deepEqual(readdirSync(join(project, 's.tool-results')), saved, 'the fork saved the same results');
  // A Codex rollout compacted in place (its undo record names that, and undo puts the backup back only while the
  // rollout is still what the compaction wrote).
  const codexDay = join(template, CODEX_DAY);
  mkdirSync(codexDay, { recursive: true });
  const rollout = join(codexDay, `${ROLLOUT}.jsonl`);
  copyFileSync(join(sharedFixtures, 'codex', 'rollout-0.140.jsonl'), rollout);
  chmodSync(rollout, 0o644);
  await cli('compact', rollout, '--in-place', ...SMALL);
  const codexBackup = readdirSync(codexDay).find((n) => n.startsWith(`${ROLLOUT}.jsonl.bak-`) && !n.endsWith('.json'));
  assert.ok(codexBackup, 'the Codex rollout has a backup');
  // Outside the sessions' folders: what a planted link points at.
  const outside = join(template, 'outside');
  mkdirSync(join(outside, 'dir'), { recursive: true });
  writeFileSync(
    join(outside, 'id_ed25519'),
    `-----BEGIN OPENSSH PRIVATE KEY-----\n${MARKER}\n-----END OPENSSH PRIVATE KEY-----\n`,
  );
  for (const n of [...saved, 'agent-x.jsonl', 'ui_messages.json'])
    writeFileSync(join(outside, 'dir', n), `${MARKER} ${n}\n`);
  return { backup, saved, fork: basename(fork), codexBackup };
}

/** A target's cases: each kind planted there, against each verb that touches it (kinds first, as the codes print). */
export function targetCases(target: Target): Case[] {
  return (target.kinds ?? KINDS).flatMap((kind) => target.verbs.map((verb): Case => [verb, [[target, kind]]]));
}

/** `kind/verb:exit` for each case, for the log. */
export function exitCodes(cases: Case[], runs: Run[]): string {
  return cases.map(([verb, plants], i) => `${plants.map(([, k]) => k).join('+')}/${verb}:${runs[i].code}`).join(' ');
}
