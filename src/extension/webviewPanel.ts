// What every webview panel of the extension is given: scripts on, command links off, only the extension's
// media/ and dist/ loadable, its icon, and its page (model/webviewHtml.ts: strict CSP, a fresh nonce).
import * as vscode from 'vscode';
import { randomBytes } from 'node:crypto';
import type { WebviewHtmlInput } from './model/webviewHtml';

export interface WebviewPage {
  /** The bundle in dist/ (e.g. `map.js`). */
  script: string;
  /** The stylesheet in media/ (e.g. `map.css`). */
  style: string;
  html: (input: WebviewHtmlInput) => string;
}

export function setUpWebviewPanel(panel: vscode.WebviewPanel, extensionUri: vscode.Uri, page: WebviewPage): void {
  const media = vscode.Uri.joinPath(extensionUri, 'media');
  const dist = vscode.Uri.joinPath(extensionUri, 'dist');
  panel.webview.options = { enableScripts: true, enableCommandUris: false, localResourceRoots: [media, dist] };
  panel.iconPath = vscode.Uri.joinPath(media, 'icon-activity.svg');
  panel.webview.html = page.html({
    cspSource: panel.webview.cspSource,
    nonce: randomBytes(18).toString('base64'),
    scriptUri: panel.webview.asWebviewUri(vscode.Uri.joinPath(dist, page.script)).toString(),
    styleUri: panel.webview.asWebviewUri(vscode.Uri.joinPath(media, page.style)).toString(),
  });
}
