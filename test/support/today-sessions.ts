/**
 * Generate a session as today's Claude Code writes it, with the REAL pinned CLI (./claude-code.ts) offline against
 * the scripted loopback fake (./fake-anthropic.ts): a small sample project, several `claude -p` turns with tool
 * calls (Read, Bash, Edit), Claude Code's own `/compact`, more turns, then a plain `--resume`.
 *
 * The fake answers by looking at each request (`scriptedAnswer`), not by counting requests, so an extra request the
 * CLI may send does not shift the script. Its usage is the true size of every request (`countRequestTokens`), so
 * the session records real sizes. Every /v1/messages request is kept, tagged with the step that sent it, so tests
 * can compare what the file says with what the CLI sent.
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isCompactRequest, projectDirName, requireClaudeBinary, spawnClaude, type SpawnClaudeResult } from './claude-code';
import { DEFAULT_SUMMARY_TEXT, startFakeAnthropic, type RecordedRequest, type Scenario } from './fake-anthropic';

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
  /** Session-shaping slash commands tried headless, and whether each one ran (exit 0, wrote to the file). */
  slashCommands: { command: string; ran: boolean; detail: string }[];
  cleanup(): void;
}

/** Markers the scripted model answers with; tests look for them in the session and in requests. */
export const TODAY_MARKERS = {
  read: 'TODAY-READ-DONE',
  bash: 'TODAY-BASH-DONE',
  edit: 'TODAY-EDIT-DONE',
  talk: 'TODAY-TALK-DONE',
  after: 'TODAY-AFTER-COMPACT-DONE',
  resume: 'TODAY-RESUME-DONE',
} as const;

/** The script: prompts and the tool each one makes the model call. */
export const TODAY_STEPS: readonly TodayStep[] = [
  { name: 'turn:read', prompt: 'Read calc.js and tell me what it does.', resume: false },
  { name: 'turn:bash', prompt: 'Run the tests with node test.js.', resume: true },
  { name: 'turn:edit', prompt: 'Fix the subtraction bug in calc.js.', resume: true },
  { name: 'turn:talk', prompt: 'Explain the fix in one sentence.', resume: true },
  { name: 'compact', prompt: '/compact', resume: true },
  { name: 'turn:after-compact', prompt: 'Run the tests again after the fix.', resume: true },
  { name: 'resume', prompt: 'Thanks, that is all for now.', resume: true },
];

const SAMPLE_FILES: Record<string, string> = {
  'calc.js':
    "'use strict';\n// A tiny calculator used by the sample session.\nfunction add(a, b) {\n  return a + b;\n}\n\nfunction sub(a, b) {\n  return a + b; // bug: should subtract\n}\n\nmodule.exports = { add, sub };\n",
  'test.js':
    "'use strict';\nconst assert = require('assert');\nconst { add, sub } = require('./calc');\nassert.strictEqual(add(2, 3), 5);\nassert.strictEqual(sub(5, 3), 2);\nconsole.log('all tests passed');\n",
  'README.md': '# sample\n\nA tiny calculator with a bug, for generated sessions.\n',
};

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
  [/Thanks, that is all/, TODAY_MARKERS.resume],
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
    const texts = typeof c === 'string' ? [c] : Array.isArray(c) ? c.filter((b: any) => b?.type === 'text').map((b: any) => String(b.text)) : [];
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
  if (hasToolResult(last)) return { kind: 'text', text: `${markerOf(currentPrompt(req.body))}: the tool answered; that step is complete.` };
  if (/Read calc\.js/.test(text)) return { kind: 'toolUse', text: 'Reading the file.', name: 'Read', input: { file_path: calc } };
  if (/Run the tests/.test(text)) return { kind: 'toolUse', text: 'Running the tests.', name: 'Bash', input: { command: 'node test.js', description: 'Run the tests' } };
  if (/Fix the subtraction bug/.test(text)) {
    return {
      kind: 'toolUse',
      text: 'Fixing sub().',
      name: 'Edit',
      input: { file_path: calc, old_string: '  return a + b; // bug: should subtract', new_string: '  return a - b;' },
    };
  }
  if (/Explain the fix/.test(text)) return { kind: 'text', text: `${TODAY_MARKERS.talk}: sub() now subtracts instead of adding.` };
  if (/Thanks, that is all/.test(text)) return { kind: 'text', text: `${TODAY_MARKERS.resume}: you are welcome.` };
  return { kind: 'text', text: 'OK.' };
}

/** Count the lines of a file (0 when absent). */
function lineCount(file: string): number {
  if (!fs.existsSync(file)) return 0;
  return fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '').length;
}

/**
 * Run the script with the real CLI and return the session it wrote. Fails (throws) with the CLI's output when a
 * conversational step does not exit 0: a generator that silently produced less would make the tests lie.
 */
export async function generateTodaySession(opts: { steps?: readonly TodayStep[]; timeoutMs?: number; env?: Record<string, string> } = {}): Promise<TodaySession> {
  const bin = requireClaudeBinary();
  const tempRoot = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'agent-compactor-today-')));
  const home = path.join(tempRoot, 'home');
  const tmp = path.join(tempRoot, 'tmp');
  const projectDir = path.join(tempRoot, 'sample');
  for (const d of [home, tmp, projectDir]) fs.mkdirSync(d, { recursive: true });
  for (const [name, text] of Object.entries(SAMPLE_FILES)) fs.writeFileSync(path.join(projectDir, name), text);
  const sessionId = crypto.randomUUID();
  const sessionFile = path.join(home, '.claude', 'projects', projectDirName(projectDir), `${sessionId}.jsonl`);
  const fake = await startFakeAnthropic({ scenario: (req) => scriptedAnswer(req, projectDir) });
  const steps: TodayStepResult[] = [];
  const slashCommands: TodaySession['slashCommands'] = [];
  try {
    for (const step of opts.steps ?? TODAY_STEPS) {
      const before = fake.requests.length;
      const fileLinesBefore = lineCount(sessionFile);
      const idArgs = step.resume ? ['--resume', sessionId] : ['--session-id', sessionId];
      const run = await spawnClaude({
        bin,
        args: ['-p', ...idArgs, '--allowedTools', 'Read,Bash,Edit', '--', step.prompt],
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
    cleanup() {
      if (cleaned || process.env.KEEP_CLAUDE_HOME) return;
      cleaned = true;
      fs.rmSync(tempRoot, { recursive: true, force: true });
    },
  };
}
