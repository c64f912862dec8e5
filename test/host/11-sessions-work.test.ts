/**
 * The Sessions view as a place to work, and the loops it starts finished, in the real VS Code: rows whose fill and cost
 * come first (the end of a row is cut at the side bar's default width); titles from Claude Code's own title line, or
 * the first prompt a person typed (not a slash command's output); forks marked and linked to their original (Claude
 * Code's own `forkedFrom` forks, and forks the real Compact command writes); a session row's own actions; Undo brings
 * the user back to the original and closes the fork's tabs; Resume refuses, before any terminal, where `claude` is not.
 * (The Context Map's links are clicked in test/ui/map.ui.ts: only the webview sends them.)
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AgentCompactorApi } from '../../src/extension/api';
import { actionTags } from '../../src/extension/model/sessionsTree';
import type { SessionNode } from '../../src/extension/model/sessionsTree';
import type { CompactResult } from '../../src/core/compact/types';
import { fixture, getApi, waitFor, withTimeout, workspaceDir } from './helpers';

const folderOf = (cwd: string) => cwd.replace(/[^a-zA-Z0-9]/g, '-');
const ORIGINAL_ID = 'aaaaaaaa-0000-4000-8000-000000000001';
const CLAUDE_FORK_ID = 'aaaaaaaa-0000-4000-8000-000000000002';
const COMMAND_ID = 'aaaaaaaa-0000-4000-8000-000000000003';
const AI_TITLE_ID = 'aaaaaaaa-0000-4000-8000-000000000004';
type Json = Record<string, unknown>;

/** A fixture's lines as objects, with the session's `cwd` and id. */
function linesOf(source: string, cwd: string, sessionId: string): Json[] {
  return fs
    .readFileSync(fixture(source), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Json)
    .map((o) => ({
      ...o,
      ...(typeof o.cwd === 'string' ? { cwd } : {}),
      ...(typeof o.sessionId === 'string' ? { sessionId } : {}),
    }));
}

function write(root: string, cwd: string, id: string, lines: Json[], mtime: Date): string {
  const dir = path.join(root, folderOf(cwd));
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${id}.jsonl`);
  fs.writeFileSync(file, lines.map((o) => JSON.stringify(o)).join('\n') + '\n');
  fs.utimesSync(file, mtime, mtime);
  return file;
}

describe('host: the Sessions list as a place to work', function () {
  this.timeout(180_000);
  let api: AgentCompactorApi;
  let root: string;
  let original: string;
  let claudeFork: string;
  /** The workspace's project: the Sessions view lists it first, expanded, so its rounds and cost are read. */
  let PROJECT: string;
  const cfg = () => vscode.workspace.getConfiguration('agentCompactor');

  const sessionNodes = (): SessionNode[] => api.getSessionsTree().flatMap((p) => p.children ?? []);
  const nodeOf = (file: string) =>
    waitFor(() => sessionNodes().find((s) => s.file === file), 30_000, `${path.basename(file)} in the Sessions view`);

  before(async () => {
    api = await getApi();
    const home = process.env.AGENT_COMPACTOR_TEST_HOME;
    assert.ok(home, 'the runner names the extension host HOME');
    root = path.join(process.env.CLAUDE_CONFIG_DIR ?? path.join(home, '.claude'), 'projects');
    PROJECT = workspaceDir();
    const t0 = Date.now() - 3 * 3_600_000;
    const base = linesOf('v2.1.97-live-before.jsonl', PROJECT, ORIGINAL_ID);
    original = write(root, PROJECT, ORIGINAL_ID, base, new Date(t0));
    // Claude Code's own fork (2.1.x `--fork-session`, /branch): the original's messages under the new id, each naming
    // where it came from.
    claudeFork = write(
      root,
      PROJECT,
      CLAUDE_FORK_ID,
      base.map((o) =>
        typeof o.uuid === 'string' && (o.type === 'user' || o.type === 'assistant')
          ? { ...o, sessionId: CLAUDE_FORK_ID, forkedFrom: { sessionId: ORIGINAL_ID, messageUuid: o.uuid } }
          : { ...o, sessionId: CLAUDE_FORK_ID },
      ),
      new Date(t0 + 60_000),
    );
    // A session started with an unknown skill: the line after the command's is its output, not the title.
    const at = (k: number) => new Date(t0 + k * 1000).toISOString();
    const user = (uuid: string, parentUuid: string | null, content: string, k: number): Json => ({
      type: 'user',
      uuid,
      parentUuid,
      isSidechain: false,
      cwd: PROJECT,
      sessionId: COMMAND_ID,
      timestamp: at(k),
      message: { role: 'user', content },
    });
    write(
      root,
      PROJECT,
      COMMAND_ID,
      [
        user('c1', null, '<command-message>ralph-loop</command-message>\n<command-name>/ralph-loop</command-name>', 1),
        user('c2', 'c1', 'Unknown skill: ralph-loop', 2),
        user('c3', 'c2', 'Fix the flaky login test in checkout', 3),
        {
          type: 'assistant',
          uuid: 'c4',
          parentUuid: 'c3',
          isSidechain: false,
          cwd: PROJECT,
          sessionId: COMMAND_ID,
          timestamp: at(4),
          message: {
            id: 'msg_c4',
            role: 'assistant',
            model: 'claude-sonnet-4-6',
            content: [{ type: 'text', text: 'Looking.' }],
            usage: {
              input_tokens: 10,
              cache_creation_input_tokens: 1000,
              cache_read_input_tokens: 0,
              output_tokens: 5,
            },
          },
        },
      ],
      new Date(t0 + 120_000),
    );
    // Today's Claude Code titles a session itself (`ai-title`, appended as the session goes on).
    write(
      root,
      PROJECT,
      AI_TITLE_ID,
      [
        ...linesOf('example.jsonl', PROJECT, AI_TITLE_ID),
        { type: 'ai-title', aiTitle: 'Refactor the payment retry logic', sessionId: AI_TITLE_ID },
      ],
      new Date(t0 + 180_000),
    );
    await vscode.commands.executeCommand('agentCompactor.sessions.focus');
    await withTimeout(vscode.commands.executeCommand('agentCompactor.refreshSessions'), 30_000, 'Refresh Sessions');
  });

  after(async () => {
    await cfg().update('claudePath', undefined, vscode.ConfigurationTarget.Global);
  });

  it("titles: Claude Code's own title line; the first prompt typed, not a slash command's output", async () => {
    const aiTitled = await nodeOf(path.join(root, folderOf(PROJECT), `${AI_TITLE_ID}.jsonl`));
    assert.equal(aiTitled.tooltip.split('\n')[0], 'Refactor the payment retry logic');
    const command = await nodeOf(path.join(root, folderOf(PROJECT), `${COMMAND_ID}.jsonl`));
    assert.equal(command.tooltip.split('\n')[0], 'Fix the flaky login test in checkout');
    // The row shows the whole title after its figures (the tree cuts the row at the side bar's width); the tooltip's
    // first line is the title.
    assert.match(command.label, /^(\d+% · )?(\$[\d.]+ · )?Fix the flaky login test in checkout$/);
  });

  it('a row starts with its fill and cost, then its title (the end of a row is cut at the side bar width)', async () => {
    const node = await nodeOf(original);
    const described = await waitFor(
      () => {
        const n = sessionNodes().find((s) => s.file === original);
        return n && /\$/.test(n.label) ? n : undefined;
      },
      60_000,
      `the rounds and cost of ${path.basename(original)} (${node.description})`,
    );
    assert.match(described.label, /^\d+% · \$[\d.]+ · \S/);
    assert.ok(described.label.endsWith(described.tooltip.split('\n')[0]), `${described.label} ends with the title`);
    assert.match(described.description, /^\d+ hours ago · [\d.]+ (KiB|MiB) · \d+ rounds?/);
  });

  it("forks: Claude Code's own fork is marked and linked to its original; Open Original Session shows it", async () => {
    const fork = await nodeOf(claudeFork);
    assert.equal(fork.contextValue, `session${actionTags('claude-code')}.fork`);
    assert.equal(fork.icon, 'repo-forked');
    assert.equal(fork.forkOf, original);
    assert.match(fork.tooltip, new RegExp(`Fork of ".+" \\(${ORIGINAL_ID}\\), written by Claude Code\\.`));
    const originalNode = await nodeOf(original);
    assert.equal(originalNode.contextValue, `session${actionTags('claude-code')}`, 'the original is no fork');
    const opened = await withTimeout(
      vscode.commands.executeCommand<string>('agentCompactor.openOriginalSession', { file: claudeFork }),
      30_000,
      'Open Original Session',
    );
    assert.equal(opened, original);
    await waitFor(
      () => api.getCurrentFile() === original && api.getState().status === 'ready',
      30_000,
      'the original in the Rounds tree',
    );
    // From the row's context menu (the command gets the row itself).
    assert.equal(await vscode.commands.executeCommand<string>('agentCompactor.openOriginalSession', fork), original);
  });

  it('Reveal Session File: outside the workspace and with no file manager of this machine (a browser), the path is copied', async () => {
    const node = await nodeOf(original);
    await vscode.env.clipboard.writeText('');
    const where = await withTimeout(
      vscode.commands.executeCommand<string>('agentCompactor.revealSessionFile', node),
      30_000,
      'Reveal Session File',
    );
    assert.equal(where, 'clipboard');
    assert.equal(await vscode.env.clipboard.readText(), original);
  });

  it("Compact writes a fork, marked as ours and linked; Undo shows the original again and closes the fork's tabs", async () => {
    await withTimeout(
      vscode.commands.executeCommand('agentCompactor.showRounds', { file: original }),
      60_000,
      'show the original',
    );
    const result = await withTimeout(
      vscode.commands.executeCommand<CompactResult>('agentCompactor.compact', {
        file: original,
        confirm: false,
        summarizer: 'extractive',
        writeMode: 'fork',
        targetTokens: 20_000,
      }),
      120_000,
      'compact',
    );
    assert.equal(result.mode, 'fork');
    const fork = result.output;
    const node = await nodeOf(fork);
    assert.ok(node.contextValue.endsWith('.fork'), node.contextValue);
    assert.equal(node.forkOf, original);
    assert.match(node.tooltip, /Continues ".+" \(.+\): its first lines are copies of that session's/);
    // The fork is open (Compact opens its result) and shown.
    await withTimeout(
      vscode.commands.executeCommand('agentCompactor.showRounds', { file: fork }),
      60_000,
      'show the fork',
    );
    const tabOf = (file: string) =>
      vscode.window.tabGroups.all
        .flatMap((g) => g.tabs)
        .find((t) => t.input instanceof vscode.TabInputText && t.input.uri.fsPath === file);
    await waitFor(() => tabOf(fork), 30_000, 'the fork open in an editor');
    assert.equal(
      await vscode.commands.executeCommand<boolean>('agentCompactor.undoLastCompaction', { confirm: false }),
      true,
    );
    assert.ok(!fs.existsSync(fork), 'the fork is removed');
    await waitFor(
      () => api.getCurrentFile() === original && api.getState().status === 'ready',
      30_000,
      `the original shown again (now: ${api.getCurrentFile()} ${api.getState().status})`,
    );
    assert.equal(tabOf(fork), undefined, "the fork's tab is closed");
  });

  it('Resume Session where claude is not installed: says so before any terminal', async () => {
    const missing = path.join(workspaceDir(), 'no-such-dir', 'claude');
    await cfg().update('claudePath', missing, vscode.ConfigurationTarget.Global);
    await waitFor(() => cfg().get('claudePath') === missing, 10_000, 'the claudePath setting to apply');
    const terminals = vscode.window.terminals.length;
    await assert.rejects(
      Promise.resolve(
        vscode.commands.executeCommand('agentCompactor.resumeSession', { file: original, cwd: workspaceDir() }),
      ),
      /Claude Code was not found: ".*no-such-dir\/claude" is not an executable file/,
    );
    const onPath = 'claude-not-installed-here';
    await cfg().update('claudePath', onPath, vscode.ConfigurationTarget.Global);
    await waitFor(() => cfg().get('claudePath') === onPath, 10_000, 'the claudePath setting to apply');
    await assert.rejects(
      Promise.resolve(
        vscode.commands.executeCommand('agentCompactor.resumeSession', { file: original, cwd: workspaceDir() }),
      ),
      /"claude-not-installed-here" is not a program on PATH/,
    );
    assert.equal(vscode.window.terminals.length, terminals, 'no terminal was started');
  });
});
