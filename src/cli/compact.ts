// `agent-compactor compact <file>`: summarize the older rounds and write the result (by default a fork).
import { stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { applyCompaction, DEFAULT_MODEL, planCompactionOf } from '../core/compact/compact';
import { writeUndoRecord } from '../core/compact/undoRecord';
import { CompactError, type CompactResult } from '../core/compact/types';
import { promiseGap } from '../core/compact/promise';
import {
  EXIT_CANCELLED,
  EXIT_FAILURE,
  EXIT_OK,
  EXIT_USAGE,
  onePositional,
  readableTranscript,
  shown,
  UsageError,
} from './args';
import { formatTokens, printErr, printJson, printOut, sanitizeForTerminal } from './format';
import { bool, HELP_OPTION, JSON_OPTION, NUMBERS_NOTE, SIZE_NOTE, str, type Values, type VerbSpec } from './options';
import { SETTING_OPTIONS, settingsFrom } from './settings';
import { inspectFile } from '../core/inspect';
import { DecisionError, type UserDecisions } from '../core/compact/decisions';
import type { SummarizerChoice } from '../core/compact/options';
import { planInputsFor, STEER_NOTE, STEER_OPTIONS, summaryTextFrom } from './steer';
import type { Analysis } from '../core/analysis';

export const compactVerb: VerbSpec = {
  name: 'compact',
  args: '<file>',
  summary:
    'Summarize the older rounds and write a compacted session; by default a new session (a fork) beside the original, which stays untouched.',
  options: [
    ...SETTING_OPTIONS,
    {
      flag: 'summarizer',
      type: 'string',
      value: 'extractive|anthropic|claude-cli|codex-cli',
      help:
        'who writes the summary: extractive works offline and sends nothing; anthropic sends the rounds being summarized to the Anthropic API, with the key in ANTHROPIC_API_KEY; ' +
        "claude-cli gives them to your Claude Code (claude -p, your login), which sends them to its API; codex-cli gives a Codex session's to your Codex (codex exec)",
      default: 'extractive',
    },
    {
      flag: 'claude-path',
      type: 'string',
      value: 'PATH',
      help: 'the Claude Code program; only with --summarizer claude-cli',
      default: 'claude on PATH',
    },
    {
      flag: 'codex-path',
      type: 'string',
      value: 'PATH',
      help: 'the Codex program; only with --summarizer codex-cli',
      default: 'codex on PATH',
    },
    {
      flag: 'model',
      type: 'string',
      value: 'M',
      help: 'Anthropic model for the summary; only with --summarizer anthropic',
      default: DEFAULT_MODEL,
    },
    {
      flag: 'base-url',
      type: 'string',
      value: 'URL',
      help: 'Anthropic API address; only with --summarizer anthropic',
      default: 'ANTHROPIC_BASE_URL, else https://api.anthropic.com',
    },
    {
      flag: 'instructions',
      type: 'string',
      value: 'TEXT',
      help: 'extra instructions for the summary; only with an LLM summarizer (anthropic, claude-cli, codex-cli)',
      default: 'none',
    },
    {
      flag: 'out',
      type: 'string',
      value: 'FILE',
      help: 'write the result to FILE instead of a fork; refuses an existing file without --force',
      default: 'a fork: <new-session-id>.jsonl beside the original',
    },
    {
      flag: 'in-place',
      type: 'boolean',
      help: 'replace the original after a backup, keeping its session id; excludes --out',
      default: 'off',
    },
    { flag: 'force', type: 'boolean', help: 'let --out replace an existing file, never the original', default: 'off' },
    {
      flag: 'fresh',
      type: 'boolean',
      help: 'write only the compacted conversation, without the original lines before it',
      default: 'off',
    },
    ...STEER_OPTIONS,
    JSON_OPTION,
    HELP_OPTION,
  ],
  notes: [
    NUMBERS_NOTE,
    STEER_NOTE,
    'Transcript content leaves this machine only with --summarizer anthropic, claude-cli or codex-cli; a key in the environment alone sends nothing.',
    'claude-cli summarizes Claude Code sessions and codex-cli Codex sessions: each agent gets only its own sessions (exit 2 otherwise). The program runs in an empty temporary folder, with no tools, and keeps no session of its own; if it fails, is cut off or times out, the offline summary is used and the output says why.',
    'With --summarizer anthropic and no ANTHROPIC_API_KEY, nothing is sent or written (exit 2). If the API fails, the offline summary is used and the output says why.',
    SIZE_NOTE,
  ],
  run: runCompact,
};

export const SUMMARIZERS: readonly SummarizerChoice[] = ['extractive', 'anthropic', 'claude-cli', 'codex-cli'];

interface CompactRequest {
  file: string;
  summarizer: SummarizerChoice;
  apiKey?: string;
  model?: string;
  /** The saved decisions with the options on top, read and checked here (the edge), and planned with. */
  decisions: UserDecisions;
  /** The transcript as read once: planned over, and applied unless it changes before the lock is taken. */
  analysis: Analysis;
  summaryText?: string;
}

/** Options that apply to one summarizer only, and which. */
const SUMMARIZER_FLAGS: readonly { flag: string; only: readonly SummarizerChoice[] }[] = [
  { flag: 'model', only: ['anthropic'] },
  { flag: 'base-url', only: ['anthropic'] },
  { flag: 'instructions', only: ['anthropic', 'claude-cli', 'codex-cli'] },
  { flag: 'claude-path', only: ['claude-cli'] },
  { flag: 'codex-path', only: ['codex-cli'] },
];

/** Checks the arguments before anything is read, sent or written; throws UsageError (exit 2). */
async function request(values: Values, positionals: string[]): Promise<CompactRequest> {
  const given = str(values, 'summarizer') ?? 'extractive';
  const summarizer = SUMMARIZERS.find((s) => s === given);
  if (!summarizer)
    throw new UsageError(`--summarizer must be ${SUMMARIZERS.join(', ')}; got '${sanitizeForTerminal(given)}'`);
  for (const { flag, only } of SUMMARIZER_FLAGS) {
    if (str(values, flag) === undefined || only.includes(summarizer)) continue;
    throw new UsageError(
      `--${flag} only applies with --summarizer ${only.join(' or ')}${summarizer === 'extractive' ? ' (the default summarizer, extractive, works offline)' : ''}`,
    );
  }
  const out = str(values, 'out');
  if (out !== undefined && bool(values, 'in-place')) throw new UsageError('--out and --in-place exclude each other');
  if (bool(values, 'force') && out === undefined)
    throw new UsageError(
      '--force only applies with --out (a fork never replaces a file, and --in-place keeps a backup)',
    );
  if (out === '') throw new UsageError('--out needs a file path');
  settingsFrom(values);
  let apiKey: string | undefined;
  if (summarizer === 'anthropic') {
    apiKey = process.env.ANTHROPIC_API_KEY?.trim();
    if (!apiKey) {
      throw new UsageError(
        '--summarizer anthropic needs an API key in ANTHROPIC_API_KEY, which is not set; nothing was sent or written (leave out --summarizer for the offline summary)',
      );
    }
  }
  const file = await readableTranscript(onePositional(positionals, 'compact'));
  if (out !== undefined) {
    const target = await stat(out).catch(() => null);
    if (target?.isDirectory()) throw new UsageError(`--out ${shown(out)} is a folder; give a file path`);
    const folder = await stat(dirname(resolve(out))).catch(() => null);
    if (!folder?.isDirectory())
      throw new UsageError(`--out ${shown(out)}: no such folder: ${shown(dirname(resolve(out)))}`);
  }
  const summaryText = await summaryTextFrom(values);
  const analysis = await inspectFile(file, { subagents: false });
  const { decisions } = await planInputsFor(file, analysis, values);
  return { file, summarizer, apiKey, model: str(values, 'model'), decisions, analysis, summaryText };
}

export async function runCompact(values: Values, positionals: string[]): Promise<number> {
  const req = await request(values, positionals);
  const json = bool(values, 'json');
  const controller = new AbortController();
  const onSignal = () => controller.abort();
  process.once('SIGINT', onSignal);
  try {
    // Planned once, and that plan applied (planned again, and said so, only if the file changes in between).
    const planned = await planCompactionOf(
      req.file,
      {
        settings: settingsFrom(values),
        summarizer: req.summarizer,
        anthropic:
          req.summarizer === 'anthropic'
            ? { apiKey: req.apiKey, model: req.model, baseURL: str(values, 'base-url') }
            : undefined,
        agentCli: { claudePath: str(values, 'claude-path'), codexPath: str(values, 'codex-path') },
        out: str(values, 'out'),
        inPlace: bool(values, 'in-place'),
        force: bool(values, 'force'),
        fresh: bool(values, 'fresh'),
        instructions: str(values, 'instructions'),
        decisions: req.decisions,
        summaryText: req.summaryText,
        signal: controller.signal,
        onProgress: json ? undefined : (m) => printErr(`${sanitizeForTerminal(m)}\n`),
      },
      req.analysis,
    );
    const result = await applyCompaction(planned);
    // For `agent-compactor undo`; the compaction itself succeeded whatever happens to the record.
    await writeUndoRecord(req.file, result).catch((err: unknown) =>
      printErr(
        `agent-compactor: note: could not record this compaction for undo: ${sanitizeForTerminal(err instanceof Error ? err.message : String(err))}\n`,
      ),
    );
    if (json) printJson(JSON.stringify(resultJson(result), null, 2) + '\n');
    else printOut(renderCompactResult(result, req.summarizer, req.model ?? DEFAULT_MODEL));
    return EXIT_OK;
  } catch (err) {
    // Saved decisions that contradict each other (the options were checked before).
    if (err instanceof DecisionError) throw new UsageError(err.message);
    if (!(err instanceof CompactError)) throw err;
    const { code, stdout, stderr } = compactErrorOutcome(err, json);
    if (stdout) (json ? printJson : printOut)(stdout);
    if (stderr) printErr(stderr);
    return code;
  } finally {
    process.off('SIGINT', onSignal);
  }
}

/** The whole result, with the fields a caller resumes by always present (null when unknown). */
export function resultJson(result: CompactResult): CompactResult {
  // These first, in this order; the rest of the result after them.
  const json: CompactResult = Object.assign(
    {
      output: result.output,
      mode: result.mode,
      sessionId: null,
      cwd: null,
      resumeCommand: null,
      summarizer: result.summarizer,
    },
    result,
  );
  json.sessionId ??= null;
  json.cwd ??= null;
  json.resumeCommand ??= null;
  return json;
}

/** How a CompactError ends the run: exit code and what goes where. */
export function compactErrorOutcome(
  err: CompactError,
  json: boolean,
): { code: number; stdout?: string; stderr?: string } {
  const message = sanitizeForTerminal(err.message);
  switch (err.code) {
    case 'nothing-to-compact':
      return {
        code: EXIT_OK,
        stdout: json
          ? JSON.stringify({ output: null, nothingToDo: true, message: err.message }) + '\n'
          : `${message}\n`,
      };
    case 'exists':
      return {
        code: EXIT_USAGE,
        stderr: `agent-compactor: ${message}${/--force/.test(message) ? '' : ' (add --force to replace it, or choose another --out path)'}\n`,
      };
    case 'unsupported-format':
    case 'wrong-summarizer': // the agent CLI chosen is not this session's agent; nothing was sent
    case 'unsafe-path': // a refusal: the output named is the original, or a write would leave its folder
      return { code: EXIT_USAGE, stderr: `agent-compactor: ${message}\n` };
    case 'write-failed':
      return { code: EXIT_FAILURE, stderr: `agent-compactor: ${message}; the original is unchanged\n` };
    case 'cancelled':
      return { code: EXIT_CANCELLED, stderr: `agent-compactor: ${message}\n` };
    default:
      return { code: EXIT_FAILURE, stderr: `agent-compactor: ${message}\n` };
  }
}

const MODE_TEXT: Record<CompactResult['mode'], string> = {
  fork: 'fork (a new session beside the original; the original is untouched)',
  out: 'out (written to the given file; the original is untouched)',
  'in-place': 'in place (the original replaced, same session id; a backup was kept)',
};

const FALLEN_BACK_FROM: Record<SummarizerChoice, string> = {
  extractive: '',
  anthropic: 'the Anthropic summarizer',
  'claude-cli': 'your Claude Code (claude-cli)',
  'codex-cli': 'your Codex (codex-cli)',
};

function summarizerText(result: CompactResult, requested: SummarizerChoice, model: string): string {
  switch (result.summarizer) {
    case 'anthropic':
      return `anthropic (${model}); the summarized rounds were sent to the Anthropic API`;
    case 'claude-cli':
      return 'claude-cli; the summarized rounds were given to your Claude Code (claude -p), which sent them to its API';
    case 'codex-cli':
      return 'codex-cli; the summarized rounds were given to your Codex (codex exec), which sent them to its API';
    case 'none':
      return 'none (no rounds needed summarizing; only tool results were replaced by previews)';
    case 'given':
      return 'none: the summary text given (--summary-file) was written verbatim';
    default: {
      if (requested === 'extractive') return 'extractive (offline; nothing was sent)';
      const why =
        [...result.attempts].reverse().find((a) => a.strategy === 'extractive')?.detail ??
        [...result.attempts].reverse().find((a) => a.outcome !== 'ok')?.detail;
      return `extractive (offline): ${FALLEN_BACK_FROM[requested]} fell back${why ? `: ${why}` : ''}`;
    }
  }
}

/**
 * The context after, as the written file counts it (its own context figure), and how it differs from what the plan
 * promised, part by part (promise.ts); null for a result without them.
 */
function deliveredLine(result: CompactResult): string | null {
  const { promised, delivered } = result;
  if (!promised || !delivered) return null;
  const gap = promiseGap(promised, delivered, formatTokens);
  return `context after: ${formatTokens(delivered.tokens)} tokens${gap ? ` (planned ${formatTokens(promised.tokens)}: ${gap})` : ' (as planned)'}`;
}

/** Text report: the file, the mode, the session id, the resume command on its own line, the summarizer, the figures. */
export function renderCompactResult(result: CompactResult, requested: SummarizerChoice, model: string): string {
  const p = result.plan;
  const lines = [
    `wrote ${result.output}`,
    `mode: ${MODE_TEXT[result.mode] ?? result.mode}`,
    `session: ${result.sessionId ?? 'unknown'}`,
    ...(result.resumeCommand
      ? ['resume it with:', result.resumeCommand]
      : result.resumeProblem
        ? [`no resume command: ${result.resumeProblem}`]
        : []),
    `summarizer: ${summarizerText(result, requested, model)}`,
    result.summarizer !== 'none' && result.summarizer !== 'given'
      ? `summary detail: ${result.summaryDetail} (${result.summaryChars} characters)`
      : null,
    result.backup ? `backup ${result.backup}` : null,
    deliveredLine(result),
    `${formatTokens(result.preTokens)} → ${formatTokens(result.postTokens)} tokens of transcript (estimated; about ${formatTokens(p.overheadTokens)} of system prompt and tools come on top); ` +
      `${p.rounds.filter((r) => r.inContext && r.action === 'keep').length} rounds kept verbatim, ${p.summarizedRounds} summarized, ${p.droppedRounds} dropped; ` +
      `${p.toolResults.filter((t) => t.preview).length} tool results replaced by previews`,
    result.carriedOverBytes
      ? `${result.carriedOverBytes} bytes the agent appended meanwhile were carried over after the result`
      : null,
    result.toolResultsDir ? `full tool results in ${result.toolResultsDir}` : null,
    ...result.attempts.map((a) => `attempt ${a.attempt}: ${a.strategy} → ${a.outcome} (${a.detail})`),
    ...(p.conflicts ?? []).map((c) => `conflict: ${c.decision}: ${c.resolution}`),
    ...p.notes.map((n) => `note: ${n}`),
  ];
  return (
    lines
      .filter((l): l is string => l !== null)
      .map(sanitizeForTerminal)
      .join('\n') + '\n'
  );
}
