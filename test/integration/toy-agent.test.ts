// Issue 32, "a newcomer adds a toy written agent in a test by touching only its folder and the registry": the Toy
// Agent (test/fixtures-code/core/formats/toy-agent/, written as docs/ADDING-AN-AGENT.md says) is added to a copy of
// src/ as a newcomer would add it, the CLI is bundled from that copy, and the copy's CLI inspects, plans, compacts
// (to a fork and in place, offline), lists, undoes and restores a toy session. That the copy differs from src/ by the
// folder and the registration lines alone is checked, not assumed; so are the folder's imports (against the doc's
// list) and the registry's unit tests with the toy registered.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join, relative } from 'node:path';
import { build, type Plugin } from 'esbuild';
import { repoRoot } from '../support/fixtures';
import { tempDir } from '../support/temp';

const TOY = join(repoRoot, 'test', 'fixtures-code', 'core', 'formats', 'toy-agent');

/** What a newcomer adds to each registry: the lines inserted, each after the line that anchors it. */
const REGISTRATIONS: Record<string, { after: string; line: string }[]> = {
  'core/formats/registry.ts': [
    { after: "import { copilotCli } from './copilot-cli';", line: "import { toyAgent } from './toy-agent';" },
  ],
  'core/formats/writers.ts': [
    { after: "import { codexWriter } from './codex/writer';", line: "import { toyWriter } from './toy-agent/writer';" },
    { after: '  codex: codexWriter,', line: "  'toy-agent': toyWriter," },
  ],
};
/** The one line edited rather than added: the agent joins the list (its place is its order). */
const AGENTS_LINE = { from: 'copilotCli] as const;', to: 'copilotCli, toyAgent] as const;' };

function register(src: string): void {
  for (const [file, inserts] of Object.entries(REGISTRATIONS)) {
    const path = join(src, file);
    let text = readFileSync(path, 'utf8');
    for (const { after, line } of inserts) {
      assert.ok(text.includes(after + '\n'), `${file}: the anchor ${after} is gone`);
      text = text.replace(after + '\n', `${after}\n${line}\n`);
    }
    if (file.endsWith('registry.ts')) {
      assert.ok(text.includes(AGENTS_LINE.from), `${file}: the AGENTS line is not ${AGENTS_LINE.from}`);
      text = text.replace(AGENTS_LINE.from, AGENTS_LINE.to);
    }
    writeFileSync(path, text);
  }
}

/** Every file under `dir`, relative to it. */
function files(dir: string, under = dir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? files(join(dir, d.name), under) : [relative(under, join(dir, d.name)).split('\\').join('/')],
  );
}

/** The lines of `b` not in `a` and of `a` not in `b` (as multisets). */
function lineDiff(a: string, b: string): { removed: string[]; added: string[] } {
  const count = new Map<string, number>();
  for (const l of a.split('\n')) count.set(l, (count.get(l) ?? 0) + 1);
  const added: string[] = [];
  for (const l of b.split('\n')) {
    const n = count.get(l) ?? 0;
    if (n > 0) count.set(l, n - 1);
    else added.push(l);
  }
  const removed = [...count].flatMap(([l, n]) => Array<string>(n).fill(l));
  return { removed, added };
}

/**
 * The CLI bundle of the copy, as scripts/build.mjs makes dist/cli.js, with the token worker and the tokenizer's ranks
 * beside it. The SDK stays a file of its own that the bundle requires on an API summary only, so it is not built: the
 * toy is summarized offline.
 */
async function bundle(root: string): Promise<string> {
  const out = join(root, 'dist');
  mkdirSync(out);
  copyFileSync(createRequire(__filename).resolve('js-tiktoken/ranks/o200k_base'), join(out, 'o200k_base.cjs'));
  const sdkBeside: Plugin = {
    name: 'anthropic-sdk-beside',
    setup(b) {
      b.onResolve({ filter: /^@anthropic-ai\/sdk$/ }, () => ({ path: 'anthropic-sdk.js', namespace: 'sdk-beside' }));
      b.onLoad({ filter: /.*/, namespace: 'sdk-beside' }, () => ({
        contents: "module.exports = require('./anthropic-sdk.js');",
        loader: 'js',
      }));
      b.onResolve({ filter: /^\.\//, namespace: 'sdk-beside' }, (a) => ({ path: a.path, external: true }));
    },
  };
  const common = {
    bundle: true,
    platform: 'node' as const,
    format: 'cjs' as const,
    target: 'node20',
    logLevel: 'warning' as const,
    define: { VERSION: JSON.stringify('0.0.0-toy') },
    external: ['js-tiktoken/ranks/*'],
  };
  await Promise.all([
    build({
      ...common,
      entryPoints: [join(root, 'src/cli/main.ts')],
      outfile: join(out, 'cli.js'),
      plugins: [sdkBeside],
    }),
    build({
      ...common,
      entryPoints: [join(root, 'src/core/tokens/worker.ts')],
      outfile: join(out, 'tokens-worker.js'),
    }),
  ]);
  return join(out, 'cli.js');
}

/** A toy session of `turns` turns: a prompt, a response calling a tool, its result, the closing response. */
function toySession(
  id: string,
  turns: number,
): { text: string; usage: { input: number; cached: number; output: number }[]; ids: string[] } {
  const lines: object[] = [{ toy: 'session', id, cwd: '/work/toy', version: '1.0' }];
  const usage: { input: number; cached: number; output: number }[] = [];
  const ids: string[] = [];
  let context = 1200;
  for (let t = 1; t <= turns; t++) {
    const output = `line ${t}: ${'the quick brown fox jumps over the lazy dog. '.repeat(60)}`;
    lines.push({
      toy: 'message',
      role: 'user',
      id: `u${t}`,
      text: `Turn ${t}: read notes-${t}.md and say what it holds.`,
    });
    const first = { input: context, cached: Math.max(0, context - 400), output: 30 };
    lines.push({
      toy: 'message',
      role: 'assistant',
      id: `a${t}a`,
      model: 'toy-1',
      text: `Reading notes-${t}.md.`,
      calls: [{ id: `c${t}`, tool: 'read', input: { path: `notes-${t}.md` } }],
      usage: first,
    });
    lines.push({ toy: 'message', role: 'tool', id: `t${t}`, results: [{ call: `c${t}`, output, error: false }] });
    context += 700;
    const second = { input: context, cached: context - 700, output: 60 };
    lines.push({
      toy: 'message',
      role: 'assistant',
      id: `a${t}b`,
      model: 'toy-1',
      text: `notes-${t}.md lists the fox and the dog, turn ${t}.`,
      usage: second,
    });
    context += 100;
    usage.push(first, second);
    ids.push(`a${t}a`, `a${t}b`);
  }
  return { text: lines.map((l) => JSON.stringify(l)).join('\n') + '\n', usage, ids };
}

interface PlanJson {
  rounds: { index: number; action: string }[];
  summarizedRounds: number;
  postTokens: number;
}

interface CompactJson {
  output: string;
  mode: string;
  sessionId: string;
  agent: string;
  summarizer: string;
  backup: string | null;
}

interface ListedJson {
  file: string;
  sessionId: string | null;
  cwd: string | null;
  title: string | null;
}

interface UndoJson {
  mode: string;
  removed: string | null;
  restored: string | null;
}

interface InspectJson {
  format: { id: string; agent: string };
  rounds: {
    messageId: string | null;
    inContext: boolean;
    startsAtBoundary: boolean;
    usage: { contextTokens: number; outputTokens: number } | null;
  }[];
}

describe('a toy written agent added by its folder and the registry alone (issue 32)', function () {
  this.timeout(60_000);
  const root = tempDir('ac-toy-agent-');
  const home = join(root, 'home');
  let cli = '';
  const run = (...args: string[]) => {
    const r = spawnSync(process.execPath, [cli, ...args], {
      encoding: 'utf8',
      env: { ...process.env, HOME: home, USERPROFILE: home, ANTHROPIC_API_KEY: '' },
      timeout: 30_000,
    });
    assert.equal(r.status, 0, `${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };

  before(async () => {
    mkdirSync(home);
    cpSync(join(repoRoot, 'src'), join(root, 'src'), { recursive: true });
    cpSync(TOY, join(root, 'src', 'core', 'formats', 'toy-agent'), { recursive: true });
    register(join(root, 'src'));
    symlinkSync(join(repoRoot, 'node_modules'), join(root, 'node_modules'), 'junction');
    cli = await bundle(root);
  });

  it('the copy differs from src/ by the toy folder and the registration lines only', () => {
    const ours = files(join(repoRoot, 'src'));
    const copy = files(join(root, 'src'));
    const toyFiles = files(TOY).map((f) => `core/formats/toy-agent/${f}`);
    assert.deepEqual(copy.filter((f) => !ours.includes(f)).sort(), toyFiles.sort(), 'added: the toy folder only');
    assert.deepEqual(
      ours.filter((f) => !copy.includes(f)),
      [],
      'nothing removed',
    );
    for (const f of toyFiles)
      assert.equal(
        readFileSync(join(root, 'src', f), 'utf8'),
        readFileSync(join(TOY, f.slice('core/formats/toy-agent/'.length)), 'utf8'),
      );
    const changed = ours.filter(
      (f) => readFileSync(join(repoRoot, 'src', f), 'utf8') !== readFileSync(join(root, 'src', f), 'utf8'),
    );
    assert.deepEqual(changed.sort(), Object.keys(REGISTRATIONS).sort(), 'changed: the registries only');
    const diffs = changed.map((f) =>
      lineDiff(readFileSync(join(repoRoot, 'src', f), 'utf8'), readFileSync(join(root, 'src', f), 'utf8')),
    );
    assert.deepEqual(
      diffs.flatMap((d) => d.removed),
      [`export const AGENTS = [claudeCode, codex, geminiCli, cline, ${AGENTS_LINE.from}`],
    );
    assert.deepEqual(
      diffs.flatMap((d) => d.added).sort(),
      [
        ...Object.values(REGISTRATIONS).flatMap((ins) => ins.map((i) => i.line)),
        `export const AGENTS = [claudeCode, codex, geminiCli, cline, ${AGENTS_LINE.to}`,
      ].sort(),
    );
  });

  it('the toy imports only what docs/ADDING-AN-AGENT.md says an agent may', () => {
    const doc = readFileSync(join(repoRoot, 'docs', 'ADDING-AN-AGENT.md'), 'utf8');
    const section = doc.slice(doc.indexOf('## What the folder may import'));
    const [reading, engine] = section
      .slice(0, section.indexOf('\n## ', 4))
      .split('The writer may also use the engine:');
    const listed = (text: string) => [...text.matchAll(/^- `(\.\.\/[^`]+)`/gm)].map((m) => m[1]);
    const readingHalf = listed(reading);
    assert.ok(readingHalf.length > 3 && listed(engine).length > 3, 'the lists are where the test reads them');
    for (const f of files(TOY)) {
      const allowed = f === 'writer.ts' ? [...readingHalf, ...listed(engine)] : readingHalf;
      const imports = [...readFileSync(join(TOY, f), 'utf8').matchAll(/from '([^']+)';$/gm)].map((m) => m[1]);
      assert.ok(imports.length > 0, f);
      for (const from of imports)
        assert.ok(
          from.startsWith('node:') ||
            (from.startsWith('./') && !(f !== 'writer.ts' && from === './writer')) ||
            allowed.includes(from),
          `${f} imports ${from}, which the doc does not list for it`,
        );
    }
  });

  it("the registry's own checks hold with the toy registered, unchanged", () => {
    // The unit tests that run over every registered module (docs/ADDING-AN-AGENT.md), run on the copy as they are.
    const tests = ['agent-modules.test.ts', 'neutral-core.test.ts'];
    mkdirSync(join(root, 'test', 'unit'), { recursive: true });
    for (const t of tests) copyFileSync(join(repoRoot, 'test', 'unit', t), join(root, 'test', 'unit', t));
    copyFileSync(join(repoRoot, 'package.json'), join(root, 'package.json'));
    const mocha = createRequire(__filename).resolve('mocha/bin/mocha.js');
    const r = spawnSync(
      process.execPath,
      [mocha, '--node-option', 'import=tsx', '--reporter', 'dot', ...tests.map((t) => `test/unit/${t}`)],
      { cwd: root, encoding: 'utf8', timeout: 40_000 },
    );
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /8 passing/);
  });

  it('inspects, plans, compacts to a fork and in place, undoes and restores a toy session', () => {
    const sessions = join(home, '.toy-agent', 'sessions');
    mkdirSync(sessions, { recursive: true });
    const file = join(sessions, 'toy-session-1.jsonl');
    const { text, usage, ids } = toySession('toy-session-1', 8);
    writeFileSync(file, text);
    const original = readFileSync(file);

    const inspected = JSON.parse(run('inspect', file, '--json')) as InspectJson;
    assert.equal(inspected.format.id, 'toy-agent');
    assert.equal(inspected.format.agent, 'Toy Agent');
    // The first prompt before any response, then one round per response, with the usage the toy file records.
    assert.deepEqual(
      inspected.rounds.map((r) => r.messageId),
      [null, ...ids],
    );
    assert.deepEqual(
      inspected.rounds.slice(1).map((r) => r.usage),
      usage.map((u) => ({ contextTokens: u.input, outputTokens: u.output })),
    );

    // The plan: the last turn's two responses kept, everything before summarized, within the target.
    const target = ['--target-tokens', '6000'];
    const plan = JSON.parse(run('plan', file, '--json', ...target)) as PlanJson;
    assert.deepEqual(
      plan.rounds.filter((r) => r.action === 'keep').map((r) => r.index),
      [15, 16],
    );
    assert.equal(plan.summarizedRounds, 15);
    assert.ok(plan.postTokens <= 6000, `${plan.postTokens} within the target`);

    // A fork: a new session beside the original (its head under the new id), read back by the toy reader as the
    // compaction and the two kept responses under fresh ids; the original untouched.
    const fork = JSON.parse(run('compact', file, '--json', '--summarizer', 'extractive', ...target)) as CompactJson;
    assert.equal(fork.mode, 'fork');
    assert.equal(fork.agent, 'toy-agent');
    assert.equal(fork.summarizer, 'extractive');
    assert.equal(basename(fork.output), `${fork.sessionId}.jsonl`);
    assert.ok(readFileSync(file).equals(original), 'a fork leaves the original as it was');
    const forkLines = readFileSync(fork.output, 'utf8').trimEnd().split('\n');
    assert.deepEqual(JSON.parse(forkLines[0]), {
      toy: 'session',
      id: fork.sessionId,
      cwd: '/work/toy',
      version: '1.0',
      forkOf: 'toy-session-1',
    });
    const compaction = (line: string) => JSON.parse(line) as { toy: string; id: string; compactor?: string };
    assert.equal(compaction(forkLines[1]).toy, 'compaction');
    assert.equal(compaction(forkLines[1]).compactor, 'agent-compactor');
    const forked = JSON.parse(run('inspect', fork.output, '--json')) as InspectJson;
    assert.equal(forked.format.id, 'toy-agent');
    const forkId = compaction(forkLines[1]).id;
    assert.deepEqual(
      forked.rounds.map((r) => [r.messageId, r.inContext, r.startsAtBoundary]),
      [
        [null, true, true],
        [`a8a@${forkId}`, true, false],
        [`a8b@${forkId}`, true, false],
      ],
    );

    // The session list finds both where the module says toy sessions are, with what their heads record.
    const listed = JSON.parse(run('sessions', '--json', '--agent', 'toy-agent')) as ListedJson[];
    assert.deepEqual(
      listed.map((l) => [basename(l.file), l.sessionId, l.cwd, l.title]).sort(),
      [
        ['toy-session-1.jsonl', 'toy-session-1', '/work/toy', 'Turn 1: read notes-1.md and say what it holds.'],
        [basename(fork.output), fork.sessionId, '/work/toy', null],
      ].sort(),
    );

    // Its help names where they are, as the module says it.
    assert.match(run('sessions', '--help'), /; Toy Agent ~\/\.toy-agent\/sessions\.\n/);

    // Undo of the fork deletes it (it holds our compaction's mark) and leaves the original.
    const forkUndone = JSON.parse(run('undo', file, '--json')) as UndoJson;
    assert.equal(forkUndone.mode, 'fork');
    assert.equal(forkUndone.removed, fork.output);
    assert.ok(!existsSync(fork.output), 'the fork is gone');
    assert.ok(readFileSync(file).equals(original));

    // In place: the original's lines untouched, then the compaction and the kept responses; before it, history.
    const inPlace = JSON.parse(
      run('compact', file, '--json', '--summarizer', 'extractive', '--in-place', ...target),
    ) as CompactJson;
    assert.equal(inPlace.mode, 'in-place');
    assert.equal(inPlace.sessionId, 'toy-session-1');
    assert.ok(inPlace.backup && readFileSync(inPlace.backup).equals(original), 'the backup is the original');
    const written = readFileSync(file);
    assert.ok(written.subarray(0, original.length).equals(original), "the original's lines stay as they were");
    const inPlaceId = compaction(written.subarray(original.length).toString('utf8').split('\n')[0]).id;
    const compacted = JSON.parse(run('inspect', file, '--json')) as InspectJson;
    assert.deepEqual(
      compacted.rounds.filter((r) => r.inContext).map((r) => [r.messageId, r.startsAtBoundary]),
      [
        [null, true],
        [`a8a@${inPlaceId}`, false],
        [`a8b@${inPlaceId}`, false],
      ],
    );
    assert.deepEqual(
      compacted.rounds.filter((r) => !r.inContext).map((r) => r.messageId),
      [null, ...ids],
      'the rounds before the compaction, out of context',
    );

    // Undo: the original back, byte for byte.
    const undone = JSON.parse(run('undo', file, '--json')) as UndoJson;
    assert.equal(undone.mode, 'in-place');
    assert.equal(undone.restored, inPlace.backup);
    assert.ok(readFileSync(file).equals(original), 'the original, byte for byte, after undo');

    // A compaction of a compaction: the earlier summary quoted in the new one, the newest response kept; undo puts
    // back the first compaction's file.
    run('compact', file, '--json', '--summarizer', 'extractive', '--in-place', ...target);
    const once = readFileSync(file);
    const twice = JSON.parse(
      run('compact', file, '--json', '--summarizer', 'extractive', '--in-place', '--target-tokens', '400'),
    ) as CompactJson;
    assert.equal(twice.mode, 'in-place');
    const last = readFileSync(file).subarray(once.length).toString('utf8').split('\n');
    const second = JSON.parse(last[0]) as { toy: string; id: string; summary: string };
    assert.equal(second.toy, 'compaction');
    assert.match(second.summary, /before an earlier compaction \(quoted whole\)/);
    const again = JSON.parse(run('inspect', file, '--json')) as InspectJson;
    assert.deepEqual(
      again.rounds.filter((r) => r.inContext).map((r) => [r.messageId, r.startsAtBoundary]),
      [
        [null, true],
        [`a8b@${second.id}`, false],
      ],
    );
    assert.equal(again.rounds.filter((r) => r.startsAtBoundary).length, 2, 'two compactions');
    run('undo', file, '--json');
    assert.ok(readFileSync(file).equals(once), 'undo puts back the first compaction');

    // Restore: the backup of the first in-place compaction (the original) comes back over the file.
    const restored = JSON.parse(run('restore', file, '--backup', inPlace.backup, '--json')) as UndoJson;
    assert.equal(restored.restored, inPlace.backup);
    assert.ok(readFileSync(file).equals(original), 'the original, byte for byte, restored');
  });
});
