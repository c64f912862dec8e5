/**
 * Shared helpers of the real-host tests (bundled into each *.test.js by
 * scripts/build-host-tests.mjs; not a test file itself). Everything here runs
 * inside the VS Code extension host, with the real `vscode` API.
 */
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AgentCompactorApi } from '../../src/extension/api';
import type { TreeSnapshot } from '../../src/extension/model/tree';
import type { CompactSettings } from '../../src/core/compactSettings';

export const EXTENSION_ID = 'agent-compactor.agent-compactor';

/** Poll `cond` every 100 ms until it is truthy; fail after `timeoutMs`. */
export async function waitFor<T>(cond: () => T | Promise<T>, timeoutMs: number, what: string): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const v = await cond();
      if (v) return v;
    } catch (e) {
      lastError = e;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${lastError ? ` (last error: ${lastError instanceof Error ? lastError.toString() : JSON.stringify(lastError)})` : ''}`,
      );
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A promise with a deadline (commands that would hang fail the test instead of the run). */
export async function withTimeout<T>(p: Thenable<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      Promise.resolve(p),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms: ${what}`)), timeoutMs);
      }),
    ]);
  } finally {
    if (timer) clearTimeout(timer);
  }
}

export function workspaceDir(): string {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, 'a workspace folder is open');
  return folder.uri.fsPath;
}

/** The shared Claude Code fixtures (read-only): $AGENT_COMPACTOR_FIXTURES_DIR/claude-code. */
export function fixture(name: string): string {
  const root = process.env.AGENT_COMPACTOR_FIXTURES_DIR;
  assert.ok(root, 'AGENT_COMPACTOR_FIXTURES_DIR is set by the runner');
  const p = path.join(root, 'claude-code', name);
  assert.ok(fs.existsSync(p), `fixture ${p} exists`);
  return p;
}

/** Copies a fixture into the temp workspace (writable), returns its path there. */
export function copyFixture(name: string, as: string = name): string {
  const dest = path.join(workspaceDir(), as);
  fs.writeFileSync(dest, fs.readFileSync(fixture(name)));
  fs.chmodSync(dest, 0o644);
  return dest;
}

export async function getApi(): Promise<AgentCompactorApi> {
  const ext = vscode.extensions.getExtension<AgentCompactorApi>(EXTENSION_ID);
  assert.ok(ext, `extension ${EXTENSION_ID} is installed`);
  return withTimeout(ext.activate(), 60_000, `activating ${EXTENSION_ID}`);
}

/** Opens `file` in an editor and waits until the extension shows it (status ready). */
export async function showTranscript(
  api: AgentCompactorApi,
  file: string,
  timeoutMs = 60_000,
): Promise<vscode.TextEditor> {
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
  const editor = await vscode.window.showTextDocument(doc, { preview: false });
  await waitFor(
    () => api.getCurrentFile() === file && api.getState().status === 'ready',
    timeoutMs,
    `the extension to show ${path.basename(file)}`,
  );
  await withTimeout(api.whenIdle(), timeoutMs, 'the store to be idle');
  return editor;
}

/** Round nodes of a tree snapshot (taken with depth >= 1): root rounds and rounds inside history groups. */
export function roundNodes(tree: TreeSnapshot[]): TreeSnapshot[] {
  return tree.flatMap((n) =>
    n.kind === 'round' ? [n] : n.kind === 'history' ? (n.children ?? []).filter((c) => c.kind === 'round') : [],
  );
}

export function sha256(file: string): string {
  return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

/** The compaction settings the extension uses for a file (configuration, as src/extension/model/settings.ts reads it). */
export function configuredSettings(file?: string): Partial<CompactSettings> {
  const c = vscode.workspace.getConfiguration('agentCompactor', file ? vscode.Uri.file(file) : undefined);
  const out: Partial<CompactSettings> = {};
  for (const k of ['targetTokens', 'keepRecentTokens', 'maxToolResultCharsPerMessage', 'maxToolResultChars'] as const) {
    const v = c.get<number>(k);
    if (typeof v === 'number' && v > 0) out[k] = Math.floor(v);
  }
  const exempt = c.get<string[]>('exemptTools');
  if (Array.isArray(exempt)) out.exemptTools = exempt.filter((x) => typeof x === 'string' && x !== '');
  return out;
}

/** code-server's user-data dir (the runner's temp dir: <tmp>/home beside <tmp>/user-data), if known. */
export function userDataDir(): string | undefined {
  const home = process.env.AGENT_COMPACTOR_TEST_HOME;
  if (!home) return undefined;
  const dir = path.join(path.dirname(home), 'user-data');
  return fs.existsSync(dir) ? dir : undefined;
}

function findFiles(dir: string, match: (name: string, full: string) => boolean, depth = 8): string[] {
  if (depth < 0 || !fs.existsSync(dir)) return [];
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...findFiles(full, match, depth - 1));
    else if (match(e.name, full)) out.push(full);
  }
  return out;
}

/**
 * The file behind the extension's LogOutputChannel "Agent Compactor": VS Code writes it as
 * `<context.logUri>/Agent Compactor.log`, i.e. <logs>/<session>/exthost*\/agent-compactor.agent-compactor/.
 */
export function extensionLogFiles(): string[] {
  const roots = [userDataDir() && path.join(userDataDir()!, 'logs'), process.env.VSCODE_LOGS].filter(
    (x): x is string => !!x,
  );
  const files = new Set<string>();
  for (const r of roots) {
    for (const f of findFiles(r, (name, full) => name === 'Agent Compactor.log' && full.includes(EXTENSION_ID)))
      files.add(f);
  }
  return [...files];
}
