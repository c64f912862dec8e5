/**
 * The claude-cli and codex-cli summarizers run the REAL, pinned agent CLIs (Claude Code against the fake Anthropic
 * server, Codex against the fake Responses API), each with a private HOME, as a user's own Claude Code / Codex:
 *  - the one model request carries the summarized rounds' text and our summarizing request, and nothing else of ours:
 *    Claude Code offers no tools at all; Codex offers only `request_user_input` (measured: it has no flag to remove
 *    it, and it cannot act in `exec` mode);
 *  - the fake's reply becomes the written summary, with the fidelity checklist measured on it;
 *  - the run leaves no session of its own in the fake HOME (Claude Code's projects folder, Codex's sessions folder);
 *  - a reply cut off by the output limit, or an error, falls back to the offline summary and says so;
 *  - an abort (and a timeout) kills the program: no process with the run's HOME is left.
 *
 * Run: bash scripts/provision-claude-code.sh && bash scripts/provision-codex.sh &&
 *      npx mocha --no-config --node-option import=tsx --timeout 600000 test/compat/agent-cli-summary.test.ts
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { compactFile } from '../../src/core/compact/compact';
import { CompactError, type CompactResult } from '../../src/core/compact/types';
import { SUMMARY_INSTRUCTIONS, summaryInstructions } from '../../src/core/compact/summarize/prompt';
import type { CompactSettings } from '../../src/core/compactSettings';
import { CLAUDE_CLI_SYSTEM_PROMPT } from '../../src/core/compact/summarize/claudeCli';
import { spawn } from 'node:child_process';
import { agentFixtures, fixture, repoRoot } from '../support/fixtures';
import { assertCliBuilt, CLI } from '../support/cli';
import { CLAUDE_CODE_VERSION, CODEX_VERSION, shortVersion } from '../support/pins';
import { contentTexts, requireClaudeBinary } from '../support/claude-code';
import { startFakeAnthropic, type FakeAnthropic, type ScenarioInput } from '../support/fake-anthropic';
import { startFakeResponses, type FakeResponses, type ResponsesScenario } from '../support/fake-responses';
import {
  codexBin,
  makeCodexHome,
  requireCodexBinary,
  startWebSocketRefusal,
  type CodexHome,
  type WebSocketRefusal,
} from '../support/codex';
import { tempDir } from '../support/temp';

const SETTINGS = { targetTokens: 20_000, keepRecentTokens: 4_000 };
const CLAUDE_REPLY =
  '<analysis>Read it all.</analysis>\n<summary>\nCLI-SUMMARY-MARKER: the user asked for the work; it goes on.\n</summary>';
const CODEX_REPLY =
  '<analysis>Read it all.</analysis>\n<summary>\nCODEX-CLI-SUMMARY-MARKER: the user asked for the work; it goes on.\n</summary>';

/** Files (recursively) under `dir`, relative; [] when it does not exist. */
function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => path.relative(dir, path.join(d.parentPath, d.name)));
}

/**
 * Proxy settings that keep everything but the loopback fakes on this machine: a logged-in Claude Code also asks
 * api.anthropic.com for the account's profile (measured: it carries on when that fails), and no test may send a
 * token there. Port 9 (discard) is closed here, so such a request fails at once.
 */
function offlineEnv(): NodeJS.ProcessEnv {
  const dead = 'http://127.0.0.1:9';
  return {
    HTTPS_PROXY: dead,
    HTTP_PROXY: dead,
    https_proxy: dead,
    http_proxy: dead,
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
  };
}

/** Processes of this user whose environment holds `NAME=value` (the run's private HOME: only its own child has it). */
function processesWithEnv(name: string, value: string): number[] {
  const wanted = `${name}=${value}`;
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0').includes(wanted)) pids.push(Number(entry));
    } catch {
      // gone, or not ours
    }
  }
  return pids;
}

/**
 * Waits until no process of this user has `NAME=value` in its environment, and returns those still there after
 * `limitMs`. The product SIGKILLs the program's whole process group before it settles; a killed process is gone once
 * the kernel has run it and its parent has reaped it, which on a busy machine is not at once (a CPU hog beside the
 * suite left three Codex processes listed at the first look). A process that left the group would stay: it is
 * returned, and the test fails.
 */
async function processesLeftWithEnv(name: string, value: string, limitMs = 30_000): Promise<number[]> {
  const started = Date.now();
  for (;;) {
    const left = processesWithEnv(name, value);
    if (left.length === 0 || Date.now() - started > limitMs) return left;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Resolves once `check` holds, polling on the event loop (no fixed sleep decides the outcome). */
async function until(check: () => boolean, what: string, limitMs = 120_000): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > limitMs) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The first prompt the user typed in a Claude Code transcript (a string content line). */
function firstUserPrompt(file: string): string {
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    try {
      const o = JSON.parse(line);
      if (
        o.type === 'user' &&
        !o.isMeta &&
        typeof o.message?.content === 'string' &&
        !o.message.content.startsWith('<')
      )
        return o.message.content;
    } catch {
      // not a line
    }
  }
  throw new Error(`no user prompt in ${file}`);
}

/** The first message the user typed in a Codex rollout (not the injected AGENTS.md or environment context). */
function firstCodexPrompt(file: string): string {
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    try {
      const o = JSON.parse(line);
      const p = o.payload;
      if (o.type !== 'response_item' || p?.type !== 'message' || p.role !== 'user') continue;
      const text = (p.content as any[]).map((c) => c.text ?? '').join('');
      if (!text.startsWith('#') && !text.startsWith('<')) return text;
    } catch {
      // not a line
    }
  }
  throw new Error(`no user prompt in ${file}`);
}

function userText(body: any): string {
  return (body.messages as any[])
    .filter((m) => m.role === 'user')
    .flatMap((m) => contentTexts(m.content))
    .join('\n');
}

function assertFellBack(
  result: CompactResult,
  strategy: 'claude-cli' | 'codex-cli',
  label: string,
  problem: RegExp,
): void {
  assert.equal(result.summarizer, 'extractive');
  const failed = result.attempts.find((a) => a.strategy === strategy);
  assert.ok(failed, `no ${strategy} attempt: ${JSON.stringify(result.attempts)}`);
  assert.equal(failed.outcome, 'error');
  assert.match(failed.detail, problem);
  const fallback = result.attempts[result.attempts.length - 1];
  assert.equal(fallback.strategy, 'extractive');
  assert.match(fallback.detail, new RegExp(`the ${label} summary failed .*fell back to the offline summary`));
  assert.ok(result.fidelity && result.fidelity.total > 0, 'no fidelity report');
}

describe(`claude-cli summarizer: the real Claude Code ${CLAUDE_CODE_VERSION} writes the summary (fake Anthropic API)`, function () {
  this.timeout(600_000);
  let bin: string;
  let root: string;
  let home: string;
  // Cleared after each test, so that a test waiting for its own fake's request never sees the previous one's.
  let fake: FakeAnthropic | undefined;

  before(() => {
    bin = requireClaudeBinary();
  });
  beforeEach(() => {
    root = fs.realpathSync(tempDir('ac-claude-cli-'));
    home = path.join(root, 'home');
    fs.mkdirSync(path.join(home, '.claude', 'projects'), { recursive: true });
  });
  afterEach(async () => {
    await fake?.close();
    fake = undefined;
    fs.rmSync(root, { recursive: true, force: true });
  });

  function env(): NodeJS.ProcessEnv {
    if (!fake) throw new Error('no fake server');
    return {
      ...offlineEnv(),
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      LANG: 'C.UTF-8',
      HOME: home,
      TMPDIR: root,
      ANTHROPIC_BASE_URL: fake.url,
      ANTHROPIC_API_KEY: 'fake-key',
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
    };
  }

  async function compactWith(
    scenario: ScenarioInput,
    extra: {
      signal?: AbortSignal;
      timeoutMs?: number;
      settings?: Partial<CompactSettings>;
      env?: (env: NodeJS.ProcessEnv) => NodeJS.ProcessEnv;
    } = {},
  ): Promise<{ copy: string; result: CompactResult; fake: FakeAnthropic }> {
    const own = await startFakeAnthropic({ scenario });
    fake = own;
    const copy = path.join(root, 'session.jsonl');
    fs.copyFileSync(fixture('example.jsonl'), copy);
    fs.chmodSync(copy, 0o644);
    const result = await compactFile(copy, {
      summarizer: 'claude-cli',
      settings: { ...SETTINGS, ...extra.settings },
      agentCli: { claudePath: bin, env: (extra.env ?? ((e) => e))(env()), timeoutMs: extra.timeoutMs },
      signal: extra.signal,
    });
    return { copy, result, fake: own };
  }

  it('sends the span and our request in one request with no tools, writes the reply as the summary, and keeps no session', async () => {
    const { copy, result, fake } = await compactWith({ kind: 'text', text: CLAUDE_REPLY });
    assert.equal(result.summarizer, 'claude-cli', JSON.stringify(result.attempts));
    assert.equal(result.plan.rounds[0].action, 'summarize');
    // Exactly one request reached the API, and it is the summary request.
    assert.deepEqual(
      fake.requests.map((r) => `${r.method} ${r.pathname}`),
      ['POST /v1/messages'],
    );
    const body = fake.requests[0].body;
    assert.deepEqual(body.tools, []);
    const sent = userText(body);
    assert.ok(sent.includes(firstUserPrompt(copy).slice(0, 200)), 'the first summarized prompt is not in the request');
    assert.ok(sent.includes(SUMMARY_INSTRUCTIONS), 'the summarizing request is not in the request');
    // The system prompt is ours (after Claude Code's own fixed lines).
    const system = (body.system as any[]).map((b) => b.text).join('\n');
    assert.ok(system.includes(CLAUDE_CLI_SYSTEM_PROMPT));
    // The reply is the written summary, measured by the fidelity checklist.
    assert.ok(fs.readFileSync(result.output, 'utf8').includes('CLI-SUMMARY-MARKER'));
    assert.ok(result.fidelity && result.fidelity.total > 0);
    // No session of its own among the user's sessions.
    assert.deepEqual(filesUnder(path.join(home, '.claude', 'projects')), []);
  });

  it("the request asks for the plan's detail level and gives the summary's room; a longer reply is clipped, and the clip is recorded in the attempts and the notes", async () => {
    const long = `<summary>\nCLIP-MARKER ${'the work goes on; '.repeat(2_000)}\n</summary>`;
    const { result, fake } = await compactWith({ kind: 'text', text: long }, { settings: { summaryDetail: 'brief' } });
    assert.equal(result.summarizer, 'claude-cli', JSON.stringify(result.attempts));
    const sent = userText(fake.messageRequests()[0].body);
    assert.ok(sent.includes(summaryInstructions('brief')), 'the brief request is not in the request');
    assert.ok(!sent.includes(SUMMARY_INSTRUCTIONS), 'the standard request was sent');
    const room = Number(/room for about (\d+) characters/.exec(sent)?.[1]);
    // The brief reserve (1,500 tokens) in characters, as the clip below measures it.
    assert.ok(room > 4_000 && room < 7_000, `room ${room}`);
    // The room told is the size the summary is clipped to.
    assert.equal(result.summaryChars, room + '\n[summary clipped to fit the target]'.length);
    const clipped = result.attempts.find((a) => a.outcome === 'clipped');
    assert.ok(clipped && clipped.strategy === 'claude-cli', JSON.stringify(result.attempts));
    assert.match(clipped.detail, new RegExp(`over the ${room} its reserve holds \\(1500 tokens, brief detail\\)`));
    assert.ok(result.plan.notes.includes(clipped.detail), JSON.stringify(result.plan.notes));
    const written = fs.readFileSync(result.output, 'utf8');
    assert.ok(written.includes('CLIP-MARKER') && written.includes('[summary clipped to fit the target]'));
  });

  it('a reply within its room is not clipped, and says nothing of a clip', async () => {
    const { result } = await compactWith({ kind: 'text', text: CLAUDE_REPLY }, { settings: { summaryDetail: 'full' } });
    assert.equal(result.summarizer, 'claude-cli');
    assert.ok(!result.attempts.some((a) => a.outcome === 'clipped'));
    assert.ok(!fs.readFileSync(result.output, 'utf8').includes('[summary clipped'));
  });

  it('logged in with no API key (a subscription: the credentials /login stores): the request carries the login, no key, and the summary is written', async () => {
    // What `claude /login` stores for a subscription (a made-up token: the fake checks nothing, and nothing goes further).
    fs.writeFileSync(
      path.join(home, '.claude', '.credentials.json'),
      JSON.stringify({
        claudeAiOauth: {
          accessToken: 'sk-ant-oat01-fake-login',
          refreshToken: 'sk-ant-ort01-fake-login',
          expiresAt: Date.now() + 24 * 3600_000,
          scopes: ['user:inference', 'user:profile'],
          subscriptionType: 'max',
        },
      }),
      { mode: 0o600 },
    );
    const { result, fake } = await compactWith(
      { kind: 'text', text: CLAUDE_REPLY },
      {
        env: (e) => {
          const { ANTHROPIC_API_KEY: _key, ...rest } = e;
          return rest;
        },
      },
    );
    assert.equal(result.summarizer, 'claude-cli', JSON.stringify(result.attempts));
    // One request, the summary's, with the login (the account profile Claude Code asks api.anthropic.com for does
    // not come here, and the proxy settings keep it on this machine).
    assert.deepEqual(
      fake.requests.map((r) => `${r.method} ${r.pathname}`),
      ['POST /v1/messages'],
    );
    const [request] = fake.messageRequests();
    assert.equal(request.headers.authorization, true, 'no bearer login was sent');
    assert.equal(request.headers['x-api-key'], undefined, 'an API key was sent');
    assert.ok(fs.readFileSync(result.output, 'utf8').includes('CLI-SUMMARY-MARKER'));
  });

  it('a reply cut off by max_tokens falls back to the offline summary and says so', async () => {
    const { result } = await compactWith({ kind: 'text', stopReason: 'max_tokens', text: '<analysis>cut here' });
    assertFellBack(result, 'claude-cli', 'Claude Code', /output token maximum/);
    assert.ok(!fs.readFileSync(result.output, 'utf8').includes('cut here'));
  });

  it('an API error falls back to the offline summary and says so', async () => {
    const { result } = await compactWith({ kind: 'invalidRequest', message: 'FAKE-REFUSAL' });
    assertFellBack(result, 'claude-cli', 'Claude Code', /FAKE-REFUSAL/);
    assert.deepEqual(filesUnder(path.join(home, '.claude', 'projects')), []);
  });

  it('an abort kills Claude Code while it waits for the API; nothing is written', async () => {
    const controller = new AbortController();
    const copyDir = root;
    const waiting = compactWith({ kind: 'hang' }, { signal: controller.signal });
    await until(() => fake?.messageRequests().length === 1, 'the summary request');
    assert.ok(processesWithEnv('HOME', home).length > 0, 'Claude Code is not running');
    controller.abort();
    await assert.rejects(waiting, (err: unknown) => err instanceof CompactError && err.code === 'cancelled');
    assert.deepEqual(await processesLeftWithEnv('HOME', home), []);
    assert.deepEqual(
      fs.readdirSync(copyDir).filter((n) => n.endsWith('.jsonl')),
      ['session.jsonl'],
    );
  });

  it('a run past the timeout is killed and the offline summary used', async () => {
    // The fake never answers, so the timeout always ends the run: its length decides nothing else, and the shortest the
    // product states (whole seconds) is waited for, not more.
    const { result } = await compactWith({ kind: 'hang' }, { timeoutMs: 1_000 });
    assertFellBack(result, 'claude-cli', 'Claude Code', /did not finish the summary within 1 s/);
    assert.deepEqual(await processesLeftWithEnv('HOME', home), []);
  });

  it('the CLI: compact --summarizer claude-cli --claude-path runs it with the environment passed through, and says so', async () => {
    const own = await startFakeAnthropic({ scenario: { kind: 'text', text: CLAUDE_REPLY } });
    fake = own;
    const copy = path.join(root, 'session.jsonl');
    fs.copyFileSync(fixture('example.jsonl'), copy);
    // The built command line (the tier builds it first), not the source through tsx: compiling the whole CLI in a
    // child cost more than the Claude Code run it makes.
    assertCliBuilt();
    const args = [
      CLI,
      'compact',
      copy,
      '--summarizer',
      'claude-cli',
      '--claude-path',
      bin,
      '--target-tokens',
      '20000',
      '--keep-recent-tokens',
      '4000',
    ];
    const child = spawn(process.execPath, args, { cwd: repoRoot, env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(code, 0, stderr);
    assert.match(
      stdout,
      /^summarizer: claude-cli; the summarized rounds were given to your Claude Code \(claude -p\), which sent them to its API$/m,
    );
    assert.match(stderr, /Asking Claude Code for the summary/);
    assert.equal(own.messageRequests().length, 1);
    const written = /^wrote (.+)$/m.exec(stdout)?.[1];
    assert.ok(written && fs.readFileSync(written, 'utf8').includes('CLI-SUMMARY-MARKER'));
    assert.deepEqual(filesUnder(path.join(home, '.claude', 'projects')), []);
  });

  it('refuses a Codex rollout before anything is sent', async () => {
    const own = await startFakeAnthropic();
    fake = own;
    const copy = path.join(root, path.basename(agentFixtures('codex')[0]));
    fs.copyFileSync(agentFixtures('codex')[0], copy);
    await assert.rejects(
      compactFile(copy, { summarizer: 'claude-cli', settings: SETTINGS, agentCli: { claudePath: bin, env: env() } }),
      (err: unknown) =>
        err instanceof CompactError && err.code === 'wrong-summarizer' && /Claude Code sessions only/.test(err.message),
    );
    assert.equal(own.requests.length, 0);
  });
});

describe(`codex-cli summarizer: the real Codex ${shortVersion(CODEX_VERSION)} writes the summary (fake Responses API)`, function () {
  this.timeout(600_000);
  // Cleared after each test, so that a test waiting for its own fake's request never sees the previous one's.
  let fake: FakeResponses | undefined;
  // Codex's home points at this front of the fake: it answers Codex's WebSocket attempts 426, on which Codex goes to
  // HTTP at once (answered 404 it reconnects five times with backoff first), and passes every other request through.
  let front: WebSocketRefusal | undefined;
  let home: CodexHome;
  let work: string;

  before(() => requireCodexBinary());
  afterEach(async () => {
    await front?.close();
    front = undefined;
    await fake?.close();
    fake = undefined;
    fs.rmSync(home.root, { recursive: true, force: true });
    fs.rmSync(work, { recursive: true, force: true });
  });

  async function compactWith(
    reply: string,
    scenario: ResponsesScenario,
    extra: { signal?: AbortSignal; settings?: Partial<CompactSettings> } = {},
  ): Promise<{ copy: string; result: CompactResult }> {
    const own = await startFakeResponses(reply, scenario);
    fake = own;
    front = await startWebSocketRefusal(own);
    home = makeCodexHome({ ...own, url: front.url });
    work = tempDir('ac-codex-cli-');
    const source = agentFixtures('codex').find((f) => f.endsWith('rollout-0.140.jsonl'))!;
    const copy = path.join(work, path.basename(source));
    fs.copyFileSync(source, copy);
    fs.chmodSync(copy, 0o644);
    const env = {
      ...offlineEnv(),
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: home.root,
      CODEX_HOME: home.codexHome,
      OPENAI_API_KEY: 'sk-fake-test',
      LANG: 'C.UTF-8',
      TMPDIR: home.root,
    };
    const result = await compactFile(copy, {
      summarizer: 'codex-cli',
      settings: { targetTokens: 60_000, ...extra.settings },
      agentCli: { codexPath: codexBin, env },
      signal: extra.signal,
    });
    return { copy, result };
  }

  it('sends the span and our request with no tools but request_user_input, writes the reply, and keeps no rollout', async () => {
    const { copy, result } = await compactWith(CODEX_REPLY, 'text');
    assert.equal(result.summarizer, 'codex-cli', JSON.stringify(result.attempts));
    const requests = fake!.responsesRequests();
    assert.equal(requests.length, 1);
    const body = requests[0].body as any;
    assert.deepEqual(
      (body.tools as any[]).map((t) => t.name ?? t.type),
      ['request_user_input'],
    );
    const userItems = (body.input as any[])
      .filter((i) => i.type === 'message' && i.role === 'user')
      .map((i) => (i.content as any[]).map((c) => c.text ?? '').join(''));
    const ours = userItems.find((t) => t.includes('<conversation>'));
    assert.ok(ours, 'our request is not among the user messages');
    assert.ok(ours.includes(SUMMARY_INSTRUCTIONS));
    // The first thing the user typed (in the first round, summarized) is in the request.
    assert.equal(result.plan.rounds[0].action, 'summarize');
    assert.ok(ours.includes(firstCodexPrompt(copy).slice(0, 200)), 'the first summarized prompt is not in the request');
    assert.ok(result.fidelity && result.fidelity.total > 0);
    assert.ok(fs.readFileSync(result.output, 'utf8').includes('CODEX-CLI-SUMMARY-MARKER'));
    assert.deepEqual(filesUnder(path.join(home.codexHome, 'sessions')), []);
    // Nothing else reached the fake: besides the one request, only Codex's WebSocket attempts at the same path
    // (measured with 0.169: bodiless GETs, answered 426 by the front, before it falls back to HTTP), nothing else of
    // ours.
    const others = fake!.requests.filter((r) => r !== requests[0]);
    for (const r of others) {
      assert.deepEqual([r.method, r.pathname, r.body], ['GET', '/v1/responses', undefined]);
    }
    for (const r of front!.refused) assert.deepEqual([r.method, r.pathname, r.bodyBytes], ['GET', '/v1/responses', 0]);
  });

  it("the request asks for the plan's detail level and gives the summary's room; a longer reply is clipped, and the clip is recorded", async () => {
    const long = `<summary>\nCODEX-CLIP-MARKER ${'the work goes on; '.repeat(2_000)}\n</summary>`;
    const { result } = await compactWith(long, 'text', { settings: { summaryDetail: 'brief' } });
    assert.equal(result.summarizer, 'codex-cli', JSON.stringify(result.attempts));
    const body = fake!.responsesRequests()[0].body as any;
    const ours = (body.input as any[])
      .filter((i) => i.type === 'message' && i.role === 'user')
      .map((i) => (i.content as any[]).map((c) => c.text ?? '').join(''))
      .find((t) => t.includes('<conversation>'))!;
    assert.ok(ours.includes(summaryInstructions('brief')) && !ours.includes(SUMMARY_INSTRUCTIONS));
    const room = Number(/room for about (\d+) characters/.exec(ours)?.[1]);
    assert.equal(result.summaryChars, room + '\n[summary clipped to fit the target]'.length);
    const clipped = result.attempts.find((a) => a.outcome === 'clipped');
    assert.ok(clipped && clipped.strategy === 'codex-cli', JSON.stringify(result.attempts));
    assert.ok(result.plan.notes.includes(clipped.detail));
    assert.ok(fs.readFileSync(result.output, 'utf8').includes('CODEX-CLIP-MARKER'));
  });

  it('a reply cut off by the output limit falls back to the offline summary and says so', async () => {
    const { result } = await compactWith('<analysis>cut here', 'incomplete');
    assertFellBack(result, 'codex-cli', 'Codex', /cut off by the output limit/);
    assert.deepEqual(filesUnder(path.join(home.codexHome, 'sessions')), []);
  });

  it('an API error falls back to the offline summary and says so', async () => {
    const { result } = await compactWith(CODEX_REPLY, 'badRequest');
    assertFellBack(result, 'codex-cli', 'Codex', /this request is refused/);
  });

  it('an abort kills Codex while it waits for the API; nothing is written', async () => {
    const controller = new AbortController();
    const waiting = compactWith(CODEX_REPLY, 'hang', { signal: controller.signal });
    await until(() => fake?.responsesRequests().length === 1, 'the summary request');
    assert.ok(processesWithEnv('CODEX_HOME', home.codexHome).length > 0, 'Codex is not running');
    controller.abort();
    await assert.rejects(waiting, (err: unknown) => err instanceof CompactError && err.code === 'cancelled');
    assert.deepEqual(await processesLeftWithEnv('CODEX_HOME', home.codexHome), []);
    assert.deepEqual(fs.readdirSync(work), [
      path.basename(agentFixtures('codex').find((f) => f.endsWith('rollout-0.140.jsonl'))!),
    ]);
  });
});
