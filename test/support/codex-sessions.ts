/**
 * Generate a rollout as today's Codex CLI (the pinned one) writes it, with the REAL CLI (./codex.ts) offline
 * against the scripted loopback fake (./fake-responses.ts): a small sample project, several `codex exec` turns with
 * tool calls (exec_command: cat, the tests, an apply_patch), Codex's own compaction, then `codex exec resume` turns.
 *
 * Facts established by experiment (0.169.0):
 *  - `codex exec` has no slash commands: a `/compact` prompt is sent to the model as text. Compaction is reached by
 *    its auto-compaction: `-c model_auto_compact_token_limit=<n>` below the context the turn starts with makes Codex
 *    compact before the turn ("pre_turn", "context_limit").
 *  - With the built-in `openai` provider Codex compacts remotely ("responses_compaction_v2"): a normal streamed
 *    `POST /v1/responses` whose input ends with `{"type":"compaction_trigger"}`, answered with exactly one
 *    `{"type":"compaction","encrypted_content":…}` output item. It then writes a `compacted` record (replacement
 *    history: the compaction item and the user messages it keeps) and resends that history on every later request.
 *
 * The fake answers by looking at each request (`codexScript`), not by counting requests, so an extra request the CLI
 * may send does not shift the script. Its usage is the true size of every request (`countResponsesRequestTokens`).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  countResponsesRequestTokens,
  startFakeResponses,
  type FakeResponses,
  type RecordedResponsesRequest,
  type ResponsesReply,
} from './fake-responses';
import { makeCodexHome, requireCodexBinary, runCodex, type CodexHome, type CodexRun } from './codex';

export interface CodexStep {
  /** What the step is, e.g. `turn:read`, `compact`, `resume`. */
  name: string;
  prompt: string;
  /** The step resumes the thread (`exec resume <id>`) rather than starting it. */
  resume: boolean;
  /** Extra `-c key=value` overrides for this run (the compaction step lowers the auto-compaction limit). */
  config?: string[];
}

export interface CodexStepResult extends CodexStep {
  run: CodexRun;
  /** The `POST /v1/responses` requests this step sent, in order. */
  requests: RecordedResponsesRequest[];
  /** Lines of the rollout before the step ran (so `fileLinesBefore..` are what the step appended). */
  fileLinesBefore: number;
}

export interface CodexSession {
  home: CodexHome;
  threadId: string;
  /** The rollout Codex wrote. */
  rolloutFile: string;
  /** The sample project the CLI worked in. */
  projectDir: string;
  steps: CodexStepResult[];
  /** The fake, still listening (resume more turns against it); closed by cleanup(). */
  fake: FakeResponses;
  cleanup(): Promise<void>;
}

export const CODEX_MARKERS = {
  read: 'CODEX-READ-DONE',
  bash: 'CODEX-BASH-DONE',
  edit: 'CODEX-EDIT-DONE',
  talk: 'CODEX-TALK-DONE',
  compact: 'CODEX-COMPACT-TURN-DONE',
  after: 'CODEX-AFTER-COMPACT-DONE',
  resume: 'CODEX-RESUME-DONE',
} as const;

/** The encrypted_content of the fake's compaction item (opaque to Codex; base64 as the real one looks). */
export const CODEX_COMPACTION_BLOB = Buffer.from(
  'CODEX-COMPACTION: the user asked to read calc.js, run the tests and fix sub(); the fix is applied. '.repeat(4),
).toString('base64');

/** A context limit far below any request (the base instructions alone are thousands of tokens): compacts the turn. */
const LOW_COMPACT_LIMIT = 'model_auto_compact_token_limit=1000';

export const CODEX_STEPS: readonly CodexStep[] = [
  { name: 'turn:read', prompt: 'Show calc.js and tell me what it does.', resume: false },
  { name: 'turn:bash', prompt: 'Run the tests with node test.js.', resume: true },
  { name: 'turn:edit', prompt: 'Fix the subtraction bug in calc.js.', resume: true },
  { name: 'turn:talk', prompt: 'Explain the fix in one sentence.', resume: true },
  { name: 'compact', prompt: 'Where are we now?', resume: true, config: [LOW_COMPACT_LIMIT] },
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

const PATCH = [
  '*** Begin Patch',
  '*** Update File: calc.js',
  '@@',
  ' function sub(a, b) {',
  '-  return a + b; // bug: should subtract',
  '+  return a - b;',
  ' }',
  '*** End Patch',
].join('\n');

/** The prompts of the script, in matching order (the after-compact prompt also says "Run the tests"). */
const PROMPTS: [RegExp, string][] = [
  [/Thanks, that is all/, CODEX_MARKERS.resume],
  [/Run the tests again/, CODEX_MARKERS.after],
  [/Where are we now/, CODEX_MARKERS.compact],
  [/Explain the fix/, CODEX_MARKERS.talk],
  [/Fix the subtraction bug/, CODEX_MARKERS.edit],
  [/Run the tests with/, CODEX_MARKERS.bash],
  [/Show calc\.js/, CODEX_MARKERS.read],
];

function itemText(item: any): string {
  return Array.isArray(item?.content)
    ? item.content.map((c: any) => (typeof c?.text === 'string' ? c.text : '')).join('')
    : '';
}

/** The newest scripted prompt of a request's input. */
function currentPrompt(input: any[]): string {
  for (let i = input.length - 1; i >= 0; i--) {
    if (input[i]?.type === 'message' && input[i].role === 'user' && PROMPTS.some(([re]) => re.test(itemText(input[i]))))
      return itemText(input[i]);
  }
  return '';
}

/**
 * The scripted model: Codex's compaction request gets one compaction item; a request whose last item is a tool output
 * gets the closing text of its prompt; a prompt gets its tool call (or, for talk prompts, its text).
 */
export function codexScript(body: any): ResponsesReply {
  const input: any[] = Array.isArray(body?.input) ? body.input : [];
  const last = input[input.length - 1];
  if (last?.type === 'compaction_trigger') return { compaction: CODEX_COMPACTION_BLOB };
  const prompt = currentPrompt(input);
  const marker = PROMPTS.find(([re]) => re.test(prompt))?.[1] ?? 'CODEX-UNSCRIPTED';
  if (last?.type === 'function_call_output' || last?.type === 'custom_tool_call_output')
    return { text: `${marker}: the tool answered; that step is complete.` };
  const exec = (cmd: string) => ({
    call: { name: 'exec_command', arguments: JSON.stringify({ cmd, yield_time_ms: 10000 }) },
  });
  if (/Show calc\.js/.test(prompt)) return exec('cat calc.js');
  if (/Run the tests/.test(prompt)) return exec('node test.js');
  if (/Fix the subtraction bug/.test(prompt)) return exec(`apply_patch <<'EOF'\n${PATCH}\nEOF`);
  if (/Explain the fix/.test(prompt)) return { text: `${CODEX_MARKERS.talk}: sub() now subtracts instead of adding.` };
  if (/Where are we now/.test(prompt))
    return { text: `${CODEX_MARKERS.compact}: the bug is fixed; the tests are next.` };
  if (/Thanks, that is all/.test(prompt)) return { text: `${CODEX_MARKERS.resume}: you are welcome.` };
  return { text: 'OK.' };
}

function lineCount(file: string | null): number {
  if (!file || !fs.existsSync(file)) return 0;
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '').length;
}

/** The rollout files under a Codex home's sessions folder. */
export function findRollouts(codexHome: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    if (!fs.existsSync(d)) return;
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(d, e.name));
      else if (/^rollout-.*\.jsonl$/.test(e.name)) out.push(path.join(d, e.name));
    }
  };
  walk(path.join(codexHome, 'sessions'));
  return out;
}

export function threadIdOf(rollout: string): string {
  const m = /-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/.exec(rollout);
  if (!m) throw new Error(`no thread id in the name of ${rollout}`);
  return m[1];
}

/** The args of a `codex exec` run in the sample project, with sandbox and approvals off (the edit writes a file). */
export function codexExecArgs(prompt: string, resumeId: string | null, config: readonly string[] = []): string[] {
  const c = config.flatMap((kv) => ['-c', kv]);
  const common = ['exec', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', ...c];
  return resumeId ? [...common, 'resume', resumeId, prompt] : [...common, prompt];
}

/**
 * Run the script with the real CLI and return the rollout it wrote. Throws with the CLI's output when a step does not
 * exit 0 or does not write to the rollout: a generator that silently produced less would make the tests lie.
 */
export async function generateCodexSession(opts: { steps?: readonly CodexStep[] } = {}): Promise<CodexSession> {
  requireCodexBinary();
  const fake = await startFakeResponses({ script: codexScript });
  const home = makeCodexHome(fake);
  const projectDir = home.workdir;
  for (const [name, text] of Object.entries(SAMPLE_FILES)) fs.writeFileSync(path.join(projectDir, name), text);
  const steps: CodexStepResult[] = [];
  let rolloutFile: string | null = null;
  const cleanup = async () => {
    await fake.close();
    if (!process.env.KEEP_CODEX_HOME) fs.rmSync(home.root, { recursive: true, force: true });
  };
  try {
    for (const step of opts.steps ?? CODEX_STEPS) {
      const before = fake.responsesRequests().length;
      const fileLinesBefore = lineCount(rolloutFile);
      const run = await runCodex(
        home,
        fake,
        codexExecArgs(step.prompt, step.resume ? threadIdOf(rolloutFile!) : null, step.config),
      );
      rolloutFile ??= findRollouts(home.codexHome)[0] ?? null;
      const requests = fake.responsesRequests().slice(before);
      steps.push({ ...step, run, requests, fileLinesBefore });
      const wrote = lineCount(rolloutFile) > fileLinesBefore;
      if (run.code !== 0 || !wrote)
        throw new Error(
          `codex exec step ${step.name} failed (exit ${run.code}, wrote ${wrote}):\nstdout: ${run.stdout.slice(-2000)}\nstderr: ${run.stderr.slice(-2000)}`,
        );
    }
  } catch (err) {
    await cleanup();
    throw err;
  }
  return { home, threadId: threadIdOf(rolloutFile!), rolloutFile: rolloutFile!, projectDir, steps, fake, cleanup };
}

/** The true size of each request of a step. */
export function stepSizes(step: CodexStepResult): number[] {
  return step.requests.map((r) => countResponsesRequestTokens(r.body).total);
}
