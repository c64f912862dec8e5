/**
 * Resume Session and Copy Resume Command in the agent that wrote the session, in a real extension host. A Codex
 * rollout in Codex's sessions folder: Copy Resume Command puts `cd <its folder> && <codexPath> resume <thread id>` on
 * the real clipboard; Resume Session opens a terminal "Codex CLI: <short id>" in the rollout's folder and types
 * `<codexPath> resume <id>` there, where agentCompactor.codexPath is a wrapper that hands its arguments to the REAL
 * Codex CLI (pinned, offline against the local fake Responses API, as `codex exec … resume <id> <prompt>`): the request
 * Codex sends carries the rollout's own history, so the id and folder we typed are the ones Codex resumes. A codexPath
 * that is not there is refused before any terminal, naming the setting. Sessions of agents with no resume by id here
 * (Gemini CLI, Cline) are refused with the reason.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { noResumeReason } from '../../src/core/resume';
import { startFakeResponses, type FakeResponses } from '../support/fake-responses';
import { getApi, waitFor, withTimeout, workspaceDir } from './helpers';
import { tempDir } from '../support/temp';

const THREAD_ID = '019ed917-1cf7-72a3-92f5-c0aa98fb134e';
const PROMPT = 'HOST-RESUME-PROMPT: carry on.';
/** A user message of the rollout (rollout-0.140.jsonl), which a resumed thread sends again. */
const FROM_THE_ROLLOUT = 'publish to npm failed, https://github.com/EntityProcess/agentv/actions/runs/27737304307';

const cfg = () => vscode.workspace.getConfiguration('agentCompactor');
const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

function sharedFixture(rel: string): string {
  const p = path.join(process.env.AGENT_COMPACTOR_FIXTURES_DIR ?? '', rel);
  assert.ok(fs.existsSync(p), `fixture ${p}`);
  return p;
}

async function setPath(key: 'codexPath' | 'claudePath', value: string | undefined): Promise<void> {
  await cfg().update(key, value, vscode.ConfigurationTarget.Global);
  await waitFor(() => cfg().get(key) === (value ?? cfg().inspect(key)?.defaultValue), 10_000, `${key} to apply`);
}

describe('host: Resume Session and Copy Resume Command in each agent', function () {
  this.timeout(300_000);
  let tmp: string;
  let fake: FakeResponses;
  let codexHome: string;
  let rollout: string;
  let work: string;
  const codexBin = path.join(
    process.env.AGENT_COMPACTOR_REPO_ROOT ?? '',
    '.cache',
    'codex',
    'node_modules',
    '.bin',
    'codex',
  );

  before(async () => {
    await getApi();
    assert.ok(fs.existsSync(codexBin), `the Codex CLI is provisioned at ${codexBin} (bash scripts/provision-codex.sh)`);
    tmp = fs.realpathSync(tempDir('agent-compactor-resume-agents-'));
    fake = await startFakeResponses('CODEX RESUMED');
    // Where the extension host (and so the extension) finds Codex's sessions: $CODEX_HOME, else ~/.codex.
    codexHome = process.env.CODEX_HOME || path.join(os.homedir(), '.codex');
    const day = path.join(codexHome, 'sessions', '2026', '06', '18');
    fs.mkdirSync(day, { recursive: true });
    fs.writeFileSync(path.join(codexHome, 'config.toml'), `model = "gpt-5"\nopenai_base_url = "${fake.url}"\n`);
    // The rollout's working folder, on this machine (a space in its name).
    work = path.join(tmp, 'the project');
    fs.mkdirSync(work);
    const [first, ...rest] = fs.readFileSync(sharedFixture('codex/rollout-0.140.jsonl'), 'utf8').split('\n');
    const meta = JSON.parse(first) as { payload: { id: string; cwd: string } };
    assert.equal(meta.payload.id, THREAD_ID);
    meta.payload.cwd = work;
    rollout = path.join(day, `rollout-2026-06-18T04-57-11-${THREAD_ID}.jsonl`);
    fs.writeFileSync(rollout, [JSON.stringify(meta), ...rest].join('\n'));
  });

  after(async () => {
    for (const t of vscode.window.terminals) if (t.name.startsWith('Codex CLI: ')) t.dispose();
    await setPath('codexPath', undefined);
    await fake?.close();
    fs.rmSync(tmp, { recursive: true, force: true });
    fs.rmSync(rollout, { force: true });
  });

  it('the manifest names the command by what it does, enabled where the shown session can be resumed', () => {
    const pkg = vscode.extensions.getExtension('agent-compactor.agent-compactor')!.packageJSON;
    const commands = pkg.contributes.commands as { command: string; title: string; enablement?: string }[];
    const resume = commands.find((c) => c.command === 'agentCompactor.resumeSession');
    assert.ok(resume, 'Resume Session is contributed');
    assert.equal(resume.title, 'Resume Session');
    assert.ok(!commands.some((c) => /Claude Code/.test(c.title) && /resume/i.test(c.title)), 'no Claude-only title');
    for (const id of ['agentCompactor.resumeSession', 'agentCompactor.copyResumeCommand'])
      assert.match(commands.find((c) => c.command === id)?.enablement ?? '', /agentCompactor\.canResume/, id);
    const codexPath = pkg.contributes.configuration.properties['agentCompactor.codexPath'];
    assert.equal(codexPath.scope, 'machine');
    assert.match(codexPath.markdownDescription, /Resume Session/);
  });

  it('Copy Resume Command on a Codex rollout (as the Explorer passes it): `cd <folder> && <codexPath> resume <thread id>`', async () => {
    await setPath('codexPath', codexBin);
    await vscode.env.clipboard.writeText('before');
    const copied = await withTimeout(
      vscode.commands.executeCommand<string>('agentCompactor.copyResumeCommand', vscode.Uri.file(rollout)),
      30_000,
      'copy (Codex)',
    );
    assert.equal(copied, `cd ${q(work)} && ${codexBin} resume ${THREAD_ID}`);
    assert.equal(await vscode.env.clipboard.readText(), copied);
    assert.doesNotMatch(copied, /claude/);
  });

  it('Resume Session on a Codex rollout: a terminal "Codex CLI: <id>" in its folder runs <codexPath> resume <id>, and the real Codex resumes that thread', async () => {
    // The wrapper records how it was started, then hands its arguments to the real Codex, non-interactively.
    const bin = path.join(tmp, "codex bin's");
    fs.mkdirSync(bin);
    const record = path.join(tmp, 'codex-args.txt');
    const wrapper = path.join(bin, 'codex');
    fs.writeFileSync(
      wrapper,
      [
        '#!/bin/sh',
        `{ printf 'cwd=%s\\n' "$(pwd -P)"; for a in "$@"; do printf 'arg=%s\\n' "$a"; done; } > ${q(record + '.tmp')} && mv ${q(record + '.tmp')} ${q(record)}`,
        `CODEX_HOME=${q(codexHome)} OPENAI_API_KEY=sk-fake-test OPENAI_BASE_URL=${q(fake.url)} exec ${q(codexBin)} exec --skip-git-repo-check "$@" ${q(PROMPT)} > ${q(path.join(tmp, 'codex-out.txt'))} 2>&1`,
        '',
      ].join('\n'),
    );
    fs.chmodSync(wrapper, 0o755);
    await setPath('codexPath', wrapper);
    const name = `Codex CLI: ${THREAD_ID.slice(0, 8)}`;
    const launch = await withTimeout(
      vscode.commands.executeCommand<{ agent: string; sessionId: string; cwd: string; terminalName: string }>(
        'agentCompactor.resumeSession',
        vscode.Uri.file(rollout),
      ),
      30_000,
      'resume (Codex)',
    );
    assert.deepEqual(
      [launch.agent, launch.sessionId, launch.cwd, launch.terminalName],
      ['codex', THREAD_ID, work, name],
    );
    const terminal = await waitFor(() => vscode.window.terminals.find((t) => t.name === name), 10_000, name);
    const options = terminal.creationOptions as vscode.TerminalOptions;
    assert.equal(typeof options.cwd === 'string' ? options.cwd : options.cwd?.fsPath, work);
    const recorded = await waitFor(
      () => (fs.existsSync(record) ? fs.readFileSync(record, 'utf8') : ''),
      60_000,
      'the wrapper to run in the terminal',
    );
    assert.deepEqual(recorded.trim().split('\n'), [`cwd=${work}`, 'arg=resume', `arg=${THREAD_ID}`]);
    // The real Codex found the rollout by that id and sent its history with the new prompt.
    const request = await waitFor(
      () =>
        fake
          .responsesRequests()
          .find((r) => JSON.stringify((r.body as { input?: unknown })?.input ?? '').includes(PROMPT)),
      150_000,
      'the real Codex to send the resumed thread',
    );
    const input = JSON.stringify((request.body as { input: unknown }).input);
    assert.ok(input.includes(FROM_THE_ROLLOUT), "the request carries the rollout's own history");
    terminal.dispose();
  });

  it('a codexPath that is not there: refused before any terminal, naming the setting', async () => {
    await setPath('codexPath', path.join(tmp, 'no-such-dir', 'codex'));
    const terminals = vscode.window.terminals.length;
    await assert.rejects(
      Promise.resolve(vscode.commands.executeCommand('agentCompactor.resumeSession', { file: rollout })),
      /Codex CLI was not found: ".*no-such-dir\/codex" is not an executable file\. Install Codex CLI, or set agentCompactor\.codexPath/,
    );
    assert.equal(vscode.window.terminals.length, terminals, 'no terminal was started');
  });

  it('Gemini CLI and Cline sessions: no resume command, and why', async () => {
    const gemini = path.join(workspaceDir(), 'gemini-home', 'tmp', 'p', 'chats', 'session-a.json');
    fs.mkdirSync(path.dirname(gemini), { recursive: true });
    fs.copyFileSync(sharedFixture('gemini-cli/session-a.json'), gemini);
    const cline = path.join(workspaceDir(), 'cline-task', 'api_conversation_history.json');
    fs.mkdirSync(path.dirname(cline), { recursive: true });
    fs.copyFileSync(sharedFixture('cline/task-opus/api_conversation_history.json'), cline);
    await vscode.env.clipboard.writeText('untouched');
    for (const [file, format] of [
      [gemini, 'gemini-cli'],
      [cline, 'cline'],
    ] as const) {
      const reason = noResumeReason(format)!;
      for (const id of ['agentCompactor.resumeSession', 'agentCompactor.copyResumeCommand'])
        await assert.rejects(
          Promise.resolve(vscode.commands.executeCommand(id, { file })),
          (e: Error) => e.name === 'CommandInputError' && e.message === reason,
          `${id} on ${format}`,
        );
    }
    assert.equal(await vscode.env.clipboard.readText(), 'untouched');
    fs.rmSync(path.join(workspaceDir(), 'gemini-home'), { recursive: true, force: true });
    fs.rmSync(path.join(workspaceDir(), 'cline-task'), { recursive: true, force: true });
  });
});
