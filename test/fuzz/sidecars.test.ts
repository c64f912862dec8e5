// Hostile sidecars: whatever is planted beside a transcript (a link to an outside file or folder, to /dev/zero or
// /dev/stdin, a dangling link, a link loop, a FIFO, a huge file), at every path the verbs read, write or delete
// there, every verb (the real built CLI, and Restore From Backup in a process of its own) finishes, changes nothing
// outside the transcript's folder, copies nothing from outside into it, and either succeeds or ends with exit 2 and
// a one-line reason.
import { strict as assert } from 'node:assert';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  closeSync,
  copyFileSync,
  cpSync,
  utimesSync,
  ftruncateSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { repoRoot, sharedFixtures } from '../support/fixtures';
import { buildTranscript, diffSnapshots, Rng, snapshotDir } from '../support/reliability';

const CLI = join(repoRoot, 'dist', 'cli.js');
const RESTORE = join(repoRoot, 'test', 'support', 'restore-driver.ts');
const SMALL = ['--target-tokens', '14000', '--keep-recent-tokens', '9000', '--max-result-chars', '2000'];
/** A hang detector, not a speed test: every run here takes a second or two. */
const HANG_MS = 60_000;
const MARKER = 'OUTSIDE-SENTINEL-7f3a9c';
const HUGE_BYTES = 80 << 20;

type Kind = 'link-file' | 'link-dir' | 'link-zero' | 'link-stdin' | 'dangling' | 'loop' | 'fifo' | 'huge';
const KINDS: Kind[] = ['link-file', 'link-dir', 'link-zero', 'link-stdin', 'dangling', 'loop', 'fifo', 'huge'];

type Verb =
  | 'inspect'
  | 'plan'
  | 'compact'
  | 'compact-in-place'
  | 'doctor'
  | 'repair'
  | 'restore'
  | 'cline-inspect'
  | 'cline-plan';
const CLAUDE_VERBS: Verb[] = ['inspect', 'plan', 'compact', 'compact-in-place', 'doctor', 'repair', 'restore'];
// Cline tasks are read-only: plan reads the task (and ui_messages.json) before refusing with exit 2; doctor reads JSONL only.
const CLINE_VERBS: Verb[] = ['cline-inspect', 'cline-plan'];

/** The template session's sidecar names, found once it is made. */
interface Names {
  backup: string;
  saved: string[];
}

interface Target {
  id: string;
  /** Path of the sidecar, relative to the project folder. */
  path: (n: Names) => string;
  /** The verbs that read, write or delete it. */
  verbs: Verb[];
  /** False when planting it would take away the folder other targets live in. */
  withOthers: boolean;
}

const TARGETS: Target[] = [
  {
    id: 'state file',
    path: () => 's.compactor-state.json',
    verbs: ['plan', 'compact', 'compact-in-place', 'restore'],
    withOthers: true,
  },
  {
    id: 'tool-results folder',
    path: () => 's.tool-results',
    verbs: ['compact', 'compact-in-place', 'restore'],
    withOthers: false,
  },
  {
    id: 'a saved tool result',
    path: (n) => join('s.tool-results', n.saved[0]),
    verbs: ['compact', 'compact-in-place', 'restore'],
    withOthers: true,
  },
  {
    id: 'a subagent transcript',
    path: () => join('s', 'subagents', 'agent-x.jsonl'),
    verbs: ['inspect', 'doctor'],
    withOthers: true,
  },
  { id: 'the subagents folder', path: () => join('s', 'subagents'), verbs: ['inspect', 'doctor'], withOthers: false },
  { id: 'the session folder', path: () => 's', verbs: ['inspect'], withOthers: false },
  {
    id: 'the lock',
    path: () => 's.jsonl.compactor.lock',
    verbs: ['compact', 'compact-in-place', 'repair', 'restore'],
    withOthers: true,
  },
  { id: 'the backup', path: (n) => n.backup, verbs: ['restore', 'compact-in-place'], withOthers: true },
  {
    id: "the backup's state file (its manifest says there is one)",
    path: (n) => `${n.backup}.compactor-state.json`,
    verbs: ['restore'],
    withOthers: true,
  },
  { id: "the backup's manifest", path: (n) => `${n.backup}.manifest.json`, verbs: ['restore'], withOthers: true },
  {
    id: "Cline's ui_messages.json",
    path: () => join('cline', 'ui_messages.json'),
    verbs: CLINE_VERBS,
    withOthers: true,
  },
];

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs `args` with stdin an open pipe nobody writes to (so reading /dev/stdin would block), killed after HANG_MS. */
function runBounded(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, args, {
      cwd: repoRoot,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, ANTHROPIC_API_KEY: '' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), HANG_MS);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, ms: Date.now() - started });
    });
  });
}

function argsFor(verb: Verb, project: string): string[] {
  const claude = join(project, 's.jsonl');
  const cline = join(project, 'cline', 'api_conversation_history.json');
  switch (verb) {
    case 'inspect':
    case 'doctor':
      return [CLI, verb, claude];
    case 'plan':
    case 'compact':
      return [CLI, verb, claude, ...SMALL];
    case 'compact-in-place':
      return [CLI, 'compact', claude, '--in-place', ...SMALL];
    case 'repair':
      return [CLI, 'repair', claude];
    case 'restore':
      return ['--import', 'tsx', RESTORE, claude];
    case 'cline-inspect':
      return [CLI, 'inspect', cline];
    case 'cline-plan':
      return [CLI, 'plan', cline, ...SMALL];
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

describe('hostile sidecars: every verb finishes, touches nothing outside, copies nothing in', function () {
  this.timeout(1_800_000);
  let root: string;
  let template: string;
  let names: Names;
  let caseNo = 0;
  const seed = Number(process.env.SIDECAR_FUZZ_SEED ?? 20261125);

  before(() => {
    const built = spawnSync(process.execPath, [join(repoRoot, 'scripts', 'build.mjs')], {
      cwd: repoRoot,
      encoding: 'utf8',
    });
    assert.equal(built.status, 0, built.stderr);
    root = mkdtempSync(join(tmpdir(), 'ac-sidecar-fuzz-'));
    template = join(root, 'template');
    const project = join(template, 'project');
    mkdirSync(join(project, 's', 'subagents'), { recursive: true });
    writeFileSync(
      join(project, 's.jsonl'),
      buildTranscript({
        rounds: 16,
        textChars: 1_500,
        resultChars: (r) => (r % 4 === 0 ? 3_000 : r % 4 === 1 ? 1_500 : 300),
      }).join('\n') + '\n',
    );
    writeFileSync(join(project, 's', 'subagents', 'agent-a.jsonl'), buildTranscript({ rounds: 2 }).join('\n') + '\n');
    mkdirSync(join(project, 'cline'));
    for (const f of ['api_conversation_history.json', 'ui_messages.json'])
      copyFileSync(join(sharedFixtures, 'cline', 'task-opus', f), join(project, 'cline', f));
    // A real in-place compaction: a backup with its manifest, a state file and saved tool results, as users have them.
    const made = spawnSync(process.execPath, [CLI, 'compact', join(project, 's.jsonl'), '--in-place', ...SMALL], {
      encoding: 'utf8',
    });
    assert.equal(made.status, 0, made.stderr);
    const backup = readdirSync(project).find((n) => /^s\.jsonl\.bak-[0-9-]+$/.test(n));
    const saved = readdirSync(join(project, 's.tool-results'));
    assert.ok(backup && saved.length > 0, 'the template has a backup and saved tool results');
    names = { backup, saved };
    // The transcript back as it was, without the state file: so each compaction below decides afresh and writes its
    // saved tool results (the same bytes: left alone), while the backup and its manifest stay for Restore.
    copyFileSync(join(project, backup), join(project, 's.jsonl'));
    rmSync(join(project, 's.compactor-state.json'));
    // Outside the transcript's folder: what a planted link points at.
    const outside = join(template, 'outside');
    mkdirSync(join(outside, 'dir'), { recursive: true });
    writeFileSync(
      join(outside, 'id_ed25519'),
      `-----BEGIN OPENSSH PRIVATE KEY-----\n${MARKER}\n-----END OPENSSH PRIVATE KEY-----\n`,
    );
    for (const n of [...saved, 'agent-x.jsonl', 'ui_messages.json'])
      writeFileSync(join(outside, 'dir', n), `${MARKER} ${n}\n`);
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  /** One run: a fresh copy of the template, `plants` put in, `verb` run; every property checked. */
  async function check(verb: Verb, plants: [Target, Kind][]): Promise<Run> {
    const dir = join(root, `case-${caseNo++}`);
    cpSync(template, dir, { recursive: true, verbatimSymlinks: true });
    const project = join(dir, 'project');
    const outside = join(dir, 'outside');
    const planted = new Set<string>();
    for (const [t, kind] of plants) {
      const path = join(project, t.path(names));
      if (t.id.startsWith("the backup's state file")) {
        // A planted manifest that says a state file was recorded, so that restoring reads it.
        // (Before the manifest itself may be planted: TARGETS lists it first.)
        const m = JSON.parse(readFileSync(join(project, `${names.backup}.manifest.json`), 'utf8')) as object;
        writeFileSync(join(project, `${names.backup}.manifest.json`), JSON.stringify({ ...m, state: 'saved' }));
      }
      plant(path, kind, outside);
      // Files from a checkout or an archive are not being written this second (a lock younger than 10 s with no
      // owner in it may be one its owner is still writing: 'try again', exit 1).
      if (lstatSync(path).isFile())
        utimesSync(path, new Date(Date.now() - 3_600_000), new Date(Date.now() - 3_600_000));
      planted.add(path);
    }
    const before = snapshotDir(outside);
    const r = await runBounded(argsFor(verb, project));
    const what = `${verb} with ${plants.map(([t, k]) => `${t.id} as ${k}`).join(', ')}`;
    assert.equal(
      r.signal,
      null,
      `HANG: ${what} did not finish within ${HANG_MS / 1000} s (killed)\n${r.stderr.slice(-2000)}`,
    );
    assert.deepEqual(
      diffSnapshots(before, snapshotDir(outside)),
      { added: [], removed: [], changed: [] },
      `${what}: nothing outside the transcript's folder changes`,
    );
    // A huge planted file may rightly be copied (a huge backup restored): the size check is for /dev/zero's bytes.
    assert.deepEqual(
      leaks(project, planted, !plants.some(([, k]) => k === 'huge')),
      [],
      `${what}: nothing from outside is copied in`,
    );
    if (r.code !== 0) {
      assert.equal(r.code, 2, `${what}: exit ${r.code}, expected 0 or 2\n${r.stderr}`);
      const lines = r.stderr.split('\n').filter((l) => l.startsWith('agent-compactor: '));
      assert.equal(lines.length, 1, `${what}: one error line\n${r.stderr}`);
      assert.doesNotMatch(r.stderr, /^\s+at /m, `${what}: no stack trace`);
    }
    rmSync(dir, { recursive: true, force: true });
    return r;
  }

  it('the template session itself: every verb succeeds (the checks below would pass on a refusal of anything)', async () => {
    for (const verb of [...CLAUDE_VERBS, ...CLINE_VERBS]) {
      const r = await check(verb, []);
      if (verb === 'cline-plan') assert.match(r.stderr, /Cline \/ Roo Code tasks are read-only/, r.stderr);
      else assert.equal(r.code, 0, `${verb}: ${r.stderr}`);
    }
  });

  for (const target of TARGETS) {
    it(`${target.id}: each kind of plant, against the verbs that touch it`, async () => {
      const codes: string[] = [];
      for (const kind of KINDS)
        for (const verb of target.verbs) codes.push(`${kind}/${verb}:${(await check(verb, [[target, kind]])).code}`);
      console.log(`      ${codes.join(' ')}`);
    });
  }

  it('a seeded mix of kinds planted at every path at once, against every verb', async () => {
    const rng = new Rng(seed);
    for (let round = 0; round < KINDS.length; round++) {
      const plants = TARGETS.filter((t) => t.withOthers).map((t): [Target, Kind] => [
        t,
        round === 0 ? KINDS[0] : rng.pick(KINDS),
      ]);
      for (const verb of [...CLAUDE_VERBS, ...CLINE_VERBS]) await check(verb, plants);
    }
  });
});
