/**
 * Harness: run the REAL Codex CLI (pinned, provisioned by scripts/provision-codex.sh) offline against the local fake
 * Responses API (./fake-responses.ts), resuming a rollout we wrote, and capture the request Codex builds from it.
 *
 * Facts established by experiment (Codex CLI 0.169.0, linux-x64):
 *  - A private HOME/CODEX_HOME with `config.toml` (`model`, `openai_base_url`) plus OPENAI_API_KEY/OPENAI_BASE_URL keeps
 *    the built-in `openai` provider (a resumed thread refuses to switch providers) and sends everything to the fake.
 *  - Codex first tries a WebSocket (a GET on /v1/responses) a few times, then falls back to `POST /v1/responses` with
 *    SSE: one run takes ~10 s. The child must be spawned asynchronously (the fake runs in this process).
 *  - `codex exec --skip-git-repo-check resume <id> "<prompt>"` finds `sessions/**\/rollout-*-<id>.jsonl` by the id in
 *    its name and its session_meta; rollouts we fork into the sessions folder are found without any index update.
 *  - The request's `input`: Codex's base instructions (developer), then the thread's history (from the newest
 *    `compacted` record's replacement_history, and the response items after it), then the new turn's context
 *    (developer/user messages: model switch, environment) and the prompt. Items are re-serialised by Codex (e.g.
 *    `content: null` added to reasoning, pass-through metadata on messages), so checks compare what items say.
 *  - 0.169 writes an `ordinal` after `timestamp` on every record of the rollouts it writes.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from './fixtures';
import type { FakeResponses } from './fake-responses';

export const CODEX_VERSION = '0.169.0';
export const codexBin = join(repoRoot, '.cache', 'codex', 'node_modules', '.bin', 'codex');

export function requireCodexBinary(): void {
  if (!existsSync(codexBin))
    throw new Error(`the Codex CLI is not provisioned at ${codexBin}: run bash scripts/provision-codex.sh`);
}

export interface CodexHome {
  root: string;
  /** $HOME/.codex */
  codexHome: string;
  /** A dated sessions folder to put rollouts in. */
  sessionsDay: string;
  workdir: string;
}

function writeConfig(codexHome: string, fake: FakeResponses): void {
  writeFileSync(join(codexHome, 'config.toml'), `model = "gpt-5"\nopenai_base_url = "${fake.url}"\n`);
}

export function makeCodexHome(fake: FakeResponses): CodexHome {
  const root = mkdtempSync(join(tmpdir(), 'codex-home-'));
  const codexHome = join(root, '.codex');
  const sessionsDay = join(codexHome, 'sessions', '2026', '01', '02');
  const workdir = join(root, 'work');
  mkdirSync(sessionsDay, { recursive: true });
  mkdirSync(workdir, { recursive: true });
  writeConfig(codexHome, fake);
  return { root, codexHome, sessionsDay, workdir };
}

export interface CodexRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCodex(home: CodexHome, fake: FakeResponses, args: string[], timeoutMs = 180_000): Promise<CodexRun> {
  // The config's base URL wins over the environment's: point both at this run's fake.
  writeConfig(home.codexHome, fake);
  return new Promise((resolve, reject) => {
    const child = spawn(codexBin, args, {
      cwd: home.workdir,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: home.root,
        CODEX_HOME: home.codexHome,
        OPENAI_API_KEY: 'sk-fake-test',
        OPENAI_BASE_URL: fake.url,
        LANG: 'C.UTF-8',
        TMPDIR: home.root,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** What a response item says, without the fields Codex adds or drops when it re-sends it. */
export function itemProjection(item: any): string {
  const text = (content: any) =>
    Array.isArray(content) ? content.map((c: any) => c?.text ?? c?.type ?? '').join('') : String(content ?? '');
  switch (item?.type) {
    case 'message':
      return `message:${item.role}:${text(item.content)}`;
    case 'reasoning':
      return `reasoning:${item.encrypted_content ?? ''}:${JSON.stringify(item.summary ?? [])}`;
    case 'function_call':
      return `function_call:${item.call_id}:${item.name}:${item.arguments}`;
    case 'custom_tool_call':
      return `custom_tool_call:${item.call_id}:${item.name}:${item.input}`;
    case 'local_shell_call':
      return `local_shell_call:${item.call_id}:${JSON.stringify(item.action)}`;
    case 'function_call_output':
    case 'custom_tool_call_output': {
      const o = item.output;
      const body = typeof o === 'string' ? o : Array.isArray(o) ? text(o) : (o?.content ?? JSON.stringify(o));
      return `${item.type}:${item.call_id}:${typeof body === 'string' ? body : text(body)}`;
    }
    default:
      return `${item?.type}:${JSON.stringify(item)}`;
  }
}
