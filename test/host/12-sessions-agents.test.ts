/**
 * Every agent's sessions in the Sessions view of a real extension host: with a Codex CLI rollout, a Gemini CLI chat
 * and a Copilot CLI session in the fake home beside the Claude Code projects, the view lists them by agent (one node
 * each, in the registry's order) and project, each titled with the prompt its file records, a Codex session under
 * the workspace's project (the folder its session_meta names); a read-only agent's row offers no compaction; opening
 * one shows its rounds; and while the view is hidden no other agent's folder is scanned (the lazy rule).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AgentCompactorApi } from '../../src/extension/api';
import type { SessionNode } from '../../src/extension/model/sessionsTree';
import { actionTags } from '../../src/extension/model/sessionsTree';
import { getApi, waitFor, withTimeout, workspaceDir } from './helpers';

const CODEX_ID = '019ed917-1cf7-72a3-92f5-c0aa98fb134e';

function sharedAgentFile(...parts: string[]): string {
  const root = process.env.AGENT_COMPACTOR_FIXTURES_DIR;
  assert.ok(root, 'AGENT_COMPACTOR_FIXTURES_DIR is set by the runner');
  return path.join(root, ...parts);
}

/** The first line of a JSONL file whose record satisfies `pick`, parsed. */
function firstRecord(file: string, pick: (o: any) => boolean): any {
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (!line.startsWith('{')) continue;
    const o = JSON.parse(line);
    if (pick(o)) return o;
  }
  throw new Error(`no such record in ${file}`);
}

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim().slice(0, 100);

describe('host: every agent in the Sessions view', function () {
  this.timeout(180_000);
  let api: AgentCompactorApi;
  const placed: string[] = [];
  let codexFile: string;
  let geminiFile: string;
  let copilotFile: string;

  const tree = () => api.getSessionsTree();
  const agentNode = (label: string) => tree().find((n) => n.kind === 'agent' && n.label === label);
  const sessionsOf = (n: SessionNode | undefined) => (n?.children ?? []).flatMap((p) => p.children ?? []);

  before(async () => {
    api = await getApi();
    const home = process.env.AGENT_COMPACTOR_TEST_HOME;
    assert.ok(home, 'the runner names the extension host HOME');
    const now = new Date();
    const place = (src: string, dest: string, edit: (text: string) => string = (t) => t) => {
      fs.mkdirSync(path.dirname(dest), { recursive: true });
      fs.writeFileSync(dest, edit(fs.readFileSync(src, 'utf8')));
      fs.utimesSync(dest, now, now);
      placed.push(dest);
      return dest;
    };
    // The rollout's session_meta names the workspace as its folder: its project is the workspace's.
    codexFile = place(
      sharedAgentFile('codex', 'rollout-0.140.jsonl'),
      path.join(
        process.env.CODEX_HOME ?? path.join(home, '.codex'),
        'sessions',
        '2026',
        '06',
        '18',
        `rollout-2026-06-18T04-57-11-${CODEX_ID}.jsonl`,
      ),
      (t) => t.replace(/"cwd":"[^"]*"/, `"cwd":${JSON.stringify(workspaceDir())}`),
    );
    geminiFile = place(
      sharedAgentFile('gemini-cli', 'session-a.json'),
      path.join(home, '.gemini', 'tmp', 'a1b2c3', 'chats', 'session-a.json'),
    );
    copilotFile = place(
      sharedAgentFile('copilot-cli', 'events-1.0.64.jsonl'),
      path.join(home, '.copilot', 'session-state', '07c40cd0-ff51-4d6e-bdcd-ac2f90877203', 'events.jsonl'),
    );
  });

  after(async () => {
    for (const f of placed) fs.rmSync(f, { force: true });
    await vscode.commands.executeCommand('agentCompactor.refreshSessions');
  });

  it('lists them by agent and project, titled by the prompt each file records, with what each agent offers', async () => {
    await vscode.commands.executeCommand('agentCompactor.sessions.focus');
    await withTimeout(vscode.commands.executeCommand('agentCompactor.refreshSessions'), 30_000, 'Refresh Sessions');
    await waitFor(() => agentNode('GitHub Copilot CLI'), 30_000, 'the other agents in the view');
    assert.deepEqual(
      tree().map((n) => [n.kind, n.label]),
      [
        ['agent', 'Claude Code'],
        ['agent', 'Codex CLI'],
        ['agent', 'Gemini CLI'],
        ['agent', 'GitHub Copilot CLI'],
      ],
    );
    const codex = agentNode('Codex CLI')!;
    assert.deepEqual(
      (codex.children ?? []).map((p) => p.project),
      [workspaceDir()],
      'the rollout under the folder its session_meta names',
    );
    const [codexRow] = sessionsOf(codex);
    assert.equal(codexRow.file, codexFile);
    const prompt = firstRecord(codexFile, (o) => o.type === 'event_msg' && o.payload?.type === 'user_message');
    assert.equal(codexRow.tooltip.split('\n')[0], oneLine(prompt.payload.message));
    assert.equal(codexRow.contextValue, `session.live${actionTags('codex')}`);
    assert.match(codexRow.contextValue, /\.compact/);

    const [geminiRow] = sessionsOf(agentNode('Gemini CLI'));
    const chat = JSON.parse(fs.readFileSync(geminiFile, 'utf8'));
    assert.equal(geminiRow.tooltip.split('\n')[0], oneLine(chat.messages.find((m: any) => m.type === 'user').content));
    assert.ok(!/\.compact|\.resume/.test(geminiRow.contextValue), geminiRow.contextValue);

    const [copilotRow] = sessionsOf(agentNode('GitHub Copilot CLI'));
    const start = firstRecord(copilotFile, (o) => o.type === 'session.start').data;
    assert.equal(copilotRow.project, start.context.cwd, 'the folder session.start records');
    const typed = firstRecord(copilotFile, (o) => o.type === 'user.message').data.content;
    assert.equal(copilotRow.tooltip.split('\n')[0], oneLine(typed));

    // Claude Code's sessions are all still there, by project, under their agent.
    assert.ok(sessionsOf(agentNode('Claude Code')).length > 0);
  });

  it('opening another agent’s session shows its rounds', async () => {
    const [row] = sessionsOf(agentNode('Gemini CLI'));
    await vscode.commands.executeCommand('agentCompactor.showRounds', {
      file: row.file,
      kind: 'session',
      contextValue: row.contextValue,
    });
    await waitFor(
      () => api.getCurrentFile() === geminiFile && api.getState().status === 'ready',
      30_000,
      'the Gemini CLI chat in the Rounds tree',
    );
    assert.match(api.getRoundsTree(1)[0].description ?? '', /· Gemini CLI$/);
  });

  it('lazy: hidden, the view scans no other agent’s folder', async () => {
    await vscode.commands.executeCommand('workbench.view.explorer');
    await waitFor(
      () => !tree().some((n) => n.kind === 'agent') || undefined,
      30_000,
      'the narrow scan: the workspace project of Claude Code only',
    );
    assert.ok(
      !tree()
        .flatMap((n) => [n, ...(n.children ?? [])])
        .some((n) => n.file === codexFile),
    );
    await vscode.commands.executeCommand('agentCompactor.sessions.focus');
    await waitFor(() => agentNode('Codex CLI'), 30_000, 'the other agents again once the view is shown');
  });
});
