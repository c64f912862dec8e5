/**
 * Restricted Mode, for real. The runner's untrusted pass (test/host/run.ts, trust 'untrusted') starts
 * code-server without --disable-workspace-trust, with workspace trust enabled and nothing trusted, so VS Code
 * opens the workspace folder in Restricted Mode; only this file runs in that pass. The workspace holds a
 * .vscode/settings.json (RESTRICTED_WORKSPACE_SETTINGS) with the extension's restricted configurations set.
 *
 * Checked: the workspace really is untrusted; the manifest's declarations (command enablement on
 * `isWorkspaceTrusted`, restricted configurations); VS Code ignores the workspace values of the restricted
 * configurations while applying the others; the write handlers refuse, read-only commands work, nothing is written.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CompactionPlan } from '../../src/core/compact/types';
import type { AgentCompactorApi } from '../../src/extension/api';
import { EXTENSION_ID, copyFixture, getApi, sha256, showTranscript, withTimeout, workspaceDir } from './helpers';

interface CommandContribution {
  command: string;
  enablement?: string;
}

const RESTRICTED = [
  'agentCompactor.baseUrl',
  'agentCompactor.claudePath',
  'agentCompactor.codexPath',
  'agentCompactor.model',
  'agentCompactor.summarizer',
  'agentCompactor.writeMode',
];

describe('host: Restricted Mode (workspace opened untrusted)', function () {
  this.timeout(120_000);
  let api: AgentCompactorApi;

  before(async () => {
    assert.equal(process.env.AGENT_COMPACTOR_TEST_TRUST, 'untrusted', "this file runs in the runner's untrusted pass");
    api = await getApi();
  });

  it('VS Code opened the workspace in Restricted Mode', () => {
    assert.equal(vscode.workspace.isTrusted, false, 'vscode.workspace.isTrusted');
  });

  it('the manifest disables the writing commands in untrusted workspaces', () => {
    const pkg = vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON;
    const commands = pkg.contributes.commands as CommandContribution[];
    const enablement = (id: string) => commands.find((c) => c.command === id)?.enablement;
    // Every command that writes a session (the transcript, a fork, a backup) needs a trusted workspace: its
    // enablement is `isWorkspaceTrusted`, alone or as the first of its conjuncts.
    const writing = [
      'compact',
      'restoreBackup',
      'repairSession',
      'reviewSummary',
      'applySummary',
      'undoLastCompaction',
    ];
    for (const id of writing)
      assert.match(
        enablement(`agentCompactor.${id}`) ?? '',
        /^isWorkspaceTrusted( && .+)?$/,
        `agentCompactor.${id} needs trust`,
      );
    // Read-only commands stay available.
    for (const id of [
      'agentCompactor.preview',
      'agentCompactor.openBudget',
      'agentCompactor.refresh',
      'agentCompactor.revealRound',
      'agentCompactor.resumeSession',
      'agentCompactor.copyResumeCommand',
    ]) {
      assert.ok(!/isWorkspaceTrusted/.test(enablement(id) ?? ''), `${id} is available in Restricted Mode`);
    }
    const untrusted = pkg.capabilities.untrustedWorkspaces;
    assert.equal(untrusted.supported, 'limited');
    assert.deepEqual(
      [...untrusted.restrictedConfigurations].sort(),
      RESTRICTED,
      'workspace values of the settings that send data, write files or run a program are ignored in Restricted Mode',
    );
  });

  it('VS Code ignores the workspace values of the restricted settings and applies the others', () => {
    const written = JSON.parse(
      fs.readFileSync(path.join(workspaceDir(), '.vscode', 'settings.json'), 'utf8'),
    ) as Record<string, unknown>;
    const config = vscode.workspace.getConfiguration();
    for (const key of RESTRICTED) {
      assert.ok(key in written, `the workspace sets ${key}`);
      const info = config.inspect(key)!;
      assert.notDeepEqual(config.get(key), written[key], `${key}: the untrusted workspace's value is not applied`);
      assert.deepEqual(
        config.get(key),
        info.globalValue ?? info.defaultValue,
        `${key}: the user or default value applies`,
      );
    }
    // The same file's unrestricted setting applies, so the file was read.
    assert.equal(config.get('agentCompactor.targetTokens'), written['agentCompactor.targetTokens']);
  });

  it('the handlers refuse to write; read-only commands still work; nothing is written', async () => {
    const file = copyFixture('v1.0.98-small.jsonl', 'restricted.jsonl');
    await showTranscript(api, file);
    const hash = sha256(file);
    // Every name in the workspace (a fork would be named by a new session id, not after the transcript).
    const listing = () => fs.readdirSync(workspaceDir()).sort();
    const filesBefore = listing();
    try {
      await assert.rejects(
        withTimeout(
          vscode.commands.executeCommand('agentCompactor.compact', {
            file,
            confirm: false,
            summarizer: 'extractive',
            targetTokens: 5_000,
            open: false,
          }),
          30_000,
          'compact',
        ),
        (e: Error) => e.name === 'CommandInputError' && /Restricted Mode/.test(e.message),
      );
      await assert.rejects(
        withTimeout(
          vscode.commands.executeCommand('agentCompactor.restoreBackup', { file, confirm: false }),
          30_000,
          'restore',
        ),
        (e: Error) => e.name === 'CommandInputError' && /Restricted Mode/.test(e.message),
      );
      // Reading is allowed: the preview computes a plan without writing.
      const plan = await withTimeout(
        vscode.commands.executeCommand<CompactionPlan>('agentCompactor.preview', { file, targetTokens: 5_000 }),
        30_000,
        'preview',
      );
      assert.ok(plan && plan.rounds.length > 0);
    } finally {
      await vscode.commands.executeCommand('agentCompactor.clearPreview');
    }
    assert.equal(vscode.workspace.isTrusted, false, 'still untrusted');
    assert.equal(sha256(file), hash, 'nothing was written to the transcript');
    assert.deepEqual(listing(), filesBefore, 'no output or backup file was created');
    assert.ok(!fs.existsSync(path.join(workspaceDir(), 'restricted.compacted.jsonl')));
  });
});
