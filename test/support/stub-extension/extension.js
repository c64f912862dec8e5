// TEMPORARY stub of the Agent Compactor extension, used only by the real-host
// test harness (AGENT_COMPACTOR_EXTENSION_PATH=test/support/stub-extension)
// until the real dist/extension.js exists. Plain CommonJS: nothing to build.
'use strict';
const vscode = require('vscode');

function activate(context) {
  console.log('[agent-compactor stub] activated');
  context.subscriptions.push(
    vscode.commands.registerCommand('agentCompactor.stub.hello', () => {
      const doc = vscode.window.activeTextEditor?.document;
      const what = doc ? `${doc.languageId} ${doc.lineCount} lines` : 'no editor';
      void vscode.window.showInformationMessage(`Agent Compactor stub: ${what}`);
      return what;
    }),
  );
  return { stub: true };
}

function deactivate() {}

module.exports = { activate, deactivate };
