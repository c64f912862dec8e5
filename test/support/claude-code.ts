/**
 * Harness: run the REAL Claude Code CLI (pinned, provisioned by scripts/provision-claude-code.sh) offline against
 * the local fake Anthropic server (./fake-anthropic.ts), resuming a transcript we give it, and capture the request
 * Claude Code actually builds from that transcript.
 *
 * ============================================================================================================
 * FACTS ESTABLISHED BY EXPERIMENT (Claude Code 2.1.330, linux-x64 native binary, Node 20 host, this machine)
 * ============================================================================================================
 * Invocation: `claude -p --resume <uuid> "<prompt>"`, cwd = the project dir, stdin = /dev/null, env = a private
 * HOME + ANTHROPIC_BASE_URL / ANTHROPIC_API_KEY / DISABLE_TELEMETRY / DISABLE_ERROR_REPORTING /
 * CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC / DISABLE_AUTOUPDATER (plus PATH, LANG, TMPDIR, XDG_* pointed into the
 * private temp dir; without TMPDIR it leaves `fswatch-probe-*` dirs in /tmp/claude-<uid>/).
 *
 * Requests on resume:
 *  - With CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 it sends exactly ONE HTTP request per model turn:
 *    `POST /v1/messages?beta=true`, `stream: true`. No count_tokens, no /v1/models, no title/quota/haiku side
 *    calls, nothing to any other host (all runs' recorded paths were only that one). Headers: `x-api-key`,
 *    `anthropic-version: 2023-06-01`, `anthropic-beta: claude-code-20250219,...`, `user-agent: claude-cli/2.1.330
 *    (external, sdk-cli)`, `x-claude-code-session-id: <uuid>`, `x-app: cli`.
 *  - Body: `model` = the model of the transcript's last assistant turn (e.g. claude-sonnet-4-6 for
 *    v2.1.97-live-after) unless retired: then it appends a `system`/`informational` line "Session model … could not
 *    be restored (retired) — using claude-opus-5-5" and uses `claude-opus-5-5`; `max_tokens` 32000 / 128000,
 *    `thinking: {type:'adaptive'}`, `context_management`, `output_config`, 12 `tools`, `system` = 3 text blocks
 *    (billing header, "You are a Claude agent, built on Anthropic's Claude Agent SDK.", the main prompt),
 *    `metadata.user_id` (JSON string holding session_id).
 *  - `messages` contains role "system" entries in addition to user/assistant (e.g. `{role:'system', content: [],
 *    output_config:{…}}` right after the first user message, and an "# Environment" system message at the end;
 *    in /compact requests a final `{role:'system', content:"Today's date is …"}`). Checks below skip them.
 *  - The new prompt is the last text block of the last user message (after a <system-reminder> text block). When
 *    the file ends with a user entry (example.jsonl: "[Request interrupted by user]"), Claude Code first inserts an
 *    assistant "No response requested." so roles still alternate; consecutive user entries (tool_result + text)
 *    are merged into one user message.
 *  - MAIN REQUEST = the /v1/messages request with non-empty `tools` whose last user message contains the prompt
 *    text (`pickMainRequest`). For "/compact" it is the summarize request: its last user message ends with the
 *    compaction instruction ("…an <analysis> block followed by a <summary> block…"), `isCompactRequest`.
 *  - /compact sends one summarize request (same system/tools, the whole chain, instruction appended as text to the
 *    last user message). If the answer has no <summary>…</summary> block it retries once with an extra paragraph
 *    ("For this reply only: write what the instructions above ask for, with the summary inside <summary></summary>
 *    tags…") and then accepts whatever text it got. With DEFAULT_SUMMARY_TEXT it sends exactly one request.
 *    It then appends: the `system`/`compact_boundary` line (parentUuid null, logicalParentUuid, compactMetadata
 *    {trigger:'manual', preTokens, durationMs, preservedSegment{headUuid, anchorUuid, tailUuid}, …}), the
 *    `isCompactSummary` user line ("This session is being continued from a previous conversation that ran out of
 *    context. …" + the summary text + the path of the full transcript), the /compact command lines
 *    (<local-command-caveat>, <command-name>/compact…, <local-command-stdout>Compacted …) and attachments.
 *    stdout is empty, exit code 0.
 *
 * Errors (fake scenarios, observed):
 *  - prompt-too-long on the main request: Claude Code compacts reactively: a series of summarize requests
 *    (isCompactRequest) on shorter and shorter prefixes (example.jsonl: 31 msgs main, then 29,29,27,27,…,5,5), all
 *    PTL here, then gives up: exit 1, stdout "Prompt is too long", a synthetic assistant line
 *    (`isApiErrorMessage: true`, text "Prompt is too long") appended. ~1 s.
 *  - `/compact` with ptlUntilUnder(maxEstimatedTokens 30000) on with-compactions.jsonl: 400s at 43, 21, 11, 5, 3
 *    messages, then a 200 with a truncated request; boundary + summary written, exit 0.
 *  - 529 overloaded on every request: 3 attempts (x-stainless-retry-count stays "0": Claude Code retries itself),
 *    exit 1 after ~2.5 s, stdout "API Error: Repeated 529 Overloaded errors. …".
 *
 * Session id / file name:
 *  - `--resume` in -p mode needs a UUID (or a session title): `--resume test-session-plan` fails with exit 1,
 *    "--resume requires a valid session ID or session title when used with --print … is not a UUID".
 *  - Only the FILE NAME matters: a transcript whose lines carry another sessionId (or a non-UUID one, as
 *    plan-mode.jsonl) resumes fine when stored as `<any-uuid>.jsonl`; the lines Claude Code appends carry the file
 *    name's uuid as sessionId. So the `sessionId` fields need NOT be consistent with the file name.
 *  - The entries' own `cwd` fields do not matter either (fixtures with /Users/... cwds resume fine); only the
 *    project folder, derived from the process cwd (realpath) with every non-alphanumeric char replaced by '-'.
 *  - Claude Code appends the new turn to the SAME file (it never forks a new file on `--resume` without
 *    `--fork-session`), plus metadata lines: `last-prompt` {lastPrompt, leafUuid}, `mode`, `atis-latch`,
 *    `tools-used`, `queue-operation`, `api-request-shape` / `api-request-blob` / `api-request`, `cost-state`.
 *    The first appended chain entry's parentUuid is the last user/assistant entry on the chain walked from the
 *    leaf (leaf = `last-prompt`.leafUuid when it names an entry, else the last non-sidechain entry in file order):
 *    trailing `progress` lines after it are not continued from (`resumeAnchor`). What gets appended first depends
 *    on the tail: an assistant "No response requested." when the file ends with "[Request interrupted by user]", a
 *    `system` entry, or directly the new `user` entry.
 *  - A file whose entries are ALL `isSidechain: true` (a subagent transcript such as v2.1.63-subagent.jsonl, i.e.
 *    `<session>/subagents/agent-*.jsonl` content) is not resumable: exit 1, stderr "No conversation found with
 *    session ID: <uuid>", no request sent.
 *  - Malformed lines are skipped silently (malformed-joined-lines.jsonl resumes fine).
 *  - Claude Code 2.1.330 sends role "system" messages inside `messages` (see above) and may send two consecutive
 *    assistant messages (plan-mode.jsonl: "usaauaauaus"); user/assistant otherwise alternate.
 *
 * Timing: a resume run takes ~0.5–1 s wall clock on an idle machine (up to ~3 s under load; the largest request,
 * v2.1.97-images at ~2 MB of transcript, ~0.9–1.8 s); /compact ~0.8 s (+ the resume of its result ~0.6 s). The whole
 * compat suite (16 Claude Code runs) ~12–20 s. Provisioning: ~6 s cold (npm, 2 packages, ~364 MB), ~0.0 s warm.
 * ============================================================================================================
 */
import { spawn } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DEFAULT_SUMMARY_TEXT, startFakeAnthropic, type FakeAnthropic, type RecordedRequest } from './fake-anthropic';
import { CLAUDE_CODE_VERSION } from './pins';
import { keepTempDir, tempDir } from './temp';

/** The pinned version, read from CLAUDE_CODE_VERSION in scripts/provision-claude-code.sh (./pins.ts). */
export { CLAUDE_CODE_VERSION };
export const REPO_ROOT = path.resolve(__dirname, '..', '..');
export const PROVISION_COMMAND = 'bash scripts/provision-claude-code.sh';

/** Path of the provisioned binary (override with env CLAUDE_CODE_BIN). */
export function claudeBinaryPath(): string {
  return (
    process.env.CLAUDE_CODE_BIN ??
    path.join(REPO_ROOT, '.cache', 'claude-code', 'node_modules', '@anthropic-ai', 'claude-code-linux-x64', 'claude')
  );
}

/** The binary path, or an Error telling how to provision it. Tests must FAIL (not skip) when it is missing. */
export function requireClaudeBinary(): string {
  const bin = claudeBinaryPath();
  let ok: boolean;
  try {
    fs.accessSync(bin, fs.constants.X_OK);
    ok = true;
  } catch {
    ok = false;
  }
  if (!ok) {
    throw new Error(
      `Claude Code binary not found (or not executable) at ${bin}. ` +
        `Run \`${PROVISION_COMMAND}\` from ${REPO_ROOT} first (installs @anthropic-ai/claude-code@${CLAUDE_CODE_VERSION} into .cache/claude-code).`,
    );
  }
  return bin;
}

/** `~/.claude/projects/<this>` for a cwd: every non-alphanumeric character replaced by '-'. */
export function projectDirName(cwd: string): string {
  return cwd.replace(/[^a-zA-Z0-9]/g, '-');
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export function isUuid(s: unknown): s is string {
  return typeof s === 'string' && UUID_RE.test(s);
}

/** Parse JSONL, silently skipping malformed lines (as Claude Code does). */
export function parseJsonl(text: string): any[] {
  const out: any[] = [];
  for (const line of text.split('\n')) {
    const t = line.trim();
    if (!t) continue;
    try {
      const o = JSON.parse(t);
      if (o && typeof o === 'object') out.push(o);
    } catch {
      /* skip */
    }
  }
  return out;
}

/** The most frequent UUID-shaped `sessionId` of a transcript, or undefined. */
export function sessionIdOf(text: string): string | undefined {
  const counts = new Map<string, number>();
  for (const o of parseJsonl(text)) {
    if (isUuid(o.sessionId)) counts.set(o.sessionId, (counts.get(o.sessionId) ?? 0) + 1);
  }
  let best: string | undefined;
  let n = 0;
  for (const [k, v] of counts) if (v > n) [best, n] = [k, v];
  return best;
}

// ---------------------------------------------------------------------------------------------------------------
// Request analysis helpers (reusable by the compatibility suite for compacted output)

/** Text pieces of a message content (string, text blocks, tool_result content), in order. */
export function contentTexts(content: any): string[] {
  const out: string[] = [];
  const walk = (c: any) => {
    if (c == null) return;
    if (typeof c === 'string') return void out.push(c);
    if (Array.isArray(c)) return void c.forEach(walk);
    if (typeof c !== 'object') return;
    if (c.type === 'text' && typeof c.text === 'string') out.push(c.text);
    else if (c.type === 'tool_result') walk(c.content);
  };
  walk(content);
  return out;
}

/** All text of a request's messages, joined by '\n' (for "contains" assertions). */
export function requestText(body: any): string {
  const msgs: any[] = Array.isArray(body?.messages) ? body.messages : [];
  return msgs.flatMap((m) => contentTexts(m?.content)).join('\n');
}

function lastUserText(body: any): string {
  const msgs: any[] = Array.isArray(body?.messages) ? body.messages : [];
  for (let i = msgs.length - 1; i >= 0; i--) {
    if (msgs[i]?.role === 'user') return contentTexts(msgs[i].content).join('\n');
  }
  return '';
}

/** True when the body is Claude Code's (or any) compaction request: last user message asks for <analysis>/<summary>. */
export function isCompactRequest(body: any): boolean {
  const t = lastUserText(body);
  return /<analysis>/.test(t) && /<summary>/.test(t) && /summary/i.test(t);
}

/**
 * Pick the request carrying the conversation among recorded /v1/messages requests: non-empty `tools` and a last
 * user message containing `prompt` (for '/compact': a compaction request, the last one). Falls back to the
 * request with the most messages.
 */
export function pickMainRequest(reqs: RecordedRequest[], prompt: string): RecordedRequest | undefined {
  const withConv = reqs.filter((r) => Array.isArray(r.body?.messages) && r.body.messages.length > 0);
  if (prompt.trim() === '/compact') {
    const compacts = withConv.filter((r) => isCompactRequest(r.body));
    if (compacts.length) return compacts[compacts.length - 1];
  } else {
    const main = withConv.find(
      (r) => Array.isArray(r.body.tools) && r.body.tools.length > 0 && lastUserText(r.body).includes(prompt),
    );
    if (main) return main;
  }
  let best: RecordedRequest | undefined;
  for (const r of withConv) if (!best || r.body.messages.length > best.body.messages.length) best = r;
  return best;
}

/**
 * Structural checks of a Messages API request body, as the real API enforces them. Returns a list of problems
 * (empty = fine). Messages with role "system" (Claude Code 2.1.330 sends some) are skipped when pairing.
 *  - messages non-empty, first message role user;
 *  - every tool_use of an assistant message is answered by a tool_result in the next (non-system) message, which
 *    must be a user message;
 *  - every tool_result answers a tool_use of the immediately preceding (non-system) assistant message;
 *  - tool_use ids unique.
 */
export function checkRequestInvariants(body: any): string[] {
  const problems: string[] = [];
  const msgs: any[] = Array.isArray(body?.messages) ? body.messages : [];
  if (msgs.length === 0) return ['messages is empty'];
  if (msgs[0]?.role !== 'user') problems.push(`first message has role ${msgs[0]?.role}, expected user`);
  const blocks = (m: any): any[] => (Array.isArray(m?.content) ? m.content : []);
  const seenIds = new Set<string>();
  const conv = msgs.map((m, i) => ({ m, i })).filter(({ m }) => m?.role !== 'system');
  for (let k = 0; k < conv.length; k++) {
    const { m, i } = conv[k];
    if (m.role === 'assistant') {
      const ids = blocks(m)
        .filter((b) => b?.type === 'tool_use')
        .map((b) => String(b.id));
      for (const id of ids) {
        if (seenIds.has(id)) problems.push(`messages[${i}]: duplicate tool_use id ${id}`);
        seenIds.add(id);
      }
      if (ids.length) {
        const next = conv[k + 1];
        if (!next) {
          problems.push(`messages[${i}]: tool_use ${ids.join(', ')} is the last message (no tool_result)`);
        } else if (next.m.role !== 'user') {
          problems.push(`messages[${i}]: tool_use followed by role ${next.m.role}, not a user tool_result`);
        } else {
          const answered = new Set(
            blocks(next.m)
              .filter((b) => b?.type === 'tool_result')
              .map((b) => String(b.tool_use_id)),
          );
          for (const id of ids) {
            if (!answered.has(id)) problems.push(`messages[${i}]: tool_use ${id} not answered in messages[${next.i}]`);
          }
        }
      }
    } else if (m.role === 'user') {
      const results = blocks(m).filter((b) => b?.type === 'tool_result');
      if (results.length) {
        const prev = conv[k - 1];
        const offered = new Set(
          prev?.m.role === 'assistant'
            ? blocks(prev.m)
                .filter((b) => b?.type === 'tool_use')
                .map((b) => String(b.id))
            : [],
        );
        for (const r of results) {
          if (!offered.has(String(r.tool_use_id))) {
            problems.push(
              `messages[${i}]: orphan tool_result for ${r.tool_use_id} (not in the preceding assistant message)`,
            );
          }
        }
      }
    } else {
      problems.push(`messages[${i}]: unexpected role ${m.role}`);
    }
  }
  return problems;
}

/**
 * The main chain of a transcript, root first: leaf = the last `last-prompt` entry's `leafUuid` when it names an
 * existing entry, else the last non-sidechain entry with a uuid in file order; then follow `parentUuid`.
 * (A simplified reader: no dangling-parent repair, no parallel-tool-call siblings; good enough for the tail.)
 */
export function mainChain(text: string): any[] {
  const entries = parseJsonl(text);
  const byUuid = new Map<string, any>();
  for (const e of entries) if (typeof e.uuid === 'string') byUuid.set(e.uuid, e);
  let leaf: any;
  for (const e of entries) {
    if (e.type === 'last-prompt' && typeof e.leafUuid === 'string' && byUuid.has(e.leafUuid))
      leaf = byUuid.get(e.leafUuid);
  }
  if (!leaf) {
    for (const e of entries) if (typeof e.uuid === 'string' && e.isSidechain !== true) leaf = e;
  }
  const chain: any[] = [];
  const seen = new Set<string>();
  for (let cur = leaf; cur && !seen.has(cur.uuid); cur = cur.parentUuid ? byUuid.get(cur.parentUuid) : undefined) {
    seen.add(cur.uuid);
    chain.push(cur);
  }
  return chain.reverse();
}

/**
 * The entry Claude Code continues from: the last user/assistant entry on the main chain (trailing progress /
 * attachment / system entries after it are skipped). Observed: the first entry Claude Code appends on resume has
 * this entry's uuid as parentUuid (e.g. with-compactions.jsonl ends with two `progress` lines after the last
 * assistant line; malformed-joined-lines.jsonl ends with a run of `progress` lines under a `Task` tool_use).
 */
export function resumeAnchor(text: string): any {
  const chain = mainChain(text);
  for (let i = chain.length - 1; i >= 0; i--) {
    if (chain[i].type === 'user' || chain[i].type === 'assistant') return chain[i];
  }
  return undefined;
}

/**
 * The last `count` user/assistant text pieces at the end of the main chain (oldest first), skipping meta,
 * synthetic API-error entries and command/system-reminder wrappers. Each trimmed and cut to `maxLen` chars.
 */
export function chainTailTexts(text: string, count = 3, maxLen = 200): string[] {
  const out: string[] = [];
  const chain = mainChain(text);
  for (let i = chain.length - 1; i >= 0 && out.length < count; i--) {
    const e = chain[i];
    if (e.type !== 'user' && e.type !== 'assistant') continue;
    if (e.isMeta || e.isApiErrorMessage || e.message?.model === '<synthetic>') continue;
    const content = e.message?.content;
    const pieces =
      typeof content === 'string'
        ? [content]
        : Array.isArray(content)
          ? content.filter((b: any) => b?.type === 'text' && typeof b.text === 'string').map((b: any) => b.text)
          : [];
    for (let j = pieces.length - 1; j >= 0 && out.length < count; j--) {
      const t = String(pieces[j]).trim();
      if (!t || /<(command-|local-command|system-reminder)/.test(t)) continue;
      out.push(t.slice(0, maxLen));
    }
  }
  return out.reverse();
}

// ---------------------------------------------------------------------------------------------------------------
// Running Claude Code

export interface ClaudeRunOptions {
  /** Transcript to resume (copied; the original is never touched). */
  sessionFile: string;
  /** Working directory for Claude Code (default: a fresh empty dir inside the private temp root). */
  cwd?: string;
  prompt: string;
  /** Fake server to talk to. When omitted, a private one is started (default scenario) and closed afterwards. */
  fake?: FakeAnthropic;
  /** Session uuid / file name (default: the transcript's UUID sessionId, else a random UUID). */
  sessionId?: string;
  /** Hard timeout; the whole process group is SIGKILLed after it (default 120 s). */
  timeoutMs?: number;
  /** Extra CLI arguments inserted before the prompt. */
  extraArgs?: string[];
  /** Extra environment variables. */
  env?: Record<string, string>;
  /** Keep the temp dir (also when env KEEP_CLAUDE_HOME=1); otherwise call result.cleanup(). */
  keepTemp?: boolean;
}

export interface SpawnClaudeResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  durationMs: number;
}

export interface ClaudeRunResult extends SpawnClaudeResult {
  sessionId: string;
  /** The private temp root (HOME is `<tempRoot>/home`). */
  tempRoot: string;
  home: string;
  cwd: string;
  /** The /v1/messages requests recorded during the run. */
  requests: RecordedRequest[];
  /** Every request (any path) recorded during the run. */
  allRequests: RecordedRequest[];
  /** The request carrying the conversation (see pickMainRequest). */
  mainRequest: RecordedRequest | undefined;
  /** Path of the transcript after the run (inside the temp HOME; gone after cleanup()). */
  resumedFile: string;
  /** Content of resumedFile after the run (kept after cleanup()). */
  resumedText: string;
  /** Content as given (before the run). */
  originalText: string;
  /** Parsed lines Claude Code appended (resumedText minus the original prefix). */
  appendedLines: any[];
  /** Remove the temp dir. Idempotent. */
  cleanup(): void;
}

export interface CompactRunResult extends ClaudeRunResult {
  /** `system` / `compact_boundary` lines appended by Claude Code's own compaction. */
  compactBoundaries: any[];
  /** `isCompactSummary` user lines appended by it. */
  compactSummaries: any[];
}

export interface SpawnClaudeOptions {
  bin: string;
  args: string[];
  cwd: string;
  /** HOME of the run: Claude Code reads `<home>/.claude/projects/<project>/<session>.jsonl`. */
  home: string;
  tmp: string;
  fake: FakeAnthropic;
  env?: Record<string, string>;
  timeoutMs?: number;
}

/** Runs the real Claude Code offline against `fake` with a private HOME (see the facts above). */
export async function spawnClaude(o: SpawnClaudeOptions): Promise<SpawnClaudeResult> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    LANG: 'C.UTF-8',
    HOME: o.home,
    TMPDIR: o.tmp,
    XDG_CONFIG_HOME: path.join(o.home, '.config'),
    XDG_DATA_HOME: path.join(o.home, '.local', 'share'),
    XDG_CACHE_HOME: path.join(o.home, '.cache'),
    ANTHROPIC_BASE_URL: o.fake.url,
    ANTHROPIC_API_KEY: 'fake-key',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    NO_COLOR: '1',
    ...(o.env ?? {}),
  };
  const timeoutMs = o.timeoutMs ?? 120_000;
  const t0 = Date.now();
  let timedOut = false;
  let stdout = '';
  let stderr = '';
  const child = spawn(o.bin, o.args, { cwd: o.cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const killGroup = () => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  };
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup();
  }, timeoutMs);
  const [exitCode, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, sig) => resolve([code, sig]));
  });
  clearTimeout(timer);
  killGroup(); // anything it left behind in its process group
  return { exitCode, signal, timedOut, stdout, stderr, durationMs: Date.now() - t0 };
}

/** Resume `sessionFile` with the real Claude Code and a prompt; see the facts above. */
export async function resumeWithClaude(opts: ClaudeRunOptions): Promise<ClaudeRunResult> {
  const bin = requireClaudeBinary();
  const originalText = fs.readFileSync(opts.sessionFile, 'utf8');
  const sessionId = opts.sessionId ?? sessionIdOf(originalText) ?? crypto.randomUUID();
  if (!isUuid(sessionId))
    throw new Error(`sessionId must be a UUID (Claude Code -p --resume requires one): ${String(sessionId)}`);

  const tempRoot = fs.realpathSync(tempDir('agent-compactor-cc-'));
  const home = path.join(tempRoot, 'home');
  const tmp = path.join(tempRoot, 'tmp');
  fs.mkdirSync(home, { recursive: true });
  fs.mkdirSync(tmp, { recursive: true });
  let cwd: string;
  if (opts.cwd) {
    cwd = fs.realpathSync(opts.cwd);
  } else {
    cwd = path.join(tempRoot, 'project');
    fs.mkdirSync(cwd, { recursive: true });
  }
  const projectDir = path.join(home, '.claude', 'projects', projectDirName(cwd));
  fs.mkdirSync(projectDir, { recursive: true });
  const resumedFile = path.join(projectDir, `${sessionId}.jsonl`);
  fs.writeFileSync(resumedFile, originalText);

  const ownFake = !opts.fake;
  const fake = opts.fake ?? (await startFakeAnthropic());
  const before = new Set(fake.requests);

  const run = await spawnClaude({
    bin,
    args: ['-p', '--resume', sessionId, ...(opts.extraArgs ?? []), opts.prompt],
    cwd,
    home,
    tmp,
    fake,
    env: opts.env,
    timeoutMs: opts.timeoutMs,
  }).finally(async () => {
    if (ownFake) await fake.close();
  });
  const { exitCode, signal, timedOut, stdout, stderr, durationMs } = run;

  const allRequests = fake.requests.filter((r) => !before.has(r));
  const requests = allRequests.filter((r) => r.kind === 'messages');
  const resumedText = fs.existsSync(resumedFile) ? fs.readFileSync(resumedFile, 'utf8') : '';
  const appendedLines = resumedText.startsWith(originalText)
    ? parseJsonl(resumedText.slice(originalText.length))
    : parseJsonl(resumedText);
  const keep = opts.keepTemp || !!process.env.KEEP_CLAUDE_HOME;
  if (keep) keepTempDir(tempRoot);
  let cleaned = false;
  return {
    exitCode,
    signal,
    timedOut,
    stdout,
    stderr,
    durationMs,
    sessionId,
    tempRoot,
    home,
    cwd,
    requests,
    allRequests,
    mainRequest: pickMainRequest(requests, opts.prompt),
    resumedFile,
    resumedText,
    originalText,
    appendedLines,
    cleanup() {
      if (cleaned || keep) return;
      cleaned = true;
      fs.rmSync(tempRoot, { recursive: true, force: true });
    },
  };
}

/**
 * Let Claude Code compact the session itself: `claude -p --resume <uuid> "/compact"` with the fake answering a
 * fixed summary (`summary`, default DEFAULT_SUMMARY_TEXT; must contain a <summary> block or Claude Code retries).
 * When `fake` is given its current scenario is used as is (and `summary` is ignored).
 */
export async function compactWithClaude(
  opts: Omit<ClaudeRunOptions, 'prompt'> & { summary?: string },
): Promise<CompactRunResult> {
  const ownFake = !opts.fake;
  const fake =
    opts.fake ?? (await startFakeAnthropic({ scenario: { kind: 'text', text: opts.summary ?? DEFAULT_SUMMARY_TEXT } }));
  try {
    const res = await resumeWithClaude({ ...opts, fake, prompt: '/compact' });
    return {
      ...res,
      compactBoundaries: res.appendedLines.filter((l) => l.type === 'system' && l.subtype === 'compact_boundary'),
      compactSummaries: res.appendedLines.filter((l) => l.type === 'user' && l.isCompactSummary === true),
    };
  } finally {
    if (ownFake) await fake.close();
  }
}
