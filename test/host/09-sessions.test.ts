/**
 * The Sessions view in the real VS Code, over a fake home holding many projects: sessions grouped by their real
 * project path with the workspace's project first, newest first, filtered by text, a new session picked up by file
 * watching, and opening one shows its rounds.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AgentCompactorApi } from '../../src/extension/api';
import { actionTags } from '../../src/extension/model/sessionsTree';
import { fixture, getApi, waitFor, withTimeout, workspaceDir } from './helpers';

const folderOf = (cwd: string) => cwd.replace(/[^a-zA-Z0-9]/g, '-');

function place(root: string, cwd: string, id: string, source: string, mtime: Date): string {
  const dir = path.join(root, folderOf(cwd));
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${id}.jsonl`);
  fs.writeFileSync(
    file,
    fs.readFileSync(fixture(source), 'utf8').replace(/"cwd":"[^"]*"/g, `"cwd":${JSON.stringify(cwd)}`),
  );
  fs.utimesSync(file, mtime, mtime);
  return file;
}

describe('host: Sessions view', function () {
  this.timeout(120_000);
  let api: AgentCompactorApi;
  let root: string;

  before(async () => {
    api = await getApi();
    const home = process.env.AGENT_COMPACTOR_TEST_HOME;
    assert.ok(home, 'the runner names the extension host HOME');
    root = path.join(process.env.CLAUDE_CONFIG_DIR ?? path.join(home, '.claude'), 'projects');
    const sources = ['example.jsonl', 'v1.0.98-small.jsonl', 'thinking.jsonl', 'with-compactions.jsonl'];
    const t0 = Date.now() - 30 * 86_400_000;
    // One session of the workspace's own project, the oldest of all; written first, so that every scan the watchers
    // make while the others are written lists the workspace project first (the one shown expanded).
    place(
      root,
      workspaceDir(),
      '11111111-0000-4000-8000-000000000001',
      'v2.1.97-live-before.jsonl',
      new Date(t0 - 86_400_000),
    );
    for (let k = 0; k < 60; k++)
      place(
        root,
        `/home/me/code/service-${k % 12}`,
        `00000000-0000-4000-8000-${String(k).padStart(12, '0')}`,
        sources[k % sources.length],
        new Date(t0 + k * 3_600_000),
      );
  });

  it('lazy: while the view is hidden only the workspace project is scanned and watched; shown, every project', async () => {
    await vscode.commands.executeCommand('workbench.view.explorer');
    // A new session of the workspace's project: its folder is watched even with the view hidden (the status bar needs it).
    // A scan already under way when the view was hidden may still report every project: wait for the narrow one.
    const file = place(
      root,
      workspaceDir(),
      '44444444-0000-4000-8000-000000000004',
      'v1.0.98-small.jsonl',
      new Date(Date.now() - 7_200_000),
    );
    await waitFor(
      () =>
        api
          .getSessionsTree()
          .flatMap((p) => p.children ?? [])
          .some((s) => s.file === file) && api.getSessionsTree().length === 1,
      30_000,
      'hidden: a rescan that lists the new workspace session and the workspace project only',
    );
    assert.deepEqual(
      api.getSessionsTree().map((p) => p.project),
      [workspaceDir()],
      'hidden: the workspace project only',
    );
    await vscode.commands.executeCommand('agentCompactor.sessions.focus');
    await waitFor(
      () => api.getSessionsTree().length === 13 || undefined,
      30_000,
      'every project once the view is shown',
    );
    await vscode.commands.executeCommand('workbench.view.explorer');
  });

  it('groups by real project path, workspace first, then newest; filters by text', async () => {
    await withTimeout(vscode.commands.executeCommand('agentCompactor.refreshSessions'), 30_000, 'Refresh Sessions');
    const tree = api.getSessionsTree();
    assert.equal(tree.length, 13);
    assert.equal(tree[0].project, workspaceDir(), 'the workspace project first');
    assert.equal(tree[1].project, '/home/me/code/service-11', 'then the project with the newest session');
    assert.equal(tree[1].children?.length, 5);
    const times = (tree[1].children ?? []).map((s) => fs.statSync(s.file!).mtimeMs);
    assert.deepEqual(
      [...times].sort((a, b) => b - a),
      times,
      'newest first',
    );
    for (const s of tree.flatMap((p) => p.children ?? []))
      assert.ok(s.label && !s.label.endsWith('(no prompt)'), `a title for ${s.file}`);
    await vscode.commands.executeCommand('agentCompactor.filterSessions', { text: 'service-7' });
    assert.deepEqual(
      api.getSessionsTree().map((p) => p.project),
      ['/home/me/code/service-7'],
    );
    await vscode.commands.executeCommand('agentCompactor.filterSessions', { text: '' });
    assert.equal(api.getSessionsTree().length, 13);
  });

  it('the sessions of the shown project get their rounds and cost, read in the background once the view is open', async () => {
    await vscode.commands.executeCommand('agentCompactor.sessions.focus');
    // Shown, the view scans every project; a narrow scan made while it was hidden may be the tree until then.
    const session = await waitFor(
      () =>
        api.getSessionsTree().length === 13
          ? api
              .getSessionsTree()[0]
              ?.children?.find((s) => /^(\d+% · )?\$\d/.test(s.label) && / · \d+ rounds?/.test(s.description))
          : undefined,
      60_000,
      'every project listed and rounds and cost in the workspace project',
    );
    assert.match(session.tooltip, /Rounds: \d+\nCost: \$\d/);
    // Its prompt cache expired long ago: the tooltip says what resuming it re-writes and costs.
    assert.match(session.tooltip, /\ncache expired \d+ days ago: resuming re-writes [\d.]+k tokens, ≈ \$[\d.]+/);
    const collapsed = api
      .getSessionsTree()
      .slice(1)
      .flatMap((p) => p.children ?? []);
    assert.ok(collapsed.length > 0, 'the other projects are listed');
    assert.ok(
      collapsed.some((s) => /counted when the project is expanded/.test(s.tooltip)),
      'collapsed projects are not read',
    );
  });

  it('a session written now appears by file watching, marked live; opening it shows its rounds', async () => {
    const scanned = api.whenSessionsScanned();
    const file = place(
      root,
      '/home/me/code/brand-new',
      '22222222-0000-4000-8000-000000000002',
      'example.jsonl',
      new Date(),
    );
    await withTimeout(scanned, 30_000, 'a rescan after the new file');
    const node = await waitFor(
      () =>
        api
          .getSessionsTree()
          .flatMap((p) => p.children ?? [])
          .find((s) => s.file === file),
      30_000,
      'the new session in the view',
    );
    assert.equal(node.contextValue, `session.live${actionTags('claude-code')}`);
    assert.match(node.description, /writing now/);
    await vscode.commands.executeCommand('agentCompactor.showRounds', {
      file,
      kind: 'session',
      contextValue: 'session.live',
    });
    await waitFor(
      () => api.getCurrentFile() === file && api.getState().status === 'ready',
      30_000,
      'the session in the Rounds tree',
    );
  });

  it('the status bar follows the session being written in the workspace project as lines are appended', async () => {
    const file = place(root, workspaceDir(), '33333333-0000-4000-8000-000000000003', 'example.jsonl', new Date());
    await waitFor(() => api.getLiveStatusText()?.includes('/ 200k'), 30_000, 'the live status bar item');
    const usage = {
      input_tokens: 10,
      cache_creation_input_tokens: 20_000,
      cache_read_input_tokens: 129_990,
      output_tokens: 5,
    };
    const line = {
      type: 'assistant',
      uuid: 'live-1',
      parentUuid: null,
      isSidechain: false,
      cwd: workspaceDir(),
      sessionId: '33333333-0000-4000-8000-000000000003',
      timestamp: new Date().toISOString(),
      message: {
        id: 'msg_live_1',
        role: 'assistant',
        model: 'claude-sonnet-4-6',
        content: [{ type: 'text', text: 'still working' }],
        usage,
      },
    };
    fs.appendFileSync(file, JSON.stringify(line) + '\n');
    const text = await waitFor(
      () => {
        const t = api.getLiveStatusText();
        return t?.includes('150k / 200k · 75%') ? t : undefined;
      },
      30_000,
      'the status bar to show the appended usage',
    );
    // The item names its session (two live sessions are two items side by side), then the fill.
    assert.match(text, /^◕ live: \S.* 150k \/ 200k · 75%$/);
  });
});
