/**
 * Restricted Mode. The runner starts code-server with --disable-workspace-trust
 * (the workspace is always trusted there), so this suite checks (1) the
 * manifest's declarations VS Code enforces by itself (command enablement on
 * `isWorkspaceTrusted`, restricted configurations), and (2) the handlers'
 * own refusal, by making `vscode.workspace.isTrusted` read false for the
 * duration of a test: the test bundle lives inside the extension folder, so
 * VS Code hands it the same `vscode` API object as the extension.
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

describe('host: Restricted Mode', function () {
  this.timeout(120_000);
  let api: AgentCompactorApi;

  before(async () => {
    api = await getApi();
  });

  it('the manifest disables the writing commands in untrusted workspaces', () => {
    const pkg = vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON;
    const commands = pkg.contributes.commands as CommandContribution[];
    const enablement = (id: string) => commands.find((c) => c.command === id)?.enablement;
    assert.equal(enablement('agentCompactor.compact'), 'isWorkspaceTrusted');
    assert.equal(enablement('agentCompactor.restoreBackup'), 'isWorkspaceTrusted');
    // Read-only commands stay available.
    for (const id of ['agentCompactor.preview', 'agentCompactor.openBudget', 'agentCompactor.refresh', 'agentCompactor.revealRound', 'agentCompactor.resumeInClaudeCode', 'agentCompactor.copyResumeCommand']) {
      assert.ok(!/isWorkspaceTrusted/.test(enablement(id) ?? ''), `${id} is available in Restricted Mode`);
    }
    const untrusted = pkg.capabilities.untrustedWorkspaces;
    assert.equal(untrusted.supported, 'limited');
    assert.deepEqual(
      [...untrusted.restrictedConfigurations].sort(),
      ['agentCompactor.baseUrl', 'agentCompactor.claudePath', 'agentCompactor.model', 'agentCompactor.summarizer', 'agentCompactor.writeMode'],
      'workspace values of the settings that send data, write files or run a program are ignored in Restricted Mode',
    );
  });

  it('the handlers refuse to write when the workspace is not trusted; read-only commands still work', async function () {
    const file = copyFixture('v1.0.98-small.jsonl', 'restricted.jsonl');
    await showTranscript(api, file);
    const hash = sha256(file);
    const listing = () => fs.readdirSync(workspaceDir()).filter((n) => n.startsWith('restricted.')).sort();
    const filesBefore = listing();

    const original = Object.getOwnPropertyDescriptor(vscode.workspace, 'isTrusted');
    if (!original || !original.configurable) {
      console.log('      vscode.workspace.isTrusted cannot be overridden here; only the manifest is checked');
      this.skip();
    }
    Object.defineProperty(vscode.workspace, 'isTrusted', { configurable: true, enumerable: original!.enumerable, get: () => false });
    try {
      assert.equal(vscode.workspace.isTrusted, false, 'the override took effect');
      await assert.rejects(
        withTimeout(vscode.commands.executeCommand('agentCompactor.compact', { file, confirm: false, summarizer: 'extractive', targetTokens: 5_000, open: false }), 30_000, 'compact'),
        (e: Error) => e.name === 'CommandInputError' && /Restricted Mode/.test(e.message),
      );
      await assert.rejects(
        withTimeout(vscode.commands.executeCommand('agentCompactor.restoreBackup', { file, confirm: false }), 30_000, 'restore'),
        (e: Error) => e.name === 'CommandInputError' && /Restricted Mode/.test(e.message),
      );
      // Reading is allowed: the preview computes a plan without writing.
      const plan = await withTimeout(vscode.commands.executeCommand<CompactionPlan>('agentCompactor.preview', { file, targetTokens: 5_000 }), 30_000, 'preview');
      assert.ok(plan && plan.rounds.length > 0);
    } finally {
      Object.defineProperty(vscode.workspace, 'isTrusted', original!);
      await vscode.commands.executeCommand('agentCompactor.clearPreview');
    }
    assert.equal(vscode.workspace.isTrusted, true, 'restored');
    assert.equal(sha256(file), hash, 'nothing was written to the transcript');
    assert.deepEqual(listing(), filesBefore, 'no output or backup file was created');
    assert.ok(!fs.existsSync(path.join(workspaceDir(), 'restricted.compacted.jsonl')));
  });
});
