/**
 * Lazy activation: opening an ordinary JSON file (a package.json, a settings file) does not activate the extension;
 * only transcripts (`.jsonl`), its views and its commands do. Runs first, before any suite activates it.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { EXTENSION_ID, waitFor, workspaceDir } from './helpers';

describe('host: activation', function () {
  this.timeout(120_000);

  it('an ordinary JSON file does not activate the extension (JSON language features, on the same event, do)', async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext, `${EXTENSION_ID} is installed`);
    const events = ext.packageJSON.activationEvents as string[];
    assert.ok(
      !events.includes('onLanguage:json') && !events.includes('*') && !events.includes('onStartupFinished'),
      JSON.stringify(events),
    );
    assert.ok(events.includes('onLanguage:jsonl'), JSON.stringify(events));
    assert.equal(ext.isActive, false, 'nothing activated it before this suite');
    // The built-in JSON language features activate on `onLanguage:json`: once they are active, the event has been
    // delivered, and an extension listening for it would have been activated in the same batch.
    const json = vscode.extensions.getExtension('vscode.json-language-features');
    assert.ok(json, 'the built-in JSON language features are installed');
    assert.equal(json.isActive, false, 'no JSON file was opened before this suite');
    const file = path.join(workspaceDir(), 'package.json');
    fs.writeFileSync(file, JSON.stringify({ name: 'not-a-transcript', version: '1.0.0' }, null, 2));
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
    assert.equal(doc.languageId, 'json');
    await vscode.window.showTextDocument(doc, { preview: false });
    await waitFor(() => json.isActive, 60_000, 'the JSON language features to activate on the JSON file');
    assert.equal(ext.isActive, false, 'Agent Compactor stays inactive for an ordinary JSON file');
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    fs.rmSync(file);
  });
});
