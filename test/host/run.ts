/**
 * Runs the mocha suite INSIDE a real VS Code extension host: code-server
 * (VS Code 1.139) driven by headless Chromium, through VS Code's own
 * integration-test mechanism (the smoke-test driver's `payload`).
 *
 *   bash scripts/provision-vscode.sh      # once; cached in .vscode-test/
 *   npm run build                         # dist/extension.js + dist-test/host/
 *   node --import tsx test/host/run.ts
 *
 * Env:
 *   AGENT_COMPACTOR_EXTENSION_PATH  extension folder to load (default: repo root)
 *   AGENT_COMPACTOR_TEST_GREP       only run tests whose title matches
 *   AGENT_COMPACTOR_HOST_PASS       trusted | untrusted | both (default, the two at once): the trusted pass runs
 *                                   every suite but Restricted Mode, the untrusted pass opens the folder untrusted and
 *                                   runs that one
 *   AGENT_COMPACTOR_HOST_TEST_TIMEOUT_MS  overall limit (default 1500000: a loaded machine is slow, not broken)
 *   KEEP_TEST_TMP=1                 keep temp dirs (server, workspace) for debugging
 *   HOST_TEST_DEBUG=1               also print the browser's console
 *
 * Programmatic: `runHostTests({ env, settings, workspaceFiles })` resolves
 * with the exit code (0 = all passed).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as util from 'node:util';
import type { BrowserContext } from 'playwright-core';
import { launchChromium, newPage, type LaunchedChromium } from '../support/browser';
import {
  assertExtensionBuilt,
  remoteUri,
  repoRoot,
  startCodeServer,
  UNTRUSTED_USER_SETTINGS,
  type CodeServer,
} from '../support/code-server';
import {
  createWorkspace,
  defaultWorkspaceFiles,
  fixturesDir,
  type TempWorkspace,
  type WorkspaceFiles,
} from '../support/workspace';

export interface RunHostTestsOptions {
  /** Extra environment for the extension host (merged over the defaults below). */
  env?: Record<string, string>;
  /** Extra VS Code user settings (User/settings.json). */
  settings?: Record<string, unknown>;
  /** Files for the temp workspace. Default: a few Claude Code fixtures. */
  workspaceFiles?: WorkspaceFiles;
  /** Extension under test. Default: $AGENT_COMPACTOR_EXTENSION_PATH or the repo root. */
  extensionDevelopmentPath?: string;
  /** Folder holding index.js that exports run(). Default: <repo>/dist-test/host. */
  extensionTestsPath?: string;
  /** Overall limit in ms. Default: $AGENT_COMPACTOR_HOST_TEST_TIMEOUT_MS or 10 min. */
  timeoutMs?: number;
  /** Mocha grep, passed as AGENT_COMPACTOR_TEST_GREP. */
  grep?: string;
  /**
   * 'trusted' (default): code-server with --disable-workspace-trust, every suite but *-restricted.test.js.
   * 'untrusted': workspace trust on and nothing trusted, so the folder opens in Restricted Mode; runs only
   * *-restricted.test.js, with RESTRICTED_WORKSPACE_SETTINGS in the workspace's .vscode/settings.json.
   */
  trust?: 'trusted' | 'untrusted';
  /**
   * A Chromium to open the window in (a new browser context of it, closed at the end). Default: a Chromium of its
   * own, closed at the end.
   */
  chromium?: LaunchedChromium;
  /**
   * Where the run's lines go (the runner's, the workbench's and mocha's). Default: straight to stdout / stderr. Two
   * passes that run at once give one of them a buffer, printed whole when it is done.
   */
  print?: (line: string, stream: 'out' | 'err') => void;
}

/**
 * Workspace settings of the Restricted Mode pass: the extension's restricted configurations (which VS Code must
 * ignore in an untrusted workspace) set to non-default values, and one unrestricted setting that must apply.
 */
export const RESTRICTED_WORKSPACE_SETTINGS: Record<string, unknown> = {
  'agentCompactor.summarizer': 'anthropic',
  'agentCompactor.model': 'claude-from-an-untrusted-workspace',
  'agentCompactor.baseUrl': 'http://127.0.0.1:9/untrusted-workspace',
  'agentCompactor.writeMode': 'inPlace',
  'agentCompactor.claudePath': '/untrusted-workspace/bin/claude',
  'agentCompactor.codexPath': '/untrusted-workspace/bin/codex',
  'agentCompactor.targetTokens': 12345,
};

interface AutomationLogEntry {
  relativePath: string;
  contents: string;
}

/** Routine workbench log lines (not from the extension host), hidden unless HOST_TEST_DEBUG=1. */
const WORKBENCH_NOISE: RegExp[] = [
  /^Resolv(ing|ed) connection token/,
  /^Creating a socket/,
  /^\[reconnection-grace-time\]/,
  /^Ignoring fetching additional builtin extensions/,
  /^Updating additional builtin extensions cache/,
  /^\[Service Worker\]/,
  /^\[AgentHost:remote\]/,
  /^\[AccountPolicyGate\]/,
  /^Creation of workbench contribution .* took \d+ms/,
];

const started = Date.now();
const toConsole = (line: string, stream: 'out' | 'err') => (stream === 'err' ? console.error(line) : console.log(line));
/** The runner's own line, with the seconds since it started (where a run's time goes: server, window, tests). */
const log = (msg: string, print = toConsole) =>
  print(`[host-tests +${((Date.now() - started) / 1000).toFixed(1)}s] ${msg}`, 'out');

/** Stoppers of everything started by runs in progress, for signal handling. */
const cleanups = new Set<() => Promise<void>>();
let interruptedBy: NodeJS.Signals | undefined;
let signalHandlersInstalled = false;
function installSignalHandlers(): void {
  if (signalHandlersInstalled) return;
  signalHandlersInstalled = true;
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(sig, () => {
      interruptedBy = sig;
      log(`${sig}: stopping browser and code-server`);
      const all = [...cleanups].map((c) => c().catch(() => undefined));
      void Promise.race([Promise.all(all), new Promise((r) => setTimeout(r, 15_000))]).then(() =>
        process.exit(sig === 'SIGINT' ? 130 : 143),
      );
    });
  }
}

export async function runHostTests(opts: RunHostTestsOptions = {}): Promise<number> {
  const t0 = Date.now();
  const extensionDevelopmentPath = path.resolve(
    repoRoot,
    opts.extensionDevelopmentPath ?? process.env.AGENT_COMPACTOR_EXTENSION_PATH ?? '.',
  );
  const extensionTestsPath = path.resolve(repoRoot, opts.extensionTestsPath ?? path.join('dist-test', 'host'));
  const timeoutMs = opts.timeoutMs ?? Number(process.env.AGENT_COMPACTOR_HOST_TEST_TIMEOUT_MS ?? 1_500_000);
  const print = opts.print ?? toConsole;
  const say = (msg: string) => log(msg, print);

  assertExtensionBuilt(extensionDevelopmentPath);
  if (!fs.existsSync(path.join(extensionTestsPath, 'index.js'))) {
    throw new Error(`${extensionTestsPath}/index.js does not exist: run \`node scripts/build-host-tests.mjs\` first`);
  }

  let server: CodeServer | undefined;
  let ownChromium: LaunchedChromium | undefined;
  let context: BrowserContext | undefined;
  let workspace: TempWorkspace | undefined;
  let timer: NodeJS.Timeout | undefined;
  const cleanup = async () => {
    if (timer) clearTimeout(timer);
    // The window's context first (a shared Chromium stays for the other pass), then a Chromium of its own.
    await context?.close().catch((e) => say(`closing the window failed: ${e}`));
    await ownChromium?.close().catch((e) => say(`closing the browser failed: ${e}`));
    await server?.stop().catch((e) => say(`stopping code-server failed: ${e}`));
    workspace?.dispose();
  };
  cleanups.add(cleanup);
  installSignalHandlers();

  try {
    const untrusted = opts.trust === 'untrusted';
    workspace = createWorkspace({
      ...(opts.workspaceFiles ?? defaultWorkspaceFiles()),
      ...(untrusted ? { '.vscode/settings.json': JSON.stringify(RESTRICTED_WORKSPACE_SETTINGS, null, 2) } : {}),
    });
    server = untrusted
      ? await startCodeServer({
          workspaceTrust: true,
          settings: { ...UNTRUSTED_USER_SETTINGS, ...(opts.settings ?? {}) },
        })
      : await startCodeServer({ settings: opts.settings });
    say(`workspace trust: ${untrusted ? 'enabled, nothing trusted (Restricted Mode)' : 'disabled (trusted)'}`);
    say(`code-server ${server.url} (pid ${server.pid}) ready in ${Date.now() - t0} ms`);

    const extEnv: Record<string, string> = {
      AGENT_COMPACTOR_TEST: '1',
      AGENT_COMPACTOR_TEST_HOST: 'code-server',
      AGENT_COMPACTOR_TEST_WORKSPACE: workspace.dir,
      AGENT_COMPACTOR_TEST_HOME: server.home,
      AGENT_COMPACTOR_FIXTURES_DIR: fixturesDir,
      AGENT_COMPACTOR_REPO_ROOT: repoRoot,
      AGENT_COMPACTOR_TEST_TRUST: untrusted ? 'untrusted' : 'trusted',
      ...((opts.grep ?? process.env.AGENT_COMPACTOR_TEST_GREP)
        ? { AGENT_COMPACTOR_TEST_GREP: (opts.grep ?? process.env.AGENT_COMPACTOR_TEST_GREP)! }
        : {}),
      ...(opts.env ?? {}),
    };
    const payload: [string, string][] = [
      ['extensionDevelopmentPath', remoteUri(server, extensionDevelopmentPath)],
      ['extensionTestsPath', remoteUri(server, extensionTestsPath)],
      ['skipWelcome', 'true'],
      ['extensionEnvironment', JSON.stringify(extEnv)],
    ];

    const chromium = opts.chromium ?? (ownChromium = await launchChromium());
    const opened = await newPage(chromium.browser);
    context = opened.context;
    const { page } = opened;

    let resolveExit!: (v: { code: number; logs: AutomationLogEntry[] }) => void;
    const exited = new Promise<{ code: number; logs: AutomationLogEntry[] }>((r) => (resolveExit = r));
    // Both must exist before the workbench loads: it checks for them at startup.
    const debug = process.env.HOST_TEST_DEBUG === '1';
    await page.exposeFunction('codeAutomationLog', (type: string, args: unknown[]) => {
      const line = util.format(...(Array.isArray(args) ? args : [args]));
      // The workbench's own log lines come through here too; keep the routine ones out.
      if (!debug && type !== 'error' && WORKBENCH_NOISE.some((re) => re.test(line))) return;
      if (type === 'error' || type === 'warn') print(`[${type}] ${line}`, 'err');
      else print(line, 'out');
    });
    await page.exposeFunction('codeAutomationExit', (code: number, logs: AutomationLogEntry[]) => {
      resolveExit({ code: Number(code), logs: Array.isArray(logs) ? logs : [] });
    });
    if (debug) {
      page.on('console', (m) => print(`[browser:${m.type()}] ${m.text()}`, 'out'));
    }
    page.on('pageerror', (e) => say(`page error: ${e.message}`));

    const failed = new Promise<{ code: number; logs: AutomationLogEntry[]; reason: string }>((resolve) => {
      timer = setTimeout(
        () => resolve({ code: 1, logs: [], reason: `timed out after ${timeoutMs} ms waiting for the tests to finish` }),
        Math.max(0, timeoutMs - (Date.now() - t0)),
      );
      page.on('crash', () => resolve({ code: 1, logs: [], reason: 'the browser page crashed' }));
      page.on('close', () => resolve({ code: 1, logs: [], reason: 'the browser page closed' }));
    });

    const url = `${server.url}/?folder=${encodeURIComponent(workspace.dir)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
    say(`extension: ${extensionDevelopmentPath}`);
    say(`tests:     ${extensionTestsPath}`);
    say(`workspace: ${workspace.dir}`);
    await page.goto(url, { waitUntil: 'domcontentloaded', timeout: 60_000 });
    say('window loading');

    const result = await Promise.race([exited.then((r) => ({ ...r, reason: '' })), failed]);
    if (interruptedBy) {
      say(`interrupted by ${interruptedBy}`);
      return 130;
    }
    if (result.reason) say(`FAILED: ${result.reason}`);
    if (result.code !== 0) {
      const dir = path.join(repoRoot, 'test-results', untrusted ? 'host-logs-restricted' : 'host-logs');
      fs.rmSync(dir, { recursive: true, force: true });
      fs.mkdirSync(dir, { recursive: true });
      for (const l of result.logs) {
        const dest = path.resolve(dir, l.relativePath);
        if (!dest.startsWith(dir + path.sep)) continue;
        fs.mkdirSync(path.dirname(dest), { recursive: true });
        fs.writeFileSync(dest, l.contents);
      }
      fs.writeFileSync(path.join(dir, 'code-server.log'), server.output());
      await page.screenshot({ path: path.join(dir, 'workbench.png') }).catch(() => undefined);
      say(`workbench logs, code-server output and a screenshot are in ${path.relative(repoRoot, dir)}/`);
      const tail = server.output().split('\n').slice(-30).join('\n');
      if (result.reason && tail.trim()) say(`code-server output (last lines):\n${tail}`);
    }
    say(
      `${result.code === 0 ? 'PASSED' : 'FAILED'} (exit code ${result.code}) in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
    );
    return result.code === 0 ? 0 : 1;
  } finally {
    await cleanup();
    cleanups.delete(cleanup);
  }
}

/**
 * Both passes, at once: the trusted one and Restricted Mode, each in its own code-server (workspace trust is a server
 * flag) and a window of one shared Chromium. The Restricted Mode pass is short, so running it beside the trusted one
 * takes its whole window start off the run's wall time; its lines are held and printed after the trusted pass's.
 * AGENT_COMPACTOR_HOST_PASS=trusted or untrusted runs one of them (e.g. with a grep that matches only one pass's
 * tests).
 */
export async function runAllHostPasses(): Promise<number> {
  const which = process.env.AGENT_COMPACTOR_HOST_PASS ?? 'both';
  if (!['both', 'trusted', 'untrusted'].includes(which))
    throw new Error(`AGENT_COMPACTOR_HOST_PASS must be both, trusted or untrusted, not ${which}`);
  const passes = (['trusted', 'untrusted'] as const).filter((t) => which === 'both' || which === t);
  const title = (trust: 'trusted' | 'untrusted') =>
    `=== ${trust === 'trusted' ? 'trusted workspace' : 'Restricted Mode (untrusted workspace)'} ===`;
  installSignalHandlers();
  const chromium = await launchChromium();
  const stopChromium = () => chromium.close();
  cleanups.add(stopChromium);
  try {
    const held: [string, 'out' | 'err'][] = [];
    const runs = passes.map((trust, i) => {
      // The first pass prints as it goes; the other's lines wait for it.
      const print = i === 0 ? toConsole : (line: string, stream: 'out' | 'err') => void held.push([line, stream]);
      log(title(trust), print);
      return runHostTests({ trust, chromium, print }).catch((e: unknown) => {
        log(`ERROR: ${e instanceof Error ? e.message : String(e)}`, print);
        return 1;
      });
    });
    const codes: number[] = [];
    for (const run of runs) {
      codes.push(await run);
      for (const [line, stream] of held.splice(0)) toConsole(line, stream);
    }
    log(`passes: ${passes.map((t, i) => `${t}: ${codes[i] === 0 ? 'PASSED' : 'FAILED'}`).join(', ')}`);
    return codes.find((c) => c !== 0) ?? 0;
  } finally {
    await stopChromium();
    cleanups.delete(stopChromium);
  }
}

if (require.main === module) {
  runAllHostPasses().then(
    (code) => process.exit(code),
    (e: unknown) => {
      console.error(`[host-tests] ERROR: ${e instanceof Error ? e.message : String(e)}`);
      process.exit(1);
    },
  );
}
