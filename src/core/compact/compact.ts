// Compact Transcript: plan, summarize (Anthropic or offline), write back atomically with a
// backup, and verify the result resumes, or write nothing at all.
import { chmod, lstat, open, readFile, realpath, rmdir, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { inspectFile, type Analysis } from '../inspect';
import { estimateTextTokens } from '../tokens/estimate';
import { loadEntryObjects } from './lines';
import { planDetails, summaryRoundTokens, type PlanDetails } from './plan';
import { CompactError, type AttemptRecord, type CompactResult, type CompactSettings, type ProgressReporter } from './types';
import { extractiveSummary } from './summarize/extractive';
import { PromptTooLongExhausted, summarizeWithAnthropic, type SummaryMessage } from './summarize/anthropic';
import { buildAppendedLines } from './writeback';
import { acquireLock, assertInside, commitTemp, ensureRealDir, makeBackup, writeFileAtomic, writeTemp } from './fsutil';
import { statePath, safeToolResultName, toolResultsDirName, type BudgetState } from './state';
import { checkResumable } from './validate';
import { SUMMARY_PREFIX } from './summarize/prompt';
import type { Group } from './ptl';
import { attachmentText } from './messages';
import { toolResultText } from './lines';

export interface CompactOptions {
  settings?: Partial<CompactSettings>;
  summarizer: 'extractive' | 'anthropic';
  anthropic?: { apiKey?: string; model?: string; baseURL?: string; maxTokens?: number; timeoutMs?: number; maxRetries?: number };
  /** Output path (default `<name>.compacted.jsonl` beside the original). */
  out?: string;
  /** Replace the original after a backup. */
  inPlace?: boolean;
  /** Allow `out` to replace an existing file (never the original, never a file of another session). */
  force?: boolean;
  /** Write only the compacted conversation, without the original lines before it. */
  fresh?: boolean;
  signal?: AbortSignal;
  onProgress?: ProgressReporter;
  instructions?: string;
  /** Fixed clock for reproducible output (tests). */
  now?: Date;
  /** Test hook: called after the temp file is written, before it replaces anything. */
  beforeCommit?: () => Promise<void> | void;
}

export const DEFAULT_MODEL = 'claude-sonnet-5-5';

function defaultOut(file: string): string {
  return join(dirname(file), `${basename(file).replace(/\.jsonl$/i, '')}.compacted.jsonl`);
}

function checkCancelled(signal?: AbortSignal): void {
  if (signal?.aborted) throw new CompactError('cancelled', 'Compaction cancelled; nothing was written.');
}

const clip = (s: string, n: number) => (s.length <= n ? s : s.slice(0, n));

function renderBlockText(b: any): string {
  if (!b || typeof b !== 'object') return '';
  switch (b.type) {
    case 'text':
      return String(b.text ?? '');
    case 'tool_use':
      return `[called tool ${b.name}: ${clip(JSON.stringify(b.input ?? {}), 4000)}]`;
    case 'tool_result': {
      const { text } = toolResultText(b.content);
      return `[result of ${b.tool_use_id}${b.is_error ? ' (error)' : ''}: ${clip(text, 6000)}${text.length > 6000 ? ` …(${text.length - 6000} more characters)` : ''}]`;
    }
    case 'image':
      return '[image]';
    default:
      return '';
  }
}

/** Summarized rounds as text-only messages (tool calls rendered as text: no tool schemas needed). */
function summaryGroups(analysis: Analysis, roundIdx: number[], objects: Map<number, Record<string, any>>, calibration: number): Group<SummaryMessage[]>[] {
  const entries = analysis.index.entries;
  return roundIdx.map((ri) => {
    const r = analysis.rounds[ri];
    const msgs: SummaryMessage[] = [];
    for (const ei of r.entries) {
      const o = objects.get(ei);
      if (!o) continue;
      let role: 'user' | 'assistant' | null = null;
      let text = '';
      if (o.type === 'assistant') {
        role = 'assistant';
        const c = o.message?.content;
        text = Array.isArray(c) ? c.map(renderBlockText).filter(Boolean).join('\n') : String(c ?? '');
      } else if (o.type === 'user') {
        role = 'user';
        const c = o.message?.content;
        text = typeof c === 'string' ? c : Array.isArray(c) ? c.map(renderBlockText).filter(Boolean).join('\n') : '';
      } else if (o.type === 'attachment') {
        const t = attachmentText(o);
        if (t) {
          role = 'user';
          text = `<system-reminder>${clip(t, 4000)}</system-reminder>`;
        }
      }
      if (!role || !text.trim()) continue;
      const prev = msgs[msgs.length - 1];
      if (prev && prev.role === role) prev.text += `\n${text}`;
      else msgs.push({ role, text });
    }
    const chars = msgs.reduce((s, m) => s + m.text.length, 0);
    const tokens = Math.max(1, Math.round(chars * 0.3 * calibration));
    void entries;
    return { tokens, firstRole: msgs[0]?.role ?? 'user', payload: msgs };
  });
}

async function sameFile(a: string, b: string): Promise<boolean> {
  try {
    return (await realpath(a)) === (await realpath(b));
  } catch {
    return resolve(a) === resolve(b);
  }
}

export async function compactFile(file: string, options: CompactOptions): Promise<CompactResult> {
  const progress = options.onProgress ?? (() => undefined);
  const st = await lstat(file);
  if (st.isSymbolicLink()) {
    // Resolve deliberately: compact the real file, and say so.
    const real = await realpath(file);
    progress(`${file} is a symbolic link; compacting its target ${real}`);
    file = real;
  }
  const lock = await acquireLock(file);
  try {
    return await compactLocked(file, options, progress);
  } finally {
    await lock.release();
  }
}

async function compactLocked(file: string, options: CompactOptions, progress: ProgressReporter): Promise<CompactResult> {
  checkCancelled(options.signal);
  progress('Reading transcript…');
  const analysis = await inspectFile(file, { subagents: false });
  const readSize = analysis.index.size;
  const readMtime = analysis.index.mtimeMs;
  const firstPlan = await planDetails(analysis, options.settings);
  if (firstPlan.plan.nothingToDo) {
    const plan = firstPlan.plan;
    throw new CompactError('nothing-to-compact', `Nothing to compact: the transcript's active context is about ${plan.preTokens} tokens (plus about ${plan.overheadTokens} of system prompt and tools), already within the ${plan.settings.targetTokens}-token target.`);
  }
  checkCancelled(options.signal);

  const active = analysis.rounds.filter((r) => r.inContext).map((r) => r.index);
  const summarizedBy = (d: PlanDetails) => active.filter((ri) => d.plan.rounds[ri].action === 'summarize');
  const needed = new Set<number>();
  for (const ri of [...summarizedBy(firstPlan), ...firstPlan.kept]) for (const e of analysis.rounds[ri].entries) needed.add(e);
  if (analysis.chain.leaf >= 0) needed.add(analysis.chain.leaf);
  const objects = await loadEntryObjects(file, analysis.index.entries, [...needed]);
  checkCancelled(options.signal);
  const offline = options.summarizer === 'extractive' || !(options.anthropic?.apiKey ?? process.env.ANTHROPIC_API_KEY);
  const details = offline ? await reclaimSummaryReserve(analysis, firstPlan, options.settings, summarizedBy, objects) : firstPlan;
  const plan = details.plan;
  const summarized = summarizedBy(details);

  // Summarize.
  const attempts: AttemptRecord[] = [];
  const settings = plan.settings;
  const summaryChars = summaryCharBudget(settings.summaryTokens);
  let summary = '';
  let dropped: number[] = [];
  const extractive = (why: string) => {
    progress('Writing an offline extractive summary…');
    summary = offlineSummary(analysis, summarized, objects, summaryChars);
    attempts.push({ attempt: attempts.length + 1, strategy: 'extractive', outcome: 'ok', detail: why });
  };
  if (summarized.length === 0) {
    attempts.push({ attempt: 1, strategy: 'extractive', outcome: 'ok', detail: 'no rounds to summarize; tool-result budgets only' });
    summary = 'No earlier rounds were summarized; the conversation follows verbatim with large tool results replaced by previews.';
  } else if (options.summarizer === 'anthropic') {
    const apiKey = options.anthropic?.apiKey ?? process.env.ANTHROPIC_API_KEY;
    if (!apiKey) {
      extractive('no Anthropic API key configured (set ANTHROPIC_API_KEY or the extension\'s key); used the offline summary');
    } else {
      const groups = summaryGroups(analysis, summarized, objects, details.calibration);
      try {
        const res = await summarizeWithAnthropic(groups, summarized, {
          apiKey,
          model: options.anthropic?.model ?? DEFAULT_MODEL,
          baseURL: options.anthropic?.baseURL,
          maxTokens: options.anthropic?.maxTokens ?? settings.summaryTokens,
          signal: options.signal,
          instructions: options.instructions,
          onProgress: progress,
          chunkTokens: 150_000,
          maxPtlRetries: 3,
          timeoutMs: options.anthropic?.timeoutMs,
          maxRetries: options.anthropic?.maxRetries,
        });
        attempts.push(...res.attempts);
        summary = res.summary;
        dropped = res.droppedRounds;
      } catch (err) {
        if (err instanceof PromptTooLongExhausted) {
          attempts.push(...err.attempts);
          extractive('the summary request stayed too long after 3 truncated retries; fell back to the offline summary');
        } else if (err instanceof CompactError && (err.code === 'api' || err.code === 'network')) {
          const prior = (err as CompactError & { attempts?: AttemptRecord[] }).attempts;
          if (prior) attempts.push(...prior);
          extractive(`the Anthropic summary failed (${err.message}); fell back to the offline summary`);
        } else throw err;
      }
      if (!summary.trim() && attempts[attempts.length - 1]?.strategy !== 'extractive') extractive('the model returned an empty summary; used the offline summary');
    }
  } else {
    extractive('offline extractive summary (no network)');
  }
  checkCancelled(options.signal);
  if (summary.length > summaryChars) summary = summary.slice(0, summaryChars) + '\n[summary clipped to fit the target]';

  // Figures.
  for (const ri of dropped) {
    plan.rounds[ri] = { ...plan.rounds[ri], action: 'drop', reason: 'cut from the summary request by a prompt-too-long retry (not summarized)' };
  }
  plan.droppedRounds = dropped.length;
  plan.summarizedRounds -= dropped.length;
  const summaryTokens = estimateTextTokens(SUMMARY_PREFIX.length + summary.length);
  const postTokens = details.plan.keptTokens + summaryTokens;
  plan.postTokens = postTokens;

  // Write: temp file beside the target, validated before it replaces anything.
  const out = options.inPlace ? file : resolve(options.out ?? defaultOut(file));
  if (!options.inPlace && (await sameFile(out, file))) throw new CompactError('unsafe-path', 'The output would overwrite the original; use in-place mode (it keeps a backup) or another output path.');
  const lastPromptEntry = [...analysis.index.entries].reverse().find((e) => e.kind === 'last-prompt');
  let lastPrompt: { text: string | null } | null = null;
  if (lastPromptEntry) {
    const lp = (await loadEntryObjects(file, analysis.index.entries, [analysis.index.entries.indexOf(lastPromptEntry)])).values().next().value as Record<string, any>;
    lastPrompt = { text: typeof lp?.lastPrompt === 'string' ? lp.lastPrompt : null };
  }
  const seed = `${basename(file)}:${readSize}:${analysis.chain.leaf >= 0 ? analysis.index.entries[analysis.chain.leaf].uuid : ''}:${JSON.stringify(settings)}`;
  const built = buildAppendedLines({ analysis, details, summary, objects, seed, preTokens: plan.preTokens, postTokens, lastPrompt, now: options.now ?? new Date() });
  const appended = built.lines.join('\n') + '\n';
  progress('Writing the compacted transcript…');
  const tmp = await writeTemp(out, streamOutput(file, readSize, appended, options.fresh === true));
  let backup: string | null = null;
  let toolDir: string | null = null;
  const undo: (() => Promise<unknown>)[] = [];
  try {
    // The result keeps the original's permissions.
    await chmod(tmp, (await stat(file)).mode & 0o777);
    const check = await checkResumable(tmp, { targetTokens: plan.messageTarget, calibration: details.calibration, expectLeaf: built.leafUuid, expectSummaryFirst: true, prefix: options.fresh ? undefined : { index: analysis.index, bytes: readSize } });
    const overTarget = check.problems.filter((p) => /over the .*target/.test(p));
    const fatal = check.problems.filter((p) => !/over the .*target/.test(p));
    if (fatal.length) throw new CompactError('invalid-output', `The compacted transcript failed validation, so nothing was written: ${fatal.slice(0, 3).join('; ')}`);
    if (overTarget.length) plan.notes.push(`after summarizing, the result is about ${check.estimatedTokens} tokens: over the target (the newest rounds alone are too large)`);
    plan.postTokens = check.estimatedTokens;
    checkCancelled(options.signal);

    // Full originals of replaced results, then the decisions, then the transcript itself.
    if (details.budget.replacements.size) {
      toolDir = join(dirname(file), toolResultsDirName(file));
      const created = !(await exists(toolDir));
      await ensureRealDir(toolDir);
      if (created) undo.push(() => rmdir(toolDir!));
      for (const [id, rep] of details.budget.replacements) {
        const target = assertInside(toolDir, safeToolResultName(id));
        undo.push(await restorer(target));
        await writeFileAtomic(target, rep.original);
      }
    }
    undo.push(await restorer(statePath(out)));
    await saveState(out, details);
    await options.beforeCommit?.();
    checkCancelled(options.signal);
    const now = await stat(file);
    if (now.size !== readSize || now.mtimeMs !== readMtime) {
      throw new CompactError('changed-on-disk', `${basename(file)} changed while it was being compacted (${now.size - readSize >= 0 ? `${now.size - readSize} bytes appended` : 'it shrank'}; is an agent still writing to it?). Nothing was written; run the compaction again when the session is idle.`);
    }
    if (options.inPlace) {
      progress('Backing up the original…');
      backup = await makeBackup(file);
      const again = await stat(file);
      if (again.size !== readSize) throw new CompactError('changed-on-disk', `${basename(file)} changed during the backup; nothing was replaced (backup kept at ${backup}).`);
    }
    await commitTemp(tmp, out);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    // Reliability fix (failing-API/crash tests): a run that failed or was cancelled after the
    // sidecars were written (cancel or change-on-disk just before the commit) used to leave a new
    // state file whose frozen decisions then steered the next compaction, while saying "nothing
    // was written". Put the sidecars back as they were, newest first.
    for (const step of undo.reverse()) await step().catch(() => undefined);
    throw err;
  }
  return { output: out, mode: options.inPlace ? 'in-place' : 'out', sessionId: null, cwd: null, resumeCommand: null, summarizer: 'extractive', carriedOverBytes: 0, backup, preTokens: plan.preTokens, postTokens: plan.postTokens, attempts, plan, summaryChars: summary.length, toolResultsDir: toolDir };
}

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}

/** Undoes a write to `path`: restores its previous bytes, or removes it if it did not exist. */
async function restorer(path: string): Promise<() => Promise<unknown>> {
  const prior = await readFile(path).catch(() => null);
  return prior === null ? () => unlink(path) : () => writeFileAtomic(path, prior);
}

/** Characters of summary text that fit a reserve of `summaryTokens` (prose estimate, prefix excluded). */
function summaryCharBudget(summaryTokens: number): number {
  return Math.floor(summaryTokens / 0.2716) - SUMMARY_PREFIX.length;
}

/** The offline extractive summary of the given rounds, from their loaded entry objects. */
function offlineSummary(analysis: Analysis, roundIdx: number[], objects: Map<number, Record<string, any>>, maxChars: number): string {
  return extractiveSummary({ objects: roundIdx.flatMap((ri) => analysis.rounds[ri].entries.map((e) => objects.get(e)!).filter(Boolean)), maxChars });
}

/**
 * The plan reserves `summaryTokens` for a summary it has not seen yet. The offline summary can
 * be measured first: when it is smaller, plan again with its real size so the room goes to
 * recent rounds kept verbatim (every round the new plan keeps was loaded for the first one).
 */
async function reclaimSummaryReserve(
  analysis: Analysis,
  first: PlanDetails,
  partial: Partial<CompactSettings> | undefined,
  summarizedBy: (d: PlanDetails) => number[],
  objects: Map<number, Record<string, any>>,
): Promise<PlanDetails> {
  const settings = first.plan.settings;
  const summarized = summarizedBy(first);
  if (summarized.length === 0) return first;
  const draft = offlineSummary(analysis, summarized, objects, summaryCharBudget(settings.summaryTokens));
  // Headroom of 5% of the transcript budget: what Claude Code actually sends differs a little
  // from the estimate (reminders it adds, whitespace it trims), and the full reserve used to hide that.
  const need = Math.ceil(summaryRoundTokens(draft, first.calibration) * 1.1) + 50 + Math.round(first.plan.messageTarget * 0.05);
  if (need >= settings.summaryTokens) return first;
  const second = await planDetails(analysis, { ...(partial ?? {}), summaryTokens: need }, first.state);
  if (second.kept.length <= first.kept.length || second.plan.nothingToDo) return first;
  second.plan.notes.push(`the offline summary needs about ${need} tokens, so the ${settings.summaryTokens}-token reserve was lowered and ${second.kept.length - first.kept.length} more recent rounds are kept verbatim`);
  return second;
}

async function* streamOutput(file: string, size: number, appended: string, fresh: boolean): AsyncGenerator<Buffer | string> {
  if (!fresh) {
    let lastByte = -1;
    // Memory (scale work): one reused 1 MB buffer instead of a fresh 64 KB Buffer per chunk, which piled up ~40 MB of
    // external memory on a 100 MB transcript before the GC ran. Each chunk is valid until the next one is requested
    // (writeTemp writes it before asking for more).
    const fh = await open(file, 'r');
    try {
      const buf = Buffer.allocUnsafe(Math.min(1 << 20, Math.max(1, size)));
      for (let pos = 0; pos < size; ) {
        const { bytesRead } = await fh.read(buf, 0, Math.min(buf.length, size - pos), pos);
        if (bytesRead === 0) break;
        pos += bytesRead;
        lastByte = buf[bytesRead - 1];
        yield buf.subarray(0, bytesRead);
      }
    } finally {
      await fh.close();
    }
    if (lastByte !== -1 && lastByte !== 10) yield '\n';
  }
  yield appended;
}

async function saveState(out: string, details: PlanDetails): Promise<void> {
  const state: BudgetState = { version: 1, decisions: { ...details.state.decisions } };
  for (const d of details.budget.decisions) {
    if (state.decisions[d.toolUseId]) continue;
    state.decisions[d.toolUseId] = d.action === 'replaced' ? { action: 'replaced', originalChars: d.originalChars, preview: d.preview!, fullTextPath: d.fullTextPath! } : { action: 'kept', originalChars: d.originalChars };
  }
  await writeFileAtomic(statePath(out), JSON.stringify(state, null, 1) + '\n');
}

