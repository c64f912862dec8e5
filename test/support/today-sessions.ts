/**
 * Generate a session as today's Claude Code writes it, with the REAL pinned CLI (./claude-code.ts) offline against
 * the scripted loopback fake (./fake-anthropic.ts): a sample project, several `claude -p` turns with tool calls
 * (Read of small and large files and of an image, Bash, Edit, an Agent subagent), thinking blocks, Claude Code's own
 * `/compact`, more turns after it (so the active context is worth compacting: several thousand tokens of Read
 * results), then a plain `--resume`; then `--fork-session` and the session-shaping slash commands that have no
 * headless form (`/branch`, `/rewind`: recorded as not run, with what the CLI said).
 *
 * The fake answers by looking at each request (`scriptedAnswer`), not by counting requests, so an extra request the
 * CLI may send does not shift the script. Its usage is the true size of every request (`countRequestTokens`), so
 * the session records real sizes. Every /v1/messages request is kept, tagged with the step that sent it, so tests
 * can compare what the file says with what the CLI sent.
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import {
  isCompactRequest,
  projectDirName,
  requireClaudeBinary,
  spawnClaude,
  type SpawnClaudeResult,
} from './claude-code';
import { DEFAULT_SUMMARY_TEXT, startFakeAnthropic, type RecordedRequest, type Scenario } from './fake-anthropic';
import { tempDir } from './temp';

/** One `claude -p` run of the script. */
export interface TodayStep {
  /** What the step is, e.g. `turn:read`, `compact`, `resume`. */
  name: string;
  /** The prompt given to `claude -p` (a slash command for session-shaping steps). */
  prompt: string;
  /** The step resumes the session (`--resume <id>`) rather than starting it (`--session-id <id>`). */
  resume: boolean;
}

export interface TodayStepResult extends TodayStep {
  run: SpawnClaudeResult;
  /** The /v1/messages requests this step sent, in order. */
  requests: RecordedRequest[];
  /** Lines of the session file before the step ran (so `fileLinesBefore..` are what the step appended). */
  fileLinesBefore: number;
}

export interface TodaySession {
  /** The private temp root (HOME, project, tmp); remove with cleanup(). */
  tempRoot: string;
  sessionId: string;
  /** The session file written by Claude Code. */
  sessionFile: string;
  /** The sample project the CLI worked in. */
  projectDir: string;
  steps: TodayStepResult[];
  /**
   * Session-shaping commands tried headless (slash commands and `--fork-session`), and whether each one ran (exit 0
   * and wrote a session file), with what the CLI said.
   */
  slashCommands: { command: string; ran: boolean; detail: string }[];
  /** The session `--resume <id> --fork-session` wrote (a new id, a new file), or null when the script did not reach it. */
  forkFile: string | null;
  cleanup(): void;
}

/** Markers the scripted model answers with; tests look for them in the session and in requests. */
export const TODAY_MARKERS = {
  read: 'TODAY-READ-DONE',
  readBig: 'TODAY-READ-BIG-DONE',
  readDocs: 'TODAY-READ-DOCS-DONE',
  subagent: 'TODAY-SUBAGENT-DONE',
  subagentReport: 'TODAY-SUBAGENT-REPORT',
  image: 'TODAY-IMAGE-DONE',
  recap: 'TODAY-RECAP-DONE',
  fork: 'TODAY-FORK-DONE',
  bash: 'TODAY-BASH-DONE',
  edit: 'TODAY-EDIT-DONE',
  talk: 'TODAY-TALK-DONE',
  after: 'TODAY-AFTER-COMPACT-DONE',
  resume: 'TODAY-RESUME-DONE',
} as const;

/** The script: prompts and the tool each one makes the model call. */
export const TODAY_STEPS: readonly TodayStep[] = [
  { name: 'turn:read', prompt: 'Read calc.js and tell me what it does.', resume: false },
  { name: 'turn:read-big', prompt: 'Read parser.js and summarize it.', resume: true },
  { name: 'turn:bash', prompt: 'Run the tests with node test.js.', resume: true },
  { name: 'turn:edit', prompt: 'Fix the subtraction bug in calc.js.', resume: true },
  { name: 'turn:talk', prompt: 'Explain the fix in one sentence.', resume: true },
  { name: 'compact', prompt: '/compact', resume: true },
  { name: 'turn:after-compact', prompt: 'Run the tests again after the fix.', resume: true },
  { name: 'turn:read-docs', prompt: 'Read docs/design.md and list its sections.', resume: true },
  { name: 'turn:subagent', prompt: 'Ask a subagent to review parser.js.', resume: true },
  { name: 'turn:image', prompt: 'Look at logo.png and describe it.', resume: true },
  { name: 'turn:read-big-again', prompt: 'Read parser.js again and check tokenize.', resume: true },
  { name: 'turn:recap', prompt: 'Recap what we did today.', resume: true },
  { name: 'resume', prompt: 'Thanks, that is all for now.', resume: true },
];

/** The prompt of the `--fork-session` run (after the script, on the main session). */
export const TODAY_FORK_PROMPT = 'Start a fork and say hello.';

/** Session-shaping slash commands tried headless after the script; 2.1.330 answers "isn't available in this environment". */
export const TODAY_UNAVAILABLE_COMMANDS = ['/branch', '/rewind'] as const;

/** What the subagent is asked (the Agent tool's prompt); its requests are told apart by this. */
const SUBAGENT_TASK = 'TODAY-SUBAGENT-TASK: review parser.js for bugs and report in one line.';

/** A thinking block as the API sends it when asked for `display: "omitted"` (empty text, a signature). */
function thinkingOf(seed: string): { signature: string } {
  return { signature: Buffer.from(`sig:${seed}:`.repeat(12)).toString('base64') };
}

const SAMPLE_FILES: Record<string, string> = {
  'calc.js':
    "'use strict';\n// A tiny calculator used by the sample session.\nfunction add(a, b) {\n  return a + b;\n}\n\nfunction sub(a, b) {\n  return a + b; // bug: should subtract\n}\n\nmodule.exports = { add, sub };\n",
  'test.js':
    "'use strict';\nconst assert = require('assert');\nconst { add, sub } = require('./calc');\nassert.strictEqual(add(2, 3), 5);\nassert.strictEqual(sub(5, 3), 2);\nconsole.log('all tests passed');\n",
  'README.md': '# sample\n\nA tiny calculator with a bug, for generated sessions.\n',
  'parser.js': parserSource(),
  'docs/design.md': designDoc(),
};

/** A large, deterministic source file (about 5k tokens), so a Read of it weighs what real Reads weigh. */
function parserSource(): string {
  const out = ["'use strict';", '// A small expression parser for the sample calculator.', ''];
  const kinds = ['number', 'identifier', 'operator', 'paren', 'comma', 'string'];
  for (let i = 0; i < 48; i++) {
    const kind = kinds[i % kinds.length];
    out.push(
      `/**`,
      ` * Rule ${i}: reads one ${kind} token at \`pos\` and returns the token with its end offset.`,
      ` * Whitespace before the token is skipped; an unexpected character throws with its position.`,
      ` */`,
      `function read${kind[0].toUpperCase()}${kind.slice(1)}${i}(text, pos) {`,
      `  let end = pos;`,
      `  while (end < text.length && /\\s/.test(text[end])) end++;`,
      `  const start = end;`,
      `  while (end < text.length && is${kind[0].toUpperCase()}${kind.slice(1)}Char(text[end], ${i})) end++;`,
      `  if (end === start) throw new SyntaxError(\`expected ${kind} at \${start}: \${text.slice(start, start + 10)}\`);`,
      `  return { kind: '${kind}', value: text.slice(start, end), start, end, rule: ${i} };`,
      `}`,
      '',
    );
  }
  out.push(
    'function tokenize(text) {',
    '  const tokens = [];',
    '  // bug: the last token is dropped',
    '  return tokens.slice(0, -1);',
    '}',
    '',
    'module.exports = { tokenize };',
    '',
  );
  return out.join('\n');
}

/** A long design note (about 3k tokens) with sections. */
function designDoc(): string {
  const out = ['# Design of the sample calculator', ''];
  const topics = ['Goals', 'Tokens', 'Grammar', 'Errors', 'Numbers', 'Tests', 'Performance', 'Open questions'];
  for (const [i, t] of topics.entries()) {
    out.push(`## ${i + 1}. ${t}`, '');
    for (let p = 0; p < 3; p++) {
      out.push(
        `The ${t.toLowerCase()} of the calculator follow from its one job: read an expression typed by a person and give back its value, ` +
          `or say exactly where the input went wrong (paragraph ${p + 1} of section ${i + 1}). Every rule is small, named, and tested; ` +
          `a rule that needs a comment to be understood is split until it does not. Numbers are decimal, operators are + - * /, ` +
          `and parentheses nest to any depth the stack allows.`,
        '',
      );
    }
  }
  return out.join('\n');
}

/** A small valid PNG (RGB gradient), so a Read of it returns an image block. */
export function samplePng(width = 48, height = 48): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc32 = (buf: Buffer) => {
    let crc = 0xffffffff;
    for (const b of buf) crc = crcTable[(crc ^ b) & 0xff] ^ (crc >>> 8);
    return (crc ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // RGB
  const raw = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const o = y * (width * 3 + 1) + 1 + x * 3;
      raw[o] = (x * 5) & 0xff;
      raw[o + 1] = (y * 5) & 0xff;
      raw[o + 2] = 128;
    }
  }
  return Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk('IHDR', header),
    chunk('IDAT', zlib.deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** Texts of the last user message of a request, tool results included. */
function lastUserMessage(body: any): any {
  const msgs: any[] = Array.isArray(body?.messages) ? body.messages : [];
  for (let i = msgs.length - 1; i >= 0; i--) if (msgs[i]?.role === 'user') return msgs[i];
  return undefined;
}

function hasToolResult(message: any): boolean {
  return Array.isArray(message?.content) && message.content.some((b: any) => b?.type === 'tool_result');
}

function messageText(message: any): string {
  const c = message?.content;
  if (typeof c === 'string') return c;
  if (!Array.isArray(c)) return '';
  return c.map((b: any) => (b?.type === 'text' ? String(b.text) : '')).join('\n');
}

/** The prompts of the script, newest first in matching order (the after-compact prompt also says "Run the tests"). */
const PROMPT_MARKERS: [RegExp, string][] = [
  [/TODAY-SUBAGENT-TASK/, TODAY_MARKERS.subagentReport],
  [/Start a fork/, TODAY_MARKERS.fork],
  [/Thanks, that is all/, TODAY_MARKERS.resume],
  [/Recap what we did/, TODAY_MARKERS.recap],
  [/Read parser\.js again/, TODAY_MARKERS.readBig],
  [/Look at logo\.png/, TODAY_MARKERS.image],
  [/Ask a subagent/, TODAY_MARKERS.subagent],
  [/Read docs\/design\.md/, TODAY_MARKERS.readDocs],
  [/Read parser\.js/, TODAY_MARKERS.readBig],
  [/Run the tests again/, TODAY_MARKERS.after],
  [/Fix the subtraction bug/, TODAY_MARKERS.edit],
  [/Run the tests with/, TODAY_MARKERS.bash],
  [/Read calc\.js/, TODAY_MARKERS.read],
];

/** The newest user prompt of a request: the last user text block, outside system reminders, naming a script prompt. */
function currentPrompt(body: any): string {
  const msgs: any[] = Array.isArray(body?.messages) ? body.messages : [];
  for (let i = msgs.length - 1; i >= 0; i--) {
    if (msgs[i]?.role !== 'user') continue;
    const c = msgs[i].content;
    const texts =
      typeof c === 'string'
        ? [c]
        : Array.isArray(c)
          ? c.filter((b: any) => b?.type === 'text').map((b: any) => String(b.text))
          : [];
    for (let j = texts.length - 1; j >= 0; j--) {
      if (texts[j].startsWith('<system-reminder>')) continue;
      if (PROMPT_MARKERS.some(([re]) => re.test(texts[j]))) return texts[j];
    }
  }
  return '';
}

function markerOf(prompt: string): string {
  return PROMPT_MARKERS.find(([re]) => re.test(prompt))?.[1] ?? 'TODAY-UNSCRIPTED';
}

/**
 * The scripted model: a compaction request gets the fixed summary; a request whose last user message answers a
 * tool call gets the closing text of the step; a new prompt gets its tool call.
 */
export function scriptedAnswer(req: RecordedRequest, projectDir: string): Scenario {
  if (isCompactRequest(req.body)) return { kind: 'text', text: DEFAULT_SUMMARY_TEXT };
  const last = lastUserMessage(req.body);
  const text = messageText(last);
  const calc = path.join(projectDir, 'calc.js');
  if (hasToolResult(last))
    return { kind: 'text', text: `${markerOf(currentPrompt(req.body))}: the tool answered; that step is complete.` };
  // The subagent's own first request: it reads the file it was asked to review (its result answers above).
  if (/TODAY-SUBAGENT-TASK/.test(text))
    return {
      kind: 'toolUse',
      text: 'Reviewing.',
      name: 'Read',
      input: { file_path: path.join(projectDir, 'parser.js') },
    };
  if (/Read parser\.js/.test(text)) {
    return {
      kind: 'toolUse',
      text: 'Reading the parser.',
      name: 'Read',
      input: { file_path: path.join(projectDir, 'parser.js') },
      thinking: thinkingOf(text),
    };
  }
  if (/Read docs\/design\.md/.test(text)) {
    return {
      kind: 'toolUse',
      text: 'Reading the design note.',
      name: 'Read',
      input: { file_path: path.join(projectDir, 'docs', 'design.md') },
      thinking: thinkingOf(text),
    };
  }
  if (/Ask a subagent/.test(text)) {
    return {
      kind: 'toolUse',
      text: 'Delegating the review.',
      name: 'Agent',
      input: { description: 'Review parser.js', prompt: SUBAGENT_TASK, subagent_type: 'general-purpose' },
    };
  }
  if (/Look at logo\.png/.test(text))
    return {
      kind: 'toolUse',
      text: 'Opening the image.',
      name: 'Read',
      input: { file_path: path.join(projectDir, 'logo.png') },
    };
  if (/Recap what we did/.test(text)) {
    return {
      kind: 'text',
      text: `${TODAY_MARKERS.recap}: we read the parser and the design note, fixed sub(), had the parser reviewed and looked at the logo.`,
      thinking: thinkingOf(text),
    };
  }
  if (/Start a fork/.test(text)) return { kind: 'text', text: `${TODAY_MARKERS.fork}: hello from the fork.` };
  if (/Read calc\.js/.test(text))
    return { kind: 'toolUse', text: 'Reading the file.', name: 'Read', input: { file_path: calc } };
  if (/Run the tests/.test(text))
    return {
      kind: 'toolUse',
      text: 'Running the tests.',
      name: 'Bash',
      input: { command: 'node test.js', description: 'Run the tests' },
    };
  if (/Fix the subtraction bug/.test(text)) {
    return {
      kind: 'toolUse',
      text: 'Fixing sub().',
      name: 'Edit',
      input: { file_path: calc, old_string: '  return a + b; // bug: should subtract', new_string: '  return a - b;' },
    };
  }
  if (/Explain the fix/.test(text))
    return { kind: 'text', text: `${TODAY_MARKERS.talk}: sub() now subtracts instead of adding.` };
  if (/Thanks, that is all/.test(text)) return { kind: 'text', text: `${TODAY_MARKERS.resume}: you are welcome.` };
  return { kind: 'text', text: 'OK.' };
}

/** The tools the script's calls need, allowed up front (headless runs cannot ask). */
const ALLOWED_TOOLS = 'Read,Bash,Edit,Agent';

/** Count the lines of a file (0 when absent). */
function lineCount(file: string): number {
  if (!fs.existsSync(file)) return 0;
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '').length;
}

/**
 * Run the script with the real CLI and return the session it wrote. Fails (throws) with the CLI's output when a
 * conversational step does not exit 0: a generator that silently produced less would make the tests lie.
 */
export async function generateTodaySession(
  opts: { steps?: readonly TodayStep[]; timeoutMs?: number; env?: Record<string, string> } = {},
): Promise<TodaySession> {
  const bin = requireClaudeBinary();
  const tempRoot = fs.realpathSync(tempDir('agent-compactor-today-'));
  const home = path.join(tempRoot, 'home');
  const tmp = path.join(tempRoot, 'tmp');
  const projectDir = path.join(tempRoot, 'sample');
  for (const d of [home, tmp, projectDir]) fs.mkdirSync(d, { recursive: true });
  for (const [name, text] of Object.entries(SAMPLE_FILES)) {
    fs.mkdirSync(path.dirname(path.join(projectDir, name)), { recursive: true });
    fs.writeFileSync(path.join(projectDir, name), text);
  }
  fs.writeFileSync(path.join(projectDir, 'logo.png'), samplePng());
  const sessionId = crypto.randomUUID();
  const sessionFile = path.join(home, '.claude', 'projects', projectDirName(projectDir), `${sessionId}.jsonl`);
  const fake = await startFakeAnthropic({ scenario: (req) => scriptedAnswer(req, projectDir) });
  const steps: TodayStepResult[] = [];
  const slashCommands: TodaySession['slashCommands'] = [];
  let forkFile: string | null;
  try {
    for (const step of opts.steps ?? TODAY_STEPS) {
      const before = fake.requests.length;
      const fileLinesBefore = lineCount(sessionFile);
      const idArgs = step.resume ? ['--resume', sessionId] : ['--session-id', sessionId];
      const run = await spawnClaude({
        bin,
        args: ['-p', ...idArgs, '--allowedTools', ALLOWED_TOOLS, '--', step.prompt],
        cwd: projectDir,
        home,
        tmp,
        fake,
        env: opts.env,
        timeoutMs: opts.timeoutMs ?? 180_000,
      });
      const requests = fake.requests.slice(before).filter((r) => r.kind === 'messages');
      steps.push({ ...step, run, requests, fileLinesBefore });
      const wrote = lineCount(sessionFile) > fileLinesBefore;
      if (step.prompt.startsWith('/')) {
        slashCommands.push({
          command: step.prompt,
          ran: run.exitCode === 0 && wrote,
          detail: `exit ${run.exitCode}, ${requests.length} request(s), ${lineCount(sessionFile) - fileLinesBefore} line(s) appended`,
        });
      }
      if (run.exitCode !== 0 || !wrote) {
        throw new Error(
          `claude -p step ${step.name} failed (exit ${run.exitCode}, timedOut ${run.timedOut}, wrote ${wrote}):\n` +
            `stdout: ${run.stdout.slice(0, 2000)}\nstderr: ${run.stderr.slice(0, 2000)}`,
        );
      }
    }
    // `--fork-session`: the same conversation continued under a new id, in a new file.
    const sessionsDir = path.dirname(sessionFile);
    const filesBefore = new Set(fs.readdirSync(sessionsDir));
    const forkRun = await spawnClaude({
      bin,
      args: ['-p', '--resume', sessionId, '--fork-session', '--allowedTools', ALLOWED_TOOLS, '--', TODAY_FORK_PROMPT],
      cwd: projectDir,
      home,
      tmp,
      fake,
      timeoutMs: opts.timeoutMs ?? 180_000,
    });
    const forkName = fs.readdirSync(sessionsDir).find((f) => f.endsWith('.jsonl') && !filesBefore.has(f));
    forkFile = forkName ? path.join(sessionsDir, forkName) : null;
    slashCommands.push({
      command: '--fork-session',
      ran: forkRun.exitCode === 0 && forkFile !== null,
      detail: `exit ${forkRun.exitCode}, ${forkFile ? `wrote ${forkName} (${lineCount(forkFile)} lines)` : 'wrote no new session file'}: ${forkRun.stdout.trim().slice(0, 200)}`,
    });
    // Slash commands that reshape a session interactively; headless 2.1.330 declines them (they ran if it did not).
    for (const command of TODAY_UNAVAILABLE_COMMANDS) {
      const run = await spawnClaude({
        bin,
        args: ['-p', '--resume', sessionId, '--', command],
        cwd: projectDir,
        home,
        tmp,
        fake,
        timeoutMs: opts.timeoutMs ?? 180_000,
      });
      const said = run.stdout.trim().slice(0, 200);
      slashCommands.push({
        command,
        ran: run.exitCode === 0 && !/isn't available/.test(said),
        detail: `exit ${run.exitCode}: ${said}`,
      });
    }
  } catch (err) {
    await fake.close();
    fs.rmSync(tempRoot, { recursive: true, force: true });
    throw err;
  }
  await fake.close();
  let cleaned = false;
  return {
    tempRoot,
    sessionId,
    sessionFile,
    projectDir,
    steps,
    slashCommands,
    forkFile,
    cleanup() {
      if (cleaned || process.env.KEEP_CLAUDE_HOME) return;
      cleaned = true;
      fs.rmSync(tempRoot, { recursive: true, force: true });
    },
  };
}

/** Sessions of the pinned Claude Code with given models, one short turn each, written into a HOME of their own. */
export interface ModelSessions {
  /** The session files written, one per model it accepted (oldest first). */
  files: string[];
  /** Models the CLI said are retired (it still answers with them given `--model`; a resume replaces them): no session kept. */
  retired: string[];
  cleanup(): void;
}

/**
 * One `claude -p --model <m>` turn per model (in order, so the last is the newest), as a user of those models has in
 * their sessions folder: what Claude Code records of its requests with each model (api-request-shape, api-request).
 * A model the CLI calls retired (its warning on stderr or stdout) is not used by a user of today's agent, and
 * Claude Code resumes a session of it with its default model: its session is removed and the model listed.
 */
export async function generateModelSessions(models: readonly string[]): Promise<ModelSessions> {
  const bin = requireClaudeBinary();
  const tempRoot = fs.realpathSync(tempDir('agent-compactor-models-'));
  const home = path.join(tempRoot, 'home');
  const tmp = path.join(tempRoot, 'tmp');
  const projectDir = path.join(tempRoot, 'models');
  for (const d of [home, tmp, projectDir]) fs.mkdirSync(d, { recursive: true });
  const fake = await startFakeAnthropic({ scenario: { kind: 'text', text: 'Hello; ready when you are.' } });
  const files: string[] = [];
  const retired: string[] = [];
  try {
    for (const model of models) {
      const sessionId = crypto.randomUUID();
      const run = await spawnClaude({
        bin,
        args: ['-p', '--model', model, '--session-id', sessionId, '--', 'Say hello.'],
        cwd: projectDir,
        home,
        tmp,
        fake,
      });
      const file = path.join(home, '.claude', 'projects', projectDirName(projectDir), `${sessionId}.jsonl`);
      if (run.exitCode !== 0 || !fs.existsSync(file))
        throw new Error(`claude -p --model ${model} failed (exit ${run.exitCode}): ${run.stderr.slice(0, 1000)}`);
      if (/was retired/i.test(run.stderr + run.stdout)) {
        retired.push(model);
        fs.rmSync(file);
      } else files.push(file);
    }
  } catch (err) {
    await fake.close();
    fs.rmSync(tempRoot, { recursive: true, force: true });
    throw err;
  }
  await fake.close();
  return {
    files,
    retired,
    cleanup() {
      if (!process.env.KEEP_CLAUDE_HOME) fs.rmSync(tempRoot, { recursive: true, force: true });
    },
  };
}
