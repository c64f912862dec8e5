// Paths: hostile tool_use_ids, session ids and file names never let a write escape the
// transcript's folder; symlinked transcripts are resolved; a symlinked sidecar folder is refused.
import { strict as assert } from 'node:assert';
import {
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { compactFile } from '../../src/core/compact/compact';
import { CompactError } from '../../src/core/compact/types';
import { safeToolResultName } from '../../src/core/compact/state';
import { checkResumable } from '../../src/core/compact/validate';
import { buildTranscript, diffSnapshots, snapshotDir } from '../support/reliability';
import { agentFixtures } from '../support/fixtures';
import { tempDir } from '../support/temp';

const HOSTILE_IDS = [
  '../../../../escape-up',
  '../../../../../../../../../../../../tmp/ac-escape-rel',
  '/tmp/ac-escape-abs',
  'a\u0000b',
  '\u0000',
  'C:\\x',
  'C:\\Windows\\System32\\evil.dll',
  '\\\\server\\share\\x',
  'x/../../y',
  '..',
  '.',
  '',
  'con',
  'nul.txt',
  '%2e%2e%2f%2e%2e%2fetc',
  'ü/é',
  'a'.repeat(300),
  'toolu_plain_ok',
];

const settings = {
  targetTokens: 10_000_000,
  keepRecentTokens: 10_000_000,
  maxToolResultChars: 1_000,
  previewBytes: 200,
};

const jails: string[] = [];
function setup(name = 'session.jsonl', opts: { ids?: string[]; sessionId?: string } = {}) {
  const jail = tempDir('ac-paths-');
  jails.push(jail);
  // Deep enough that any `../` chain in the ids above would still land inside the jail.
  const project = join(jail, 'a', 'b', 'c', 'd', 'e', 'f', 'project');
  mkdirSync(project, { recursive: true });
  const ids = opts.ids ?? HOSTILE_IDS;
  const file = join(project, name);
  const lines = buildTranscript({
    rounds: ids.length,
    toolId: (r) => ids[r],
    resultChars: () => 5_000,
    sessionId: opts.sessionId,
  });
  writeFileSync(file, lines.join('\n') + '\n');
  return { jail, project, file, ids };
}

/** Every path added under the jail, relative to the project folder. */
function written(jail: string, project: string, before: ReturnType<typeof snapshotDir>) {
  const d = diffSnapshots(before, snapshotDir(jail));
  return { ...d, added: d.added.map((p) => relative(relative(jail, project), p)) };
}

describe('paths: hostile ids and names cannot escape the transcript folder', function () {
  this.timeout(60_000);
  afterEach(() => {
    for (const j of jails.splice(0)) rmSync(j, { recursive: true, force: true });
  });

  it('tool_use_ids with ../, /, NUL, drive letters and UNC paths: every write stays in the sidecar folder', async () => {
    const { jail, project, file, ids } = setup();
    const before = snapshotDir(jail);
    const res = await compactFile(file, { summarizer: 'extractive', settings });
    const w = written(jail, project, before);
    console.log(
      `      files written (${w.added.length}):\n${w.added.map((p) => `        ${JSON.stringify(p)}`).join('\n')}`,
    );
    assert.deepEqual(w.changed, []);
    assert.deepEqual(w.removed, []);
    const expected = new Set([
      `${res.sessionId}.jsonl`,
      `${res.sessionId}.compactor-state.json`,
      'session.tool-results',
      ...ids.map((id) => `session.tool-results/${safeToolResultName(id)}`),
    ]);
    assert.deepEqual(
      new Set(w.added),
      expected,
      'exactly the output, the state and one full-text file per replaced result',
    );
    for (const p of w.added) assert.ok(!p.startsWith('..') && !p.includes('\0'), `escaped: ${p}`);
    for (const p of ['/tmp/ac-escape-rel', '/tmp/ac-escape-abs', '/tmp/ac-escape-abs.txt'])
      assert.ok(!existsSync(p), `${p} was created`);
    // Distinct ids never share a file, and each file holds its own result.
    const names = ids.map(safeToolResultName);
    assert.equal(new Set(names).size, ids.length);
    for (const n of names) assert.match(n, /^[A-Za-z0-9_-]{1,120}\.txt$/);
    const toolDir = join(project, 'session.tool-results');
    for (const [r, id] of ids.entries()) {
      const text = readFileSync(join(toolDir, safeToolResultName(id)), 'utf8');
      assert.ok(text.startsWith(`contents of file${r}.ts`), `full text of ${JSON.stringify(id)}`);
    }
    assert.equal(res.plan.toolResults.filter((t) => t.action === 'replaced').length, ids.length);
    // The previews name the file inside the sidecar folder.
    // …by an absolute path, so the resumed agent can read it from its own working directory.
    for (const t of res.plan.toolResults)
      assert.ok(
        t.fullTextPath!.startsWith(`${toolDir}/`) && !t.fullTextPath!.slice(toolDir.length + 1).includes('/'),
        t.fullTextPath!,
      );
    assert.ok((await checkResumable(res.output)).ok);
    rmSync(jail, { recursive: true, force: true });
  });

  it('in place: only the transcript, its backup and its sidecars change', async () => {
    const { jail, project, file } = setup();
    const original = readFileSync(file);
    const before = snapshotDir(jail);
    const res = await compactFile(file, { summarizer: 'extractive', settings, inPlace: true });
    const w = written(jail, project, before);
    assert.deepEqual(w.changed, [relative(jail, file)]);
    assert.deepEqual(w.removed, []);
    for (const p of w.added)
      assert.match(
        p,
        /^(session\.jsonl\.bak-[0-9-]+(\.manifest\.json|\.compactor-state\.json)?|session\.compactor-state\.json|session\.tool-results(\/[A-Za-z0-9_-]+\.txt)?)$/,
      );
    assert.ok(readFileSync(res.backup!).equals(original));
    assert.ok(readFileSync(file).subarray(0, original.length).equals(original));
    rmSync(jail, { recursive: true, force: true });
  });

  it('a hostile sessionId inside the transcript is never used as a path', async () => {
    for (const sessionId of ['../../../../../../evil-session', '/tmp/ac-escape-session', 'C:\\sess', 'a\u0000b']) {
      const { jail, project, file } = setup('session.jsonl', { ids: ['toolu_1', 'toolu_2'], sessionId });
      const before = snapshotDir(jail);
      const res = await compactFile(file, { summarizer: 'extractive', settings });
      const w = written(jail, project, before);
      // The fork is named by a fresh id of ours, never by the id the transcript claims.
      assert.ok(res.sessionId && res.sessionId !== sessionId && /^[0-9a-f-]{36}$/.test(res.sessionId));
      const fork = new Set([`${res.sessionId}.jsonl`, `${res.sessionId}.compactor-state.json`]);
      for (const p of w.added)
        assert.ok(
          fork.has(p) || /^session\.tool-results(\/toolu_[12]\.txt)?$/.test(p),
          `${JSON.stringify(sessionId)} → ${p}`,
        );
      assert.ok(!existsSync('/tmp/ac-escape-session'));
      rmSync(jail, { recursive: true, force: true });
    }
  });

  it('odd transcript file names (backslashes, drive letters, dots) keep their sidecars beside them', async () => {
    for (const name of ['C:\\x.jsonl', '..\\..\\evil.jsonl', '...jsonl', '.jsonl', 'a b;rm -rf.jsonl']) {
      const { jail, project, file } = setup(name, { ids: ['toolu_1', 'toolu_2'] });
      const before = snapshotDir(jail);
      await compactFile(file, { summarizer: 'extractive', settings, inPlace: true });
      const w = written(jail, project, before);
      assert.ok(w.added.length >= 3, `${name}: ${w.added.join(',')}`);
      for (const p of w.added) assert.ok(p.split('/').length <= 2 && !p.split('/').includes('..'), `${name} → ${p}`);
      assert.deepEqual(w.changed, [relative(jail, file)]);
      rmSync(jail, { recursive: true, force: true });
    }
  });

  describe('symbolic links', () => {
    it('a symlinked transcript is resolved: its target is compacted (in place, with a backup beside the target) and the link stays a link', async () => {
      const jail = tempDir('ac-link-');
      jails.push(jail);
      mkdirSync(join(jail, 'real'));
      mkdirSync(join(jail, 'links'));
      const target = join(jail, 'real', 'target.jsonl');
      writeFileSync(target, buildTranscript({ rounds: 3, resultChars: () => 5_000 }).join('\n') + '\n');
      const original = readFileSync(target);
      const link = join(jail, 'links', 'link.jsonl');
      symlinkSync('../real/target.jsonl', link);
      const linksBefore = snapshotDir(join(jail, 'links'));
      const messages: string[] = [];
      const res = await compactFile(link, {
        summarizer: 'extractive',
        settings,
        inPlace: true,
        onProgress: (m) => messages.push(m),
      });
      assert.ok(
        messages.some((m) => m.includes('symbolic link') && m.includes(target)),
        messages.join('\n'),
      );
      assert.equal(res.output, target);
      assert.ok(
        lstatSync(link).isSymbolicLink() && readlinkSync(link) === '../real/target.jsonl',
        'the link is untouched',
      );
      assert.deepEqual(
        diffSnapshots(linksBefore, snapshotDir(join(jail, 'links'))),
        { added: [], removed: [], changed: [] },
        'nothing written beside the link',
      );
      assert.equal(basename(res.backup!).startsWith('target.jsonl.bak-'), true);
      assert.ok(readFileSync(res.backup!).equals(original));
      const now = readFileSync(target);
      assert.ok(now.length > original.length && now.subarray(0, original.length).equals(original));
      assert.ok(readdirSync(join(jail, 'real')).includes('target.tool-results'));
      // Not in place: the fork goes beside the link (where the agent looks for sessions), nothing else does.
      // (A small target summarizes the older rounds, so there is something to write.)
      const realBefore = snapshotDir(join(jail, 'real'));
      const res2 = await compactFile(link, {
        summarizer: 'extractive',
        settings: { ...settings, targetTokens: 1_000, keepRecentTokens: 1 },
      });
      assert.equal(res2.output, join(jail, 'links', `${res2.sessionId}.jsonl`));
      assert.ok(readFileSync(target).equals(now), 'not in place: the target is untouched');
      assert.ok(
        readFileSync(res2.output).subarray(0, now.length).equals(now),
        "the new file starts with the target's bytes",
      );
      assert.deepEqual(
        diffSnapshots(linksBefore, snapshotDir(join(jail, 'links'))),
        { added: [`${res2.sessionId}.compactor-state.json`, `${res2.sessionId}.jsonl`], removed: [], changed: [] },
        'only the fork (and its state) is written beside the link',
      );
      assert.ok(
        !diffSnapshots(realBefore, snapshotDir(join(jail, 'real'))).added.some((f) => f.endsWith('.jsonl')),
        'no session file lands beside the target',
      );
      rmSync(jail, { recursive: true, force: true });
    });

    it("a session symlinked into the sessions folder: a fork lands beside the link, in place keeps the link's id, and the resume command names a session the agent finds (Claude Code and Codex)", async () => {
      const jail = tempDir('ac-link-');
      jails.push(jail);
      const project = join(jail, 'projects', '-home-u-project');
      const outside = join(jail, 'outside');
      mkdirSync(project, { recursive: true });
      mkdirSync(outside);
      const linkId = '0b7f6a1e-2c3d-4e5f-8a9b-0c1d2e3f4a5b';
      const targetId = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
      const lines = buildTranscript({ rounds: 4, resultChars: () => 5_000, sessionId: targetId }).map((l) => {
        const o = JSON.parse(l) as Record<string, unknown>;
        return JSON.stringify({ ...o, cwd: jail });
      });
      writeFileSync(join(outside, `${targetId}.jsonl`), lines.join('\n') + '\n');
      const link = join(project, `${linkId}.jsonl`);
      symlinkSync(join(outside, `${targetId}.jsonl`), link);
      const small = { ...settings, targetTokens: 1_000, keepRecentTokens: 1 };

      const fork = await compactFile(link, { summarizer: 'extractive', settings: small });
      assert.equal(fork.output, join(project, `${fork.sessionId}.jsonl`), 'the fork is in the folder of the link');
      assert.equal(fork.resumeCommand, `cd ${jail} && claude --resume ${fork.sessionId}`);
      assert.deepEqual(
        readdirSync(outside).filter((f) => f.endsWith('.jsonl')),
        [`${targetId}.jsonl`],
        'no session file beside the target',
      );

      const inPlace = await compactFile(link, { summarizer: 'extractive', settings: small, inPlace: true });
      assert.equal(inPlace.output, join(outside, `${targetId}.jsonl`), 'in place writes the target');
      assert.equal(inPlace.sessionId, linkId, 'Claude Code finds the session by the name of the link');
      assert.equal(inPlace.resumeCommand, `cd ${jail} && claude --resume ${linkId}`);

      const codexSource = agentFixtures('codex').find((f) => basename(f) === 'rollout-0.140.jsonl')!;
      const day = join(jail, 'codex', 'sessions', '2026', '01', '02');
      mkdirSync(day, { recursive: true });
      copyFileSync(codexSource, join(outside, basename(codexSource)));
      const codexLink = join(day, basename(codexSource));
      symlinkSync(join(outside, basename(codexSource)), codexLink);
      const codexFork = await compactFile(codexLink, {
        summarizer: 'extractive',
        settings: { ...settings, targetTokens: 30_000, keepRecentTokens: 5_000 },
      });
      assert.equal(dirname(codexFork.output), day, 'the Codex fork is in the folder of the link');
      assert.ok(basename(codexFork.output).endsWith(`-${codexFork.sessionId}.jsonl`));
      assert.deepEqual(
        readdirSync(outside).filter((f) => f.startsWith('rollout-')),
        [basename(codexSource)],
        'no rollout beside the target',
      );
      rmSync(jail, { recursive: true, force: true });
    });

    for (const inPlace of [false, true]) {
      it(`a <session>.tool-results folder that is a symlink is refused, nothing written (${inPlace ? 'in place' : 'to a new file'})`, async () => {
        const { jail, project, file } = setup('session.jsonl', { ids: ['toolu_1', 'toolu_2'] });
        const elsewhere = join(jail, 'elsewhere');
        mkdirSync(elsewhere);
        symlinkSync(elsewhere, join(project, 'session.tool-results'));
        const before = snapshotDir(jail);
        await assert.rejects(
          compactFile(file, { summarizer: 'extractive', settings, inPlace }),
          (e: unknown) => e instanceof CompactError && e.code === 'unsafe-path' && /symbolic link/.test(e.message),
        );
        assert.deepEqual(readdirSync(elsewhere), [], 'nothing written through the link');
        assert.deepEqual(diffSnapshots(before, snapshotDir(jail)), { added: [], removed: [], changed: [] });
        rmSync(jail, { recursive: true, force: true });
      });
    }

    it('a <session>.tool-results that is a file is refused', async () => {
      const { jail, project, file } = setup('session.jsonl', { ids: ['toolu_1'] });
      writeFileSync(join(project, 'session.tool-results'), 'not a folder');
      const before = snapshotDir(jail);
      await assert.rejects(
        compactFile(file, { summarizer: 'extractive', settings, inPlace: true }),
        (e: unknown) => e instanceof CompactError && e.code === 'unsafe-path' && /not a folder/.test(e.message),
      );
      assert.deepEqual(diffSnapshots(before, snapshotDir(jail)), { added: [], removed: [], changed: [] });
      rmSync(jail, { recursive: true, force: true });
    });

    it('symlinks planted at a full-text file and the lock never redirect a write outside', async () => {
      const { jail, project, file } = setup('session.jsonl', { ids: ['toolu_1', 'toolu_2'] });
      const outside = join(jail, 'outside');
      mkdirSync(outside);
      for (const n of ['result.txt', 'lock']) writeFileSync(join(outside, n), `precious ${n}\n`);
      mkdirSync(join(project, 'session.tool-results'));
      symlinkSync(join(outside, 'result.txt'), join(project, 'session.tool-results', 'toolu_1.txt'));
      symlinkSync(join(outside, 'lock'), join(project, 'session.jsonl.compactor.lock'));
      const outsideBefore = snapshotDir(outside);
      await compactFile(file, { summarizer: 'extractive', settings, inPlace: true });
      assert.deepEqual(
        diffSnapshots(outsideBefore, snapshotDir(outside)),
        { added: [], removed: [], changed: [] },
        'files outside unchanged',
      );
      for (const p of ['session.compactor-state.json', 'session.tool-results/toolu_1.txt'])
        assert.ok(
          lstatSync(join(project, p)).isFile(),
          `${p} is a regular file, the planted link replaced, not followed`,
        );
      assert.ok(
        readFileSync(join(project, 'session.tool-results', 'toolu_1.txt'), 'utf8').startsWith('contents of file0.ts'),
      );
      assert.ok(
        !existsSync(join(project, 'session.jsonl.compactor.lock')),
        'the stale lock link was removed and the lock released',
      );
      rmSync(jail, { recursive: true, force: true });
    });

    it('a state file that is a symbolic link is refused, never read: nothing written, nothing outside read into the folder', async () => {
      const { jail, project, file } = setup('session.jsonl', { ids: ['toolu_1', 'toolu_2'] });
      const outside = join(jail, 'outside');
      mkdirSync(outside);
      writeFileSync(join(outside, 'state.json'), JSON.stringify({ version: 1, decisions: {} }));
      symlinkSync(join(outside, 'state.json'), join(project, 'session.compactor-state.json'));
      const before = snapshotDir(jail);
      await assert.rejects(
        compactFile(file, { summarizer: 'extractive', settings, inPlace: true }),
        (e: unknown) =>
          e instanceof CompactError &&
          e.code === 'unsafe-path' &&
          /session\.compactor-state\.json: it is a symbolic link/.test(e.message),
      );
      assert.deepEqual(diffSnapshots(before, snapshotDir(jail)), { added: [], removed: [], changed: [] });
      rmSync(jail, { recursive: true, force: true });
    });

    it('a corrupt state file is reported with its path and what to do, nothing written', async () => {
      const { jail, project, file } = setup('session.jsonl', { ids: ['toolu_1'] });
      writeFileSync(join(project, 'session.compactor-state.json'), '{"version":1,"decisions":{"tool');
      const before = snapshotDir(jail);
      await assert.rejects(
        compactFile(file, { summarizer: 'extractive', settings, inPlace: true }),
        (e: Error) =>
          e.message.includes(join(project, 'session.compactor-state.json')) &&
          /not valid JSON.*move it aside/.test(e.message),
      );
      assert.deepEqual(diffSnapshots(before, snapshotDir(jail)), { added: [], removed: [], changed: [] });
      rmSync(jail, { recursive: true, force: true });
    });
  });
});
