/**
 * First real-host test: the extension is installed in a real VS Code and
 * activates when a Claude Code session (a transcript named by its session id) opens.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';

const EXTENSION_ID = 'agent-compactor.agent-compactor';

async function waitFor(cond: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('smoke: the extension in a real VS Code', () => {
  it('runs inside the expected VS Code version', () => {
    // code-server 4.139.1 ships VS Code 1.139.1. Under @vscode/test-electron the
    // runner sets the expectation to '' (any version).
    const expected = process.env.AGENT_COMPACTOR_EXPECT_VSCODE_VERSION ?? '1.139';
    assert.ok(vscode.version.startsWith(expected), `vscode.version ${vscode.version} should start with ${expected}`);
  });

  it('is installed and active after a Claude Code session from the workspace is opened', async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext, `extension ${EXTENSION_ID} is not installed`);

    const folder = vscode.workspace.workspaceFolders?.[0];
    assert.ok(folder, 'a workspace folder is open');
    const wsFromEnv = process.env.AGENT_COMPACTOR_TEST_WORKSPACE;
    if (wsFromEnv) assert.equal(folder.uri.fsPath, wsFromEnv);

    const found = await vscode.workspace.findFiles('**/*.jsonl');
    assert.ok(found.length > 0, 'the workspace holds .jsonl transcripts');
    const source = found.sort((a, b) => a.fsPath.localeCompare(b.fsPath))[0];
    // Claude Code names a session's file by its id: that is how the extension knows it before reading it.
    const dir = path.join(folder.uri.fsPath, 'smoke-session');
    fs.mkdirSync(dir, { recursive: true });
    const uri = vscode.Uri.file(path.join(dir, '0d9c8b7a-6f5e-4d3c-9b2a-1f0e9d8c7b6a.jsonl'));
    fs.copyFileSync(source.fsPath, uri.fsPath);

    try {
      const doc = await vscode.workspace.openTextDocument(uri);
      const editor = await vscode.window.showTextDocument(doc);
      assert.equal(editor.document.uri.toString(), uri.toString());
      assert.equal(doc.languageId, 'agent-session');
      assert.ok(doc.lineCount > 1, 'the transcript has lines');

      await waitFor(() => ext.isActive, 30_000, `${EXTENSION_ID} to activate`);
      await ext.activate(); // resolves with its exports once activation finished
      assert.equal(ext.isActive, true);
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
