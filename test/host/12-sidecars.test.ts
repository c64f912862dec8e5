/**
 * Planted sidecars in the real VS Code: whatever someone shared beside a session (a link to a private key or to a
 * folder outside, a link to /dev/zero, a FIFO, a huge file) at each path the extension reads, writes or deletes
 * there, and the extension's own commands run over it as a user would (Show Rounds, Context Map, Repair Session,
 * Restore From Backup, Compact Transcript as a fork and in place, Undo Last Compaction). Each command ends within
 * its time bound (done, or refused with an error), nothing outside the session's folder is written or deleted, and
 * nothing from outside is copied into it. The CLI over the same plants: test/integration/property/sidecars.test.ts.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { compactFile } from '../../src/core/compact/compact';
import type { CompactResult } from '../../src/core/compact/types';
import type { AgentCompactorApi } from '../../src/extension/api';
import { diffSnapshots, snapshotDir } from '../support/reliability';
import { fixture, getApi, withTimeout, workspaceDir } from './helpers';

const ID = '3f1c2b7a-8d4e-4a6b-9c0d-1e2f3a4b5c6d';
const SETTINGS = { targetTokens: 60_000, keepRecentTokens: 20_000, maxToolResultChars: 2_000 };
/** A hang detector, not a speed test. */
const BOUND_MS = 60_000;
const MARKER = 'OUTSIDE-SENTINEL-host-4e1d';
const HUGE_BYTES = 24 << 20;

type Kind = 'link-file' | 'link-dir' | 'link-zero' | 'fifo' | 'huge';
type Command = 'showRounds' | 'contextMap' | 'repair' | 'restore' | 'compactFork' | 'compactInPlace';

interface Names {
  backup: string;
  saved: string[];
}

interface Target {
  id: string;
  /** Relative to the case folder. */
  path: (n: Names) => string;
  kinds: Kind[];
  /** The commands that read, write or delete it, in the order they run over one planted case. */
  commands: Command[];
}

const WRITERS: Command[] = ['restore', 'compactFork', 'compactInPlace'];
const TARGETS: Target[] = [
  {
    id: 'the state file',
    path: () => `${ID}.compactor-state.json`,
    kinds: ['link-file', 'fifo', 'huge'],
    commands: ['showRounds', 'contextMap', ...WRITERS],
  },
  {
    id: 'the tool-results folder',
    path: () => `${ID}.tool-results`,
    kinds: ['link-dir', 'fifo'],
    commands: WRITERS,
  },
  {
    id: 'a saved tool result',
    path: (n) => path.join(`${ID}.tool-results`, n.saved[0]),
    kinds: ['link-file', 'fifo', 'huge'],
    commands: WRITERS,
  },
  {
    id: 'a subagent transcript',
    path: () => path.join(ID, 'subagents', 'agent-x.jsonl'),
    kinds: ['link-zero', 'fifo', 'huge'],
    commands: ['showRounds', 'contextMap', 'repair'],
  },
  {
    id: 'the subagents folder',
    path: () => path.join(ID, 'subagents'),
    kinds: ['link-dir', 'fifo'],
    commands: ['showRounds', 'contextMap', 'repair'],
  },
  {
    id: 'the lock',
    path: () => `${ID}.jsonl.compactor.lock`,
    kinds: ['link-file', 'fifo'],
    commands: ['repair', ...WRITERS],
  },
  { id: 'the backup', path: (n) => n.backup, kinds: ['link-file', 'link-zero', 'fifo'], commands: ['restore'] },
  {
    id: "the backup's manifest",
    path: (n) => `${n.backup}.manifest.json`,
    kinds: ['link-file', 'fifo', 'huge'],
    commands: ['restore'],
  },
];

/** Puts a `kind` at `p` (removing what was there), pointing into `outside`. */
function plant(p: string, kind: Kind, outside: string): void {
  fs.rmSync(p, { recursive: true, force: true });
  fs.mkdirSync(path.dirname(p), { recursive: true });
  switch (kind) {
    case 'link-file':
      return fs.symlinkSync(path.join(outside, 'id_ed25519'), p);
    case 'link-dir':
      return fs.symlinkSync(path.join(outside, 'dir'), p);
    case 'link-zero':
      return fs.symlinkSync('/dev/zero', p);
    case 'fifo':
      execFileSync('mkfifo', [p]);
      return;
    case 'huge': {
      const fd = fs.openSync(p, 'w');
      fs.ftruncateSync(fd, HUGE_BYTES);
      fs.closeSync(fd);
    }
  }
}

/**
 * Regular files under `dir` (links not followed) holding the outside marker, or (`bySize`) as large as /dev/zero's
 * bytes would make them. A huge planted file may rightly be copied (a huge state file kept with a backup).
 */
function leaks(dir: string, planted: string, bySize: boolean): string[] {
  const found: string[] = [];
  const walk = (d: string) => {
    for (const name of fs.readdirSync(d)) {
      const full = path.join(d, name);
      const st = fs.lstatSync(full);
      if (st.isDirectory()) walk(full);
      else if (st.isFile() && full !== planted) {
        if (bySize && st.size >= HUGE_BYTES) found.push(`${full}: ${st.size} bytes`);
        if (st.size < HUGE_BYTES && fs.readFileSync(full).includes(MARKER))
          found.push(`${full}: holds an outside file's content`);
      }
    }
  };
  walk(dir);
  return found;
}

describe('host: planted sidecars, against the extension commands', function () {
  this.timeout(900_000);
  let api: AgentCompactorApi;
  let root: string;
  let template: string;
  let names: Names;
  let caseNo = 0;

  before(async () => {
    api = await getApi();
    root = path.join(workspaceDir(), 'planted-sidecars');
    template = path.join(root, 'template');
    const project = path.join(template, 'project');
    fs.mkdirSync(path.join(project, ID, 'subagents'), { recursive: true });
    const file = path.join(project, `${ID}.jsonl`);
    fs.copyFileSync(fixture('with-compactions.jsonl'), file);
    fs.chmodSync(file, 0o644);
    fs.copyFileSync(fixture('v2.1.63-subagent.jsonl'), path.join(project, ID, 'subagents', 'agent-a.jsonl'));
    // An in-place compaction, as users have them: a backup with its manifest, saved tool results. Then the session
    // as it was, without its state file: each compaction below decides afresh and writes its saved results again.
    const made = await compactFile(file, { summarizer: 'extractive', inPlace: true, settings: SETTINGS });
    assert.ok(made.backup && made.sidecarsWritten!.toolResults.length > 0, 'a backup and saved tool results');
    names = { backup: path.basename(made.backup), saved: fs.readdirSync(path.join(project, `${ID}.tool-results`)) };
    fs.copyFileSync(made.backup, file);
    fs.rmSync(path.join(project, `${ID}.compactor-state.json`));
    const outside = path.join(template, 'outside');
    fs.mkdirSync(path.join(outside, 'dir'), { recursive: true });
    fs.writeFileSync(
      path.join(outside, 'id_ed25519'),
      `-----BEGIN OPENSSH PRIVATE KEY-----\n${MARKER}\n-----END OPENSSH PRIVATE KEY-----\n`,
    );
    for (const n of [...names.saved, 'agent-x.jsonl']) fs.writeFileSync(path.join(outside, 'dir', n), `${MARKER}\n`);
  });

  /** A fresh copy of the template: its session, its project folder and the outside folder. */
  function freshCase(): { file: string; project: string; outside: string } {
    const dir = path.join(root, `case-${caseNo++}`);
    fs.cpSync(template, dir, { recursive: true, verbatimSymlinks: true });
    const project = path.join(dir, 'project');
    return { file: path.join(project, `${ID}.jsonl`), project, outside: path.join(dir, 'outside') };
  }

  /** Runs one command over `file` within BOUND_MS: 'ok', or the error it ended with (a refusal). */
  async function run(command: Command, file: string): Promise<string> {
    const calls: Record<Command, () => Thenable<unknown>> = {
      showRounds: () => vscode.commands.executeCommand('agentCompactor.showRounds', { file }),
      contextMap: () => vscode.commands.executeCommand('agentCompactor.openContextMap', { file }),
      repair: () => vscode.commands.executeCommand('agentCompactor.repairSession', { file, confirm: false }),
      restore: () => vscode.commands.executeCommand('agentCompactor.restoreBackup', { file, confirm: false }),
      compactFork: () => compact(file, 'fork'),
      compactInPlace: () => compact(file, 'inPlace'),
    };
    try {
      await withTimeout(calls[command](), BOUND_MS, `${command} over ${path.basename(file)} (a hang)`);
      await withTimeout(api.whenIdle(), BOUND_MS, `the store to settle after ${command} (a hang)`);
      return 'ok';
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (/timed out after/.test(message)) throw err;
      return message.split('\n')[0];
    }
  }

  const compact = (file: string, writeMode: 'fork' | 'inPlace') =>
    vscode.commands.executeCommand<CompactResult>('agentCompactor.compact', {
      file,
      confirm: false,
      summarizer: 'extractive',
      writeMode,
      settings: SETTINGS,
      open: false,
    });

  it('the template session itself: every command succeeds (the checks below would pass on a refusal of anything)', async () => {
    const c = freshCase();
    for (const command of ['showRounds', 'contextMap', 'repair', 'restore', 'compactFork', 'compactInPlace'] as const)
      assert.equal(await run(command, c.file), 'ok', command);
  });

  for (const target of TARGETS) {
    it(`${target.id}: each kind of plant, against the commands that touch it`, async () => {
      const outcomes: string[] = [];
      for (const kind of target.kinds) {
        const c = freshCase();
        const at = path.join(c.project, target.path(names));
        plant(at, kind, c.outside);
        const before = snapshotDir(c.outside);
        for (const command of target.commands) {
          const started = Date.now();
          const outcome = await run(command, c.file);
          outcomes.push(`${kind}/${command} (${Date.now() - started} ms): ${outcome.slice(0, 80)}`);
          assert.deepEqual(
            diffSnapshots(before, snapshotDir(c.outside)),
            { added: [], removed: [], changed: [] },
            `${command} with ${target.id} as ${kind}: nothing outside changes`,
          );
          assert.deepEqual(
            leaks(c.project, at, kind !== 'huge'),
            [],
            `${command} with ${target.id} as ${kind}: nothing copied in`,
          );
        }
      }
      console.log(outcomes.map((o) => `      ${o}`).join('\n'));
    });
  }

  it('Undo Last Compaction of a fork whose tool-results folder was swapped for a link outside, then of a fork resumed since: nothing outside goes, the resumed fork stays', async () => {
    const c = freshCase();
    // Without the saved results the template's in-place compaction left: the fork writes them (and Undo removes them).
    fs.rmSync(path.join(c.project, `${ID}.tool-results`), { recursive: true });
    const fork = await withTimeout(compact(c.file, 'fork'), BOUND_MS, 'compact (a fork)');
    assert.ok(fork && fork.sidecarsWritten!.toolResults.length > 0, 'the fork saved tool results');
    // The folder moved outside with the same names, a link left in its place.
    const results = path.join(c.project, `${ID}.tool-results`);
    const moved = path.join(c.outside, 'moved');
    fs.renameSync(results, moved);
    fs.symlinkSync(moved, results);
    const before = snapshotDir(c.outside);
    assert.equal(await undo(), 'ok');
    assert.deepEqual(diffSnapshots(before, snapshotDir(c.outside)), { added: [], removed: [], changed: [] });
    assert.ok(!fs.existsSync(fork.output), 'the fork itself is gone');
    fs.rmSync(results); // the link (a compaction refuses to write through it)

    const again = await withTimeout(compact(c.file, 'fork'), BOUND_MS, 'compact (a fork) again');
    fs.appendFileSync(again.output, '{"type":"user","message":{"role":"user","content":"resumed"}}\n');
    const resumed = fs.readFileSync(again.output);
    assert.match(await undo(), /changed since the compaction wrote it/);
    assert.ok(fs.readFileSync(again.output).equals(resumed), 'the resumed fork is left as it is');
  });

  /** Undo Last Compaction (the last compaction run in this window), bounded: 'ok', or the error it ended with. */
  async function undo(): Promise<string> {
    try {
      await withTimeout(
        vscode.commands.executeCommand('agentCompactor.undoLastCompaction', { confirm: false }),
        BOUND_MS,
        'Undo Last Compaction (a hang)',
      );
      return 'ok';
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (/timed out after/.test(message)) throw err;
      return message;
    }
  }
});
