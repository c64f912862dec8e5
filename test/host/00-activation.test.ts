/**
 * Lazy activation: opening an ordinary JSON file (a package.json, a settings file) or an ordinary JSON Lines file (a
 * data file) does not activate the extension; a session file an agent wrote, known by its path or name (Claude
 * Code's `<session-id>.jsonl`, Codex's `rollout-<time>-<id>.jsonl`, anything in their sessions folders), opens as an
 * Agent Session and does; so do its views and commands. Runs first, before any suite activates it.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AgentCompactorApi } from '../../src/extension/api';
import { EXTENSION_ID, fixture, waitFor, workspaceDir } from './helpers';

const SESSION_ID = '5d0c1f7e-2b3a-4c5d-8e9f-0a1b2c3d4e5f';

describe('host: activation', function () {
  this.timeout(120_000);
  const created: string[] = [];

  after(() => {
    for (const f of created) fs.rmSync(f, { recursive: true, force: true });
  });

  function write(rel: string, text: string): string {
    const file = path.join(workspaceDir(), rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
    created.push(path.join(workspaceDir(), rel.split('/')[0]));
    return file;
  }

  it('an ordinary JSON file or JSON Lines data file does not activate the extension (a CSS file opened after them activates its language features)', async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext, `${EXTENSION_ID} is installed`);
    const events = ext.packageJSON.activationEvents as string[];
    for (const never of ['onLanguage:json', 'onLanguage:jsonl', '*', 'onStartupFinished'])
      assert.ok(!events.includes(never), `${never} is not an activation event: ${JSON.stringify(events)}`);
    assert.ok(events.includes('onLanguage:agent-session'), JSON.stringify(events));
    assert.equal(ext.isActive, false, 'nothing activated it before this suite');
    // Activation events reach the extension host in the order the documents open. A CSS file opened last is the
    // witness: once the built-in CSS language features are active (on `onLanguage:css`), the `onLanguage:jsonl` and
    // `onLanguage:json` of the files opened before it have been delivered, and an extension listening for them would
    // have been activated by then. (The JSON language features themselves are no witness: the workbench may open a
    // JSON model of its own, such as a settings file, before this suite.)
    const css = vscode.extensions.getExtension('vscode.css-language-features');
    assert.ok(css, 'the built-in CSS language features are installed');
    assert.equal(css.isActive, false, 'no CSS file was opened before this suite');
    const json = vscode.extensions.getExtension('vscode.json-language-features');
    assert.ok(json, 'the built-in JSON language features are installed');
    const data = write('data/measurements.jsonl', '{"t":1,"v":0.5}\n{"t":2,"v":0.7}\n');
    const dataDoc = await vscode.workspace.openTextDocument(vscode.Uri.file(data));
    assert.equal(dataDoc.languageId, 'jsonl', 'a data file is JSON Lines');
    await vscode.window.showTextDocument(dataDoc, { preview: false });
    // Named like a Copilot CLI session, but not in its sessions folder: still a data file.
    const events2 = write('data2/events.jsonl', '{"type":"x"}\n');
    assert.equal((await vscode.workspace.openTextDocument(vscode.Uri.file(events2))).languageId, 'jsonl');
    const file = write('package.json', JSON.stringify({ name: 'not-a-transcript', version: '1.0.0' }, null, 2));
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
    assert.equal(doc.languageId, 'json');
    await vscode.window.showTextDocument(doc, { preview: false });
    await waitFor(() => json.isActive, 60_000, 'the JSON language features to activate on the JSON file');
    const style = write('web/style.css', 'body { margin: 0; }\n');
    const styleDoc = await vscode.workspace.openTextDocument(vscode.Uri.file(style));
    assert.equal(styleDoc.languageId, 'css');
    await vscode.window.showTextDocument(styleDoc, { preview: false });
    await waitFor(() => css.isActive, 60_000, 'the CSS language features to activate on the CSS file opened last');
    assert.equal(ext.isActive, false, 'Agent Compactor stays inactive for an ordinary JSON or JSON Lines file');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('a Claude Code session opened by its id-named file activates the extension and is shown', async () => {
    const ext = vscode.extensions.getExtension<AgentCompactorApi>(EXTENSION_ID)!;
    const file = write(`session/${SESSION_ID}.jsonl`, fs.readFileSync(fixture('v1.0.98-small.jsonl'), 'utf8'));
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
    assert.equal(doc.languageId, 'agent-session');
    await vscode.window.showTextDocument(doc, { preview: false });
    await waitFor(() => ext.isActive, 60_000, `${EXTENSION_ID} to activate on the session`);
    const api = await ext.activate();
    await waitFor(
      () => api.getCurrentFile() === file && api.getState().status === 'ready',
      60_000,
      'the session to be shown',
    );
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it("the agents' session files are Agent Sessions by their path or name", async () => {
    const known = [
      `${SESSION_ID}.jsonl`,
      `.claude/projects/-home-me-p/any-name.jsonl`,
      `.claude/projects/-home-me-p/${SESSION_ID}/subagents/agent-a1b2.jsonl`,
      `codex/rollout-2026-01-02T03-04-05-${SESSION_ID}.jsonl`,
      `.codex/sessions/2026/01/02/any-name.jsonl`,
      `.copilot/session-state/${SESSION_ID}/events.jsonl`,
    ];
    for (const rel of known) {
      const f = write(rel, '{"type":"summary","summary":"x"}\n');
      assert.equal((await vscode.workspace.openTextDocument(vscode.Uri.file(f))).languageId, 'agent-session', rel);
    }
  });
});
