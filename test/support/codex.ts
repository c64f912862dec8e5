/**
 * Harness: run the REAL Codex CLI (pinned, provisioned by scripts/provision-codex.sh) offline against the local fake
 * Responses API (./fake-responses.ts), resuming a rollout we wrote, and capture the request Codex builds from it.
 *
 * Facts established by experiment (Codex CLI 0.169.0, linux-x64):
 *  - A private HOME/CODEX_HOME with `config.toml` (`model`, `openai_base_url`) plus OPENAI_API_KEY/OPENAI_BASE_URL keeps
 *    the built-in `openai` provider (a resumed thread refuses to switch providers) and sends everything to the fake.
 *  - Codex first tries a WebSocket (a GET on /v1/responses with `Upgrade: websocket`), then falls back to
 *    `POST /v1/responses` with SSE. Answered 404 (as the fake does) it reconnects five times with backoff before it falls
 *    back (~6.5 s of waiting a run); answered 426 Upgrade Required it falls back at once (one GET, then the POST, the
 *    same request body). `runCodex` puts a front before the fake that answers the WebSocket attempt 426 and passes
 *    everything else through unchanged (`startWebSocketRefusal`). The child must be spawned asynchronously (the fake
 *    runs in this process).
 *  - `codex exec --skip-git-repo-check resume <id> "<prompt>"` finds `sessions/**\/rollout-*-<id>.jsonl` by the id in
 *    its name and its session_meta; rollouts we fork into the sessions folder are found without any index update.
 *  - The request's `input`: Codex's base instructions (developer), then the thread's history (from the newest
 *    `compacted` record's replacement_history, and the response items after it), then the new turn's context
 *    (developer/user messages: model switch, environment) and the prompt. Items are re-serialised by Codex (e.g.
 *    `content: null` added to reasoning, pass-through metadata on messages), so checks compare what items say.
 *  - 0.169 writes an `ordinal` after `timestamp` on every record of the rollouts it writes.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import { repoRoot } from './fixtures';
import type { FakeResponses } from './fake-responses';
import { tempDir } from './temp';

/** The pinned version, read from CODEX_VERSION in scripts/provision-codex.sh (./pins.ts). */
export { CODEX_VERSION } from './pins';
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

function writeConfig(codexHome: string, fake: Pick<FakeResponses, 'url'>): void {
  writeFileSync(join(codexHome, 'config.toml'), `model = "gpt-5"\nopenai_base_url = "${fake.url}"\n`);
}

/**
 * A front for `fake` on its own port: Codex's WebSocket attempt (a request with `Upgrade: websocket`) is answered
 * 426 Upgrade Required, on which Codex 0.169 falls back to HTTP at once; every other request goes to the fake as it
 * came (method, path, headers, body), and the fake's answer comes back as it is sent (status, headers, the SSE stream).
 * The fake records the requests Codex sends over HTTP as before; the WebSocket attempts, which no longer reach it, are
 * recorded in `refused` (method, path without the query, body length).
 */
export interface WebSocketRefusal {
  /** Base URL including `/v1`, as the fake's. */
  url: string;
  refused: { method: string; pathname: string; bodyBytes: number }[];
  close(): Promise<void>;
}

export async function startWebSocketRefusal(fake: Pick<FakeResponses, 'url'>): Promise<WebSocketRefusal> {
  const target = new URL(fake.url);
  const sockets = new Set<Socket>();
  const refused: WebSocketRefusal['refused'] = [];
  const server = http.createServer((req, res) => {
    if (String(req.headers.upgrade ?? '').toLowerCase() === 'websocket') {
      let bodyBytes = 0;
      req.on('data', (c: Buffer) => (bodyBytes += c.length));
      req.on('end', () => {
        refused.push({ method: req.method ?? '', pathname: (req.url ?? '/').split('?')[0], bodyBytes });
        res.writeHead(426, { 'content-type': 'application/json', connection: 'close' });
        res.end('{"error":{"message":"no websocket here: use HTTP"}}');
      });
      return;
    }
    const upstream = http.request(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
        agent: false,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        answer.on('error', () => res.destroy());
        answer.on('aborted', () => res.destroy());
      },
    );
    upstream.on('error', () => res.destroy());
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${target.pathname.replace(/\/$/, '')}`,
    refused,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

export function makeCodexHome(fake: FakeResponses): CodexHome {
  const root = tempDir('codex-home-');
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

export async function runCodex(
  home: CodexHome,
  fake: FakeResponses,
  args: string[],
  timeoutMs = 180_000,
): Promise<CodexRun> {
  const front = await startWebSocketRefusal(fake);
  try {
    return await spawnCodex(home, front.url, args, timeoutMs);
  } finally {
    await front.close();
    writeConfig(home.codexHome, fake); // the home points at the fake again, as makeCodexHome left it
  }
}

function spawnCodex(home: CodexHome, url: string, args: string[], timeoutMs: number): Promise<CodexRun> {
  // The config's base URL wins over the environment's: point both at this run's fake (through its front).
  writeConfig(home.codexHome, { url });
  return new Promise((resolve, reject) => {
    const child = spawn(codexBin, args, {
      cwd: home.workdir,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: home.root,
        CODEX_HOME: home.codexHome,
        OPENAI_API_KEY: 'sk-fake-test',
        OPENAI_BASE_URL: url,
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
