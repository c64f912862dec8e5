/**
 * Fork-mode compaction and resuming in Claude Code, in a real extension host,
 * through the commands only: Compact Transcript (default write mode: a new
 * session `<uuid>.jsonl` beside the original), Copy Resume Command (read back
 * from the real clipboard), Resume Session (a real integrated terminal
 * whose shell runs a stand-in `claude`: a script, set as
 * agentCompactor.claudePath, that records its arguments and working folder).
 * A file name that is not a session id, and a working folder that does not
 * exist, are refused with the reason and start nothing.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { isSessionId, resumeCommand } from '../../src/core/resume';
import type { CompactResult } from '../../src/core/compact/types';
import { EXTENSION_ID, copyFixture, fixture, getApi, sha256, waitFor, withTimeout, workspaceDir } from './helpers';
import { tempDir } from '../support/temp';

const TARGET = 20_000;
/** The only working folder recorded in with-compactions.jsonl (it does not exist on this machine). */
const FIXTURE_CWD = '/Users/alex/workspace/cli/.worktrees/1';
const UUID_JSONL = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/;

const cfg = () => vscode.workspace.getConfiguration('agentCompactor');

/** A copy of a fixture named `<id>.jsonl` whose lines record `cwd` as their working folder. */
function sessionCopy(name: string, id: string, cwd?: string): string {
  const dest = path.join(workspaceDir(), `${id}.jsonl`);
  let text = fs.readFileSync(fixture(name), 'utf8');
  if (cwd !== undefined) text = text.replace(/"cwd":"[^"]*"/g, `"cwd":${JSON.stringify(cwd)}`);
  fs.writeFileSync(dest, text);
  return dest;
}

const ourTerminals = () => vscode.window.terminals.filter((t) => t.name.startsWith('Claude Code: '));

describe('host: fork compaction, Copy Resume Command, Resume Session in Claude Code', function () {
  this.timeout(180_000);
  let tmp: string;
  let fork: CompactResult;
  let source: string;

  before(async () => {
    await getApi();
    tmp = tempDir('agent-compactor-resume-');
  });

  after(async () => {
    for (const t of ourTerminals()) t.dispose();
    await cfg().update('claudePath', undefined, vscode.ConfigurationTarget.Global);
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('the manifest offers both commands on any transcript and keeps claudePath out of workspace hands', () => {
    const pkg = vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON;
    // (VS Code normalizes the when clauses it hands out: quotes, order, the remote scheme.)
    const menus = pkg.contributes.menus as Record<string, { command: string; when?: string }[]>;
    for (const id of ['agentCompactor.resumeSession', 'agentCompactor.copyResumeCommand']) {
      assert.ok(
        pkg.contributes.commands.some((c: { command: string }) => c.command === id),
        `${id} is contributed`,
      );
      assert.match(
        menus.commandPalette.find((m) => m.command === id)?.when ?? '',
        /resourceExtname == '?\.jsonl/,
        `${id} in the palette for a .jsonl`,
      );
      assert.match(
        menus.commandPalette.find((m) => m.command === id)?.when ?? '',
        /agentCompactor\.hasTranscript/,
        `${id} in the palette when a transcript is shown`,
      );
      assert.ok(
        menus['view/title'].some((m) => m.command === id && /agentCompactor\.rounds/.test(m.when ?? '')),
        `${id} in the Rounds view title menu`,
      );
      assert.ok(
        menus['view/item/context'].some((m) => m.command === id && /viewItem == transcript/.test(m.when ?? '')),
        `${id} on the transcript node`,
      );
      assert.ok(
        menus['explorer/context'].some((m) => m.command === id && /resourceExtname == '?\.jsonl/.test(m.when ?? '')),
        `${id} in the Explorer on .jsonl files`,
      );
    }
    const setting = pkg.contributes.configuration.properties['agentCompactor.claudePath'];
    assert.equal(setting.default, 'claude');
    assert.equal(setting.scope, 'machine');
    assert.ok(pkg.capabilities.untrustedWorkspaces.restrictedConfigurations.includes('agentCompactor.claudePath'));
    const mode = pkg.contributes.configuration.properties['agentCompactor.writeMode'];
    assert.equal(mode.default, 'fork');
    assert.match(JSON.stringify(mode), /newFile.*[Dd]eprecated|[Dd]eprecated.*newFile/);
  });

  it('compacts in fork mode (the default): a new <uuid>.jsonl beside the original, which stays byte-identical', async () => {
    source = copyFixture('with-compactions.jsonl', 'fork-source.jsonl');
    const hash = sha256(source);
    const mtime = fs.statSync(source).mtimeMs;
    const before = new Set(fs.readdirSync(workspaceDir()));
    assert.equal(cfg().get('writeMode'), 'fork', 'fork is the default write mode');

    fork = await withTimeout(
      vscode.commands.executeCommand<CompactResult>('agentCompactor.compact', {
        file: source,
        confirm: false,
        summarizer: 'extractive',
        targetTokens: TARGET,
        open: false,
      }),
      120_000,
      'compact (fork)',
    );
    assert.ok(fork, 'compact returns its result');
    assert.equal(fork.mode, 'fork');
    assert.equal(path.dirname(fork.output), path.dirname(source), 'the fork is written beside the original');
    const m = UUID_JSONL.exec(path.basename(fork.output));
    assert.ok(m, `the fork is named <uuid>.jsonl: ${path.basename(fork.output)}`);
    assert.equal(fork.sessionId, m[1], "the result's session id is the fork's file name");
    assert.ok(!before.has(path.basename(fork.output)), 'a new file');
    assert.ok(fs.existsSync(fork.output));
    assert.equal(fork.backup, null, 'a fork needs no backup');
    assert.equal(sha256(source), hash, 'the original is byte-identical');
    assert.equal(fs.statSync(source).mtimeMs, mtime, 'the original was not rewritten');
    assert.equal(fork.cwd, FIXTURE_CWD, "the session's working folder, from its lines");
    assert.equal(fork.resumeCommand, `cd ${FIXTURE_CWD} && claude --resume ${fork.sessionId}`);
    assert.equal(fork.summarizer, 'extractive', 'the summarizer that ran');
  });

  it('Copy Resume Command puts exactly `cd <cwd> && claude --resume <id>` on the clipboard', async () => {
    assert.ok(fork, 'the fork test ran');
    const expected = `cd ${FIXTURE_CWD} && claude --resume ${fork.sessionId}`;
    await vscode.env.clipboard.writeText('before');
    // As the Explorer's context menu calls it (a Uri) ...
    const viaUri = await withTimeout(
      vscode.commands.executeCommand<string>('agentCompactor.copyResumeCommand', vscode.Uri.file(fork.output)),
      30_000,
      'copy (Uri)',
    );
    assert.equal(viaUri, expected);
    assert.equal(await vscode.env.clipboard.readText(), expected, 'the clipboard holds exactly the command');
    // ... and as the result notification's button calls it (the session the compaction reported).
    await vscode.env.clipboard.writeText('before');
    const viaResult = await withTimeout(
      vscode.commands.executeCommand<string>('agentCompactor.copyResumeCommand', {
        file: fork.output,
        sessionId: fork.sessionId,
        cwd: fork.cwd,
      }),
      30_000,
      'copy (result)',
    );
    assert.equal(viaResult, expected);
    assert.equal(await vscode.env.clipboard.readText(), expected);
    assert.equal(
      viaResult,
      resumeCommand(fork.cwd, fork.sessionId, undefined, 'claude-code'),
      "the core's resumeCommand",
    );
  });

  it('Resume Session on a Claude Code session opens a terminal "Claude Code: <short id>" in the session folder running `<claudePath> --resume <id>`', async () => {
    // A stand-in for claude, in a folder with a space and a quote: it records its arguments and working folder.
    const binDir = path.join(tmp, "fake bin's");
    fs.mkdirSync(binDir);
    const record = path.join(tmp, 'claude-args.txt');
    const script = path.join(binDir, 'claude');
    const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
    fs.writeFileSync(
      script,
      `#!/bin/sh\n{ printf 'cwd=%s\\n' "$(pwd -P)"; for a in "$@"; do printf 'arg=%s\\n' "$a"; done; } > ${q(record + '.tmp')} && mv ${q(record + '.tmp')} ${q(record)}\n`,
    );
    fs.chmodSync(script, 0o755);
    await cfg().update('claudePath', script, vscode.ConfigurationTarget.Global);
    await waitFor(() => cfg().get('claudePath') === script, 10_000, 'the claudePath setting to apply');

    const id = '3f2b8c1d-9e4a-4b7c-8d6e-5a4b3c2d1e0f';
    const cwd = path.join(tmp, 'my project');
    fs.mkdirSync(cwd);
    const file = sessionCopy('v1.0.98-small.jsonl', id, cwd);
    const expectedName = `Claude Code: ${id.slice(0, 8)}`;
    assert.ok(!vscode.window.terminals.some((t) => t.name === expectedName));

    const launch = await withTimeout(
      vscode.commands.executeCommand<{ sessionId: string; cwd: string; terminalName: string; commandLine: string }>(
        'agentCompactor.resumeSession',
        vscode.Uri.file(file),
      ),
      30_000,
      'resume',
    );
    assert.equal(launch.sessionId, id);
    assert.equal(launch.cwd, cwd);
    assert.equal(launch.terminalName, expectedName);
    const terminal = await waitFor(
      () => vscode.window.terminals.find((t) => t.name === expectedName),
      10_000,
      `a terminal named "${expectedName}"`,
    );
    const options = terminal.creationOptions as vscode.TerminalOptions;
    const optCwd = typeof options.cwd === 'string' ? options.cwd : options.cwd?.fsPath;
    assert.equal(optCwd, cwd, "the terminal starts in the session's working folder");

    const recorded = await waitFor(
      () => (fs.existsSync(record) ? fs.readFileSync(record, 'utf8') : ''),
      60_000,
      'the stand-in claude to run in the terminal',
    );
    assert.deepEqual(recorded.trim().split('\n'), [`cwd=${fs.realpathSync(cwd)}`, 'arg=--resume', `arg=${id}`]);

    // Copy Resume Command uses the configured path too (quoted for the shell).
    const copied = await withTimeout(
      vscode.commands.executeCommand<string>('agentCompactor.copyResumeCommand', { file }),
      30_000,
      'copy',
    );
    assert.equal(copied, `cd ${q(cwd)} && ${q(script)} --resume ${id}`);
    assert.equal(await vscode.env.clipboard.readText(), copied);
    terminal.dispose();
  });

  it('a file name that is not a session id: the reason, no terminal, nothing copied', async () => {
    const file = copyFixture('v1.0.98-small.jsonl', 'not-a-session.jsonl');
    const terminals = [...vscode.window.terminals];
    await vscode.env.clipboard.writeText('untouched');
    const reason =
      /^Claude Code cannot resume not-a-session\.jsonl by id: it finds a session by its file name, so the transcript must be named <session-uuid>\.jsonl and sit in ~\/\.claude\/projects\/<project>\//;
    await assert.rejects(
      withTimeout(
        vscode.commands.executeCommand('agentCompactor.resumeSession', { file }),
        30_000,
        'resume (not a session id)',
      ),
      (e: Error) => e.name === 'CommandInputError' && reason.test(e.message),
    );
    await assert.rejects(
      withTimeout(
        vscode.commands.executeCommand('agentCompactor.copyResumeCommand', { file }),
        30_000,
        'copy (not a session id)',
      ),
      (e: Error) => reason.test(e.message),
    );
    // A claimed id that is not a UUID is refused the same way.
    await assert.rejects(
      withTimeout(
        vscode.commands.executeCommand('agentCompactor.resumeSession', { file, sessionId: '$(touch /tmp/x)' }),
        30_000,
        'resume (bad id)',
      ),
      (e: Error) => reason.test(e.message),
    );
    // (No pause: the extension host lists a terminal in window.terminals as createTerminal returns, so any the command
    // opened before it settled is there now.)
    assert.deepEqual(
      vscode.window.terminals.filter((t) => !terminals.includes(t)).map((t) => t.name),
      [],
      'no terminal was opened',
    );
    assert.equal(await vscode.env.clipboard.readText(), 'untouched', 'nothing was copied');
  });

  it('a working folder that does not exist here: the reason, no terminal; the command can still be copied', async () => {
    const id = '7c6d5e4f-3a2b-4c1d-9e8f-0a1b2c3d4e5f';
    const file = sessionCopy('with-compactions.jsonl', id);
    assert.ok(isSessionId(id) && !fs.existsSync(FIXTURE_CWD));
    const terminals = [...vscode.window.terminals];
    await assert.rejects(
      withTimeout(
        vscode.commands.executeCommand('agentCompactor.resumeSession', { file }),
        30_000,
        'resume (missing folder)',
      ),
      (e: Error) =>
        e.name === 'CommandInputError' &&
        e.message.includes(`its working folder ${FIXTURE_CWD} does not exist on this machine`),
    );
    // (No pause: window.terminals lists a terminal as createTerminal returns.)
    assert.deepEqual(
      vscode.window.terminals.filter((t) => !terminals.includes(t)).map((t) => t.name),
      [],
      'no terminal was opened',
    );
    const copied = await withTimeout(
      vscode.commands.executeCommand<string>('agentCompactor.copyResumeCommand', { file }),
      30_000,
      'copy (missing folder)',
    );
    assert.ok(copied.startsWith(`cd ${FIXTURE_CWD} && `) && copied.endsWith(` --resume ${id}`), copied);
  });
});
