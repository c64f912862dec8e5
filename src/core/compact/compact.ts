// Compact Transcript: plan, summarize (Anthropic or offline), write back atomically with a
// backup, and verify the result resumes, or write nothing at all.
import { appendFile, chmod, lstat, open, readFile, realpath, rmdir, stat, unlink } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { createReadStream, existsSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { inspectFile, type Analysis } from '../inspect';
import { charsForTokens, estimateStringTokens } from '../tokens/estimate';
import { loadEntryObjects } from './lines';
import { planDetails, summaryRoundTokens, type PlanDetails } from './plan';
import { CompactError, type AttemptRecord, type CompactResult, type CompactSettings, type ProgressReporter } from './types';
import { extractiveSummary, shapeForExtractive } from './summarize/extractive';
import { PromptTooLongExhausted, summarizeWithAnthropic, type SummaryMessage } from './summarize/anthropic';
import { buildAppendedLines } from './writeback';
import { acquireLock, assertInside, commitTemp, ensureRealDir, makeBackup, writeFileAtomic, writeTemp } from './fsutil';
import { statePath, safeToolResultName, toolResultsDir, type BudgetState } from './state';
import { checkResumable } from './validate';
import { recordSidecars, snapshotSidecars } from './sidecars';
import { SUMMARY_PREFIX } from './summarize/prompt';
import type { Group } from './ptl';
import { attachmentText, clipNotingRest } from './messages';
import { toolResultText } from './lines';
import { resumeCommand } from './resume';
import { asObject, jsonText, messageContent, type JsonObject } from '../json';
import { readSessionInfo, sessionIdFromFile } from '../session';
import { unsupportedReason } from '../formats/types';
import { compactCodexLocked } from './codex';

export interface CompactOptions {
  settings?: Partial<CompactSettings>;
  summarizer: 'extractive' | 'anthropic';
  anthropic?: { apiKey?: string; model?: string; baseURL?: string; maxTokens?: number; timeoutMs?: number; maxRetries?: number };
  /** Output path; by default a fork: a new session `<new-uuid>.jsonl` beside the original. */
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

interface OutputTarget {
  out: string;
  mode: CompactResult['mode'];
  /** Session id the result is resumed by: the fork's new id, else the file name when it is a UUID. */
  sessionId: string | null;
  /** A new id to write on the appended lines (forks only). */
  newSessionId?: string;
}

async function resolveOutput(file: string, options: CompactOptions): Promise<OutputTarget> {
  if (options.inPlace) return { out: file, mode: 'in-place', sessionId: sessionIdFromFile(file) };
  if (options.out === undefined) {
    const id = randomUUID();
    return { out: join(dirname(file), `${id}.jsonl`), mode: 'fork', sessionId: id, newSessionId: id };
  }
  const out = resolve(options.out);
  if (await sameFile(out, file)) throw new CompactError('unsafe-path', 'The output would overwrite the original; use in-place mode (it keeps a backup) or another output path.');
  const existing = await lstat(out).catch(() => null);
  if (existing) {
    if (!options.force) throw new CompactError('exists', `${out} already exists; nothing was written. Choose another output path, or use --force to replace an earlier Agent Compactor output.`);
    if (!existing.isFile() || !(await isOurOutput(out))) {
      throw new CompactError('exists', `${out} exists and is not an Agent Compactor output, so it is not replaced even with --force; nothing was written.`);
    }
  }
  return { out, mode: 'out', sessionId: sessionIdFromFile(out) };
}

/** True when `path` holds a compact_boundary that Agent Compactor wrote (streamed; never the whole file in memory). */
export async function isOurOutput(path: string): Promise<boolean> {
  const needle = Buffer.from('"compactor":"agent-compactor"');
  let tail = Buffer.alloc(0);
  for await (const chunk of createReadStream(path)) {
    const buf = Buffer.concat([tail, chunk as Buffer]);
    if (buf.includes(needle)) return true;
    tail = buf.subarray(Math.max(0, buf.length - needle.length));
  }
  return false;
}

export function checkCancelled(signal?: AbortSignal): void {
  if (signal?.aborted) throw new CompactError('cancelled', 'Compaction cancelled; nothing was written.');
}

function renderBlockText(block: unknown): string {
  const b = asObject(block);
  if (!b) return '';
  switch (b.type) {
    case 'text':
      return jsonText(b.text ?? '');
    case 'tool_use':
      return `[called tool ${jsonText(b.name)}: ${clipNotingRest(JSON.stringify(b.input ?? {}), 4000)}]`;
    case 'tool_result': {
      const { text } = toolResultText(b.content);
      return `[result of ${jsonText(b.tool_use_id)}${b.is_error ? ' (error)' : ''}: ${clipNotingRest(text, 6000)}]`;
    }
    case 'image':
      return '[image]';
    default:
      return '';
  }
}

/** Summarized rounds as text-only messages (tool calls rendered as text: no tool schemas needed). */
function summaryGroups(analysis: Analysis, roundIdx: number[], objects: Map<number, JsonObject>, calibration: number): Group<SummaryMessage[]>[] {
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
        const c = messageContent(o);
        text = Array.isArray(c) ? (c as unknown[]).map((b) => renderBlockText(b)).filter(Boolean).join('\n') : jsonText(c ?? '');
      } else if (o.type === 'user') {
        role = 'user';
        const c = messageContent(o);
        text = typeof c === 'string' ? c : Array.isArray(c) ? (c as unknown[]).map((b) => renderBlockText(b)).filter(Boolean).join('\n') : '';
      } else if (o.type === 'attachment') {
        const t = attachmentText(o);
        if (t) {
          role = 'user';
          text = `<system-reminder>${clipNotingRest(t, 4000)}</system-reminder>`;
        }
      }
      if (!role || !text.trim()) continue;
      const prev = msgs[msgs.length - 1];
      if (prev && prev.role === role) prev.text += `\n${text}`;
      else msgs.push({ role, text });
    }
    const tokens = Math.max(1, msgs.reduce((s, m) => s + estimateStringTokens(m.text, 'prose', calibration), 0));
    return { tokens, firstRole: msgs[0]?.role ?? 'user', payload: msgs };
  });
}

export async function sameFile(a: string, b: string): Promise<boolean> {
  try {
    return (await realpath(a)) === (await realpath(b));
  } catch {
    return resolve(a) === resolve(b);
  }
}

export async function compactFile(file: string, options: CompactOptions): Promise<CompactResult> {
  file = resolve(file);
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

/** The earlier compaction summary that opens the active context, if any: its line, and its whole text. */
export interface EarlierSummary {
  round: number;
  entry: number;
  /** The line's `message.content`, exactly as written (kept verbatim when nothing is summarized). */
  content: unknown;
  text: string;
}

function earlierSummaryOf(analysis: Analysis, active: number[]): { round: number; entry: number } | null {
  const first = active[0];
  if (first === undefined || !analysis.rounds[first].startsAtBoundary) return null;
  const entry = analysis.rounds[first].entries.find((e) => analysis.index.entries[e].isCompactSummary);
  return entry === undefined ? null : { round: first, entry };
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return (content as unknown[])
    .map((item) => {
      const b = asObject(item);
      return b?.type === 'text' && typeof b.text === 'string' ? b.text : '';
    })
    .join('\n');
}

export interface SummaryOutcome {
  summary: string;
  /** Leading characters of `summary` that quote an earlier summary whole (never clipped). */
  protectedChars: number;
  /** Exact content for the summary line (an earlier summary kept verbatim). */
  verbatimContent?: unknown;
  attempts: AttemptRecord[];
  /** Rounds cut from the summary request by prompt-too-long retries (not summarized). */
  dropped: number[];
  summarizer: CompactResult['summarizer'];
}

const EARLIER_HEADING = '## Summary of the conversation before an earlier compaction (quoted whole)\n';

/** Quotes an earlier summary whole ahead of `rest`; returns the text and how many leading characters are protected. */
function withEarlier(earlier: EarlierSummary | null, rest: string): { summary: string; protectedChars: number } {
  if (!earlier) return { summary: rest, protectedChars: 0 };
  const quoted = EARLIER_HEADING + earlier.text;
  return { summary: `${quoted}\n\n${rest}`, protectedChars: quoted.length };
}

export async function makeSummary(
  analysis: Analysis,
  details: PlanDetails,
  summarized: number[],
  earlier: EarlierSummary | null,
  objects: Map<number, JsonObject>,
  options: CompactOptions,
  progress: ProgressReporter,
): Promise<SummaryOutcome> {
  const summaryChars = summaryCharBudget(details.plan.settings.summaryTokens, details.calibration);
  if (summarized.length === 0) {
    // Budgets only: the earlier summary (if any) stays exactly as it was.
    const attempts: AttemptRecord[] = [{ attempt: 1, strategy: 'extractive', outcome: 'ok', detail: 'no rounds to summarize; tool-result budgets only' }];
    if (earlier) return { summary: earlier.text, protectedChars: earlier.text.length, verbatimContent: earlier.content, attempts, dropped: [], summarizer: 'none' };
    return { summary: 'No earlier rounds were summarized; the conversation follows verbatim with large tool results replaced by previews.', protectedChars: 0, attempts, dropped: [], summarizer: 'none' };
  }
  const attempts: AttemptRecord[] = [];
  // The offline summary quotes an earlier summary whole and summarizes the rest around it.
  const offline = (why: string): SummaryOutcome => {
    progress('Writing an offline extractive summary…');
    attempts.push({ attempt: attempts.length + 1, strategy: 'extractive', outcome: 'ok', detail: why });
    return { ...offlineSummary(analysis, summarized, earlier, objects, summaryChars), attempts, dropped: [], summarizer: 'extractive' };
  };
  const apiKey = options.anthropic?.apiKey;
  if (options.summarizer !== 'anthropic') return offline('offline extractive summary (no network)');
  if (!apiKey) return offline('no Anthropic API key was given; used the offline summary');
  const groups = summaryGroups(analysis, summarized, objects, details.calibration);
  try {
    const res = await summarizeWithAnthropic(groups, summarized, {
      apiKey,
      model: options.anthropic?.model ?? DEFAULT_MODEL,
      baseURL: options.anthropic?.baseURL,
      maxTokens: options.anthropic?.maxTokens ?? details.plan.settings.summaryTokens,
      signal: options.signal,
      instructions: options.instructions,
      onProgress: progress,
      chunkTokens: 150_000,
      maxPtlRetries: 3,
      timeoutMs: options.anthropic?.timeoutMs,
      maxRetries: options.anthropic?.maxRetries,
      calibration: details.calibration,
    });
    attempts.push(...res.attempts);
    if (!res.summary.trim()) return offline('the model returned an empty summary; used the offline summary');
    // The model saw the earlier summary as input, unless a prompt-too-long retry cut it: then quote it whole.
    const lost = earlier !== null && (!summarized.includes(earlier.round) || res.droppedRounds.includes(earlier.round));
    return { ...withEarlier(lost ? earlier : null, res.summary), attempts, dropped: res.droppedRounds, summarizer: 'anthropic' };
  } catch (err) {
    if (err instanceof PromptTooLongExhausted) {
      attempts.push(...err.attempts);
      return offline('the summary request stayed too long after 3 truncated retries; fell back to the offline summary');
    }
    if (err instanceof CompactError && (err.code === 'api' || err.code === 'network')) {
      const prior = (err as CompactError & { attempts?: AttemptRecord[] }).attempts;
      if (prior) attempts.push(...prior);
      return offline(`the Anthropic summary failed (${err.message}); fell back to the offline summary`);
    }
    throw err;
  }
}

async function compactLocked(file: string, options: CompactOptions, progress: ProgressReporter): Promise<CompactResult> {
  checkCancelled(options.signal);
  progress('Reading transcript…');
  const analysis = await inspectFile(file, { subagents: false });
  const refusal = unsupportedReason(analysis.index.format);
  if (refusal) throw new CompactError('unsupported-format', `${basename(file)}: ${refusal} Nothing was written.`);
  if (analysis.index.format.id === 'codex') return compactCodexLocked(file, analysis, options, progress);
  const readSize = analysis.index.size;
  const readMtime = analysis.index.mtimeMs;
  const target = await resolveOutput(file, options);
  const index = analysis.index;
  const halfWrittenTail = index.unterminatedTail && index.malformed.some((m) => m.line === index.lineCount);
  if (target.mode === 'in-place' && halfWrittenTail) {
    throw new CompactError('changed-on-disk', `${basename(file)} ends in the middle of a line (is an agent still writing to it?). Nothing was written; compact in place when the session is idle, or write a fork.`);
  }
  const firstPlan = await planDetails(analysis, options.settings);
  if (firstPlan.plan.nothingToDo) {
    const plan = firstPlan.plan;
    throw new CompactError('nothing-to-compact', `Nothing to compact: the transcript's active context is about ${plan.preTokens} tokens (plus about ${plan.overheadTokens} of system prompt and tools), already within the ${plan.settings.targetTokens}-token target.`);
  }
  checkCancelled(options.signal);

  const active = analysis.rounds.filter((r) => r.inContext).map((r) => r.index);
  const summarizedBy = (d: PlanDetails) => active.filter((ri) => d.plan.rounds[ri].action === 'summarize');
  const earlierAt = earlierSummaryOf(analysis, active);
  const needed = new Set<number>();
  for (const ri of [...summarizedBy(firstPlan), ...firstPlan.kept]) for (const e of analysis.rounds[ri].entries) needed.add(e);
  if (analysis.chain.leaf >= 0) needed.add(analysis.chain.leaf);
  if (earlierAt) needed.add(earlierAt.entry);
  // Lines that are only summarized are cut down to what the summarizer reads as each is parsed (the offline summary
  // reads little; the Anthropic one reads the text, not Claude Code's `toolUseResult` copies). Written lines and the
  // earlier summary stay whole.
  const offline = options.summarizer === 'extractive' || !options.anthropic?.apiKey;
  const written = new Set<number>(firstPlan.kept.flatMap((ri) => analysis.rounds[ri].entries));
  if (analysis.chain.leaf >= 0) written.add(analysis.chain.leaf);
  if (earlierAt) written.add(earlierAt.entry);
  const forSummary = (o: JsonObject, i: number) => {
    if (written.has(i)) return o;
    if (offline) return shapeForExtractive(o);
    delete o.toolUseResult;
    return o;
  };
  const objects = await loadEntryObjects(file, analysis.index.entries, [...needed], forSummary);
  checkCancelled(options.signal);
  const earlier: EarlierSummary | null = earlierAt
    ? { ...earlierAt, content: messageContent(objects.get(earlierAt.entry)), text: contentText(messageContent(objects.get(earlierAt.entry))) }
    : null;
  const details = offline ? await reclaimSummaryReserve(analysis, firstPlan, options.settings, summarizedBy, objects, earlier) : firstPlan;
  // Rounds the second plan keeps that the first one summarized are read again, whole.
  const nowKept = details.kept.flatMap((ri) => analysis.rounds[ri].entries).filter((e) => !written.has(e));
  if (nowKept.length) for (const [i, o] of await loadEntryObjects(file, analysis.index.entries, nowKept)) objects.set(i, o);
  const plan = details.plan;
  const summarized = summarizedBy(details);

  const made = await makeSummary(analysis, details, summarized, earlier, objects, options, progress);
  const { attempts, dropped } = made;
  checkCancelled(options.signal);
  const summaryChars = Math.max(summaryCharBudget(plan.settings.summaryTokens, details.calibration), made.protectedChars + 2_000);
  let summary = made.summary;
  if (made.verbatimContent === undefined && summary.length > summaryChars) summary = summary.slice(0, summaryChars) + '\n[summary clipped to fit the target]';

  // Figures.
  for (const ri of dropped) {
    plan.rounds[ri] = { ...plan.rounds[ri], action: 'drop', reason: 'cut from the summary request by a prompt-too-long retry (not summarized)' };
  }
  plan.droppedRounds = dropped.length;
  plan.summarizedRounds -= dropped.length;
  const postTokens = details.plan.keptTokens + Math.round(summaryRoundTokens(summary, details.calibration || 1));
  plan.postTokens = postTokens;

  const lastPrompt = await lastPromptOf(file, analysis);
  // Where the session was started (the folder that names its project folder), not where its last command ran.
  const { cwd } = await readSessionInfo(file, { projectFolder: basename(dirname(resolve(file))) });
  const seed = `${basename(file)}:${readSize}:${analysis.chain.leaf >= 0 ? analysis.index.entries[analysis.chain.leaf].uuid : ''}:${JSON.stringify(plan.settings)}:${target.newSessionId ?? ''}`;
  const built = buildAppendedLines({
    analysis,
    details,
    summary,
    protectedChars: made.protectedChars,
    verbatimContent: made.verbatimContent,
    sessionId: target.newSessionId,
    objects,
    seed,
    preTokens: plan.preTokens,
    postTokens,
    lastPrompt,
    now: options.now ?? new Date(),
  });
  const appended = built.lines.join('\n') + '\n';
  progress('Writing the compacted transcript…');
  const out = target.out;
  const tmp = await writeTemp(out, streamOutput(file, readSize, appended, options.fresh === true));
  let backup: string | null = null;
  let toolDir: string | null;
  let carriedOverBytes = 0;
  const undo: (() => Promise<unknown>)[] = [];
  try {
    // The result keeps the original's permissions.
    await chmod(tmp, (await stat(file)).mode & 0o777);
    const check = await checkResumable(tmp, { targetTokens: plan.messageTarget, calibration: details.calibration, expectLeaf: built.leafUuid, expectSummaryFirst: true, prefix: options.fresh ? undefined : { index: analysis.index, bytes: readSize } });
    const overTarget = check.problems.filter((p) => /over the .*target/.test(p));
    const fatal = check.problems.filter((p) => !/over the .*target/.test(p));
    if (fatal.length) throw new CompactError('invalid-output', `The compacted transcript failed validation, so nothing was written: ${fatal.slice(0, 3).join('; ')}`);
    if (check.estimatedTokens >= plan.preTokens) {
      throw new CompactError('nothing-to-compact', `Nothing to gain: the compacted context would be about ${check.estimatedTokens} tokens, not smaller than the ${plan.preTokens} it holds now (the summary and its framing cost more than they save). Nothing was written.`);
    }
    if (overTarget.length) plan.notes.push(`after summarizing, the result is about ${check.estimatedTokens} tokens: over the target (the newest rounds alone are too large)`);
    plan.postTokens = check.estimatedTokens;
    checkCancelled(options.signal);

    // Sidecars before this run, recorded with an in-place backup so Restore puts them back (sidecars.ts).
    const sidecarsBefore = options.inPlace ? await snapshotSidecars(file) : null;
    // Full originals of newly replaced results, then the decisions, then the transcript itself.
    toolDir = await saveOriginals(file, details, undo);
    for (const note of missingSavedOriginals(file, details)) plan.notes.push(note);
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
      await recordSidecars(file, backup, sidecarsBefore!);
      const committed = await commitInPlace(file, tmp, readSize);
      carriedOverBytes = committed.carriedOverBytes;
      if (carriedOverBytes) plan.notes.push(`${carriedOverBytes} bytes a live agent appended while the result was being committed were carried over after it (they continue the history before this compaction; compact again when the session is idle)`);
    } else {
      if (target.mode === 'fork' && (await exists(out))) throw new CompactError('exists', `${out} appeared while compacting; nothing was written.`);
      await commitTemp(tmp, out);
    }
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    // A run that fails or is cancelled after the sidecars were written puts them back as they were, newest first:
    // a new state file left behind would steer the next compaction while this one says "nothing was written".
    for (const step of undo.reverse()) await step().catch(() => undefined);
    throw err;
  }
  return {
    output: out,
    mode: target.mode,
    sessionId: target.sessionId,
    cwd,
    resumeCommand: resumeCommand(cwd, target.sessionId),
    summarizer: made.summarizer,
    carriedOverBytes,
    backup,
    preTokens: plan.preTokens,
    postTokens: plan.postTokens,
    attempts,
    plan,
    summaryChars: summary.length,
    toolResultsDir: toolDir,
  };
}

async function lastPromptOf(file: string, analysis: Analysis): Promise<{ text: string | null } | null> {
  const entries = analysis.index.entries;
  let at = -1;
  for (let i = entries.length - 1; i >= 0; i--) if (entries[i].kind === 'last-prompt') { at = i; break; }
  if (at < 0) return null;
  const lp = (await loadEntryObjects(file, entries, [at])).get(at);
  return { text: typeof lp?.lastPrompt === 'string' ? lp.lastPrompt : null };
}

/**
 * Writes the full original of every result this run replaces by a preview, at the absolute path its preview names.
 * A saved original is never overwritten or shrunk: an identical one is left alone, a different one is refused.
 * Frozen decisions re-apply their stored preview and leave their stored original alone.
 */
async function saveOriginals(file: string, details: PlanDetails, undo: (() => Promise<unknown>)[]): Promise<string | null> {
  const fresh = details.budget.decisions.filter((d) => d.action === 'replaced');
  if (fresh.length === 0) return null;
  const toolDir = toolResultsDir(file);
  const created = !(await exists(toolDir));
  await ensureRealDir(toolDir);
  if (created) undo.push(() => rmdir(toolDir));
  for (const d of fresh) {
    const rep = details.budget.replacements.get(d.toolUseId);
    if (!rep) continue;
    const target = assertInside(toolDir, safeToolResultName(d.toolUseId));
    // Only a regular file can be a saved original; a planted link is replaced by a file, never followed.
    const priorStat = await lstat(target).catch(() => null);
    const prior = priorStat?.isFile() ? await readFile(target) : null;
    const original = Buffer.from(rep.original, 'utf8');
    if (prior !== null) {
      if (prior.equals(original)) continue;
      throw new CompactError('unsafe-path', `${target} already holds a different saved tool result; it is never overwritten. Nothing was written; move it aside to compact again.`);
    }
    undo.push(() => unlink(target));
    await writeFileAtomic(target, original);
    const written = await stat(target);
    if (written.size !== original.length) throw new CompactError('invalid-output', `${target} was not written whole; nothing was written.`);
  }
  return toolDir;
}

/** Notes for previews (new or frozen) whose saved original cannot be found where the preview says it is. */
function missingSavedOriginals(file: string, details: PlanDetails): string[] {
  const notes: string[] = [];
  for (const d of details.budget.decisions) {
    if (!d.fullTextPath || (d.action !== 'replaced' && d.preview === null)) continue;
    const path = isAbsolute(d.fullTextPath) ? d.fullTextPath : join(dirname(file), d.fullTextPath);
    if (!existsSync(path)) notes.push(`the saved original of tool result ${d.toolUseId} is missing at ${path}; its preview is kept as it was`);
  }
  return notes;
}

/**
 * Replaces `file` by `tmp` (the original's first `readSize` bytes plus the compaction) and carries over whatever a
 * live agent appended to the old file between the last check (before the backup) and the rename: those bytes are
 * whole lines after the original's end, and an agent that appends by path writes to the new file from the rename on.
 */
export async function commitInPlace(file: string, tmp: string, readSize: number): Promise<{ carriedOverBytes: number }> {
  const old = await open(file, 'r');
  try {
    await commitTemp(tmp, file);
    const after = await old.stat();
    const extra = after.size - readSize;
    if (extra <= 0) return { carriedOverBytes: 0 };
    const buf = Buffer.alloc(extra);
    let got = 0;
    while (got < extra) {
      const { bytesRead } = await old.read(buf, got, extra - got, readSize + got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    await appendFile(file, buf.subarray(0, got));
    return { carriedOverBytes: got };
  } finally {
    await old.close();
  }
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

/** Characters of summary text that fit a reserve of `summaryTokens` (calibrated prose estimate, prefix excluded). */
function summaryCharBudget(summaryTokens: number, calibration: number): number {
  return charsForTokens(summaryTokens, 'prose', calibration > 0 ? calibration : 1) - SUMMARY_PREFIX.length;
}

/** The offline extractive summary of the given rounds, an earlier summary among them quoted whole ahead of it. */
function offlineSummary(analysis: Analysis, roundIdx: number[], earlier: EarlierSummary | null, objects: Map<number, JsonObject>, maxChars: number): { summary: string; protectedChars: number } {
  const objs = roundIdx.flatMap((ri) => analysis.rounds[ri].entries.filter((e) => e !== earlier?.entry).map((e) => objects.get(e)!).filter(Boolean));
  const quoted = earlier ? EARLIER_HEADING.length + earlier.text.length + 2 : 0;
  return withEarlier(earlier, extractiveSummary({ objects: objs, maxChars: Math.max(2_000, maxChars - quoted) }));
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
  objects: Map<number, JsonObject>,
  earlier: EarlierSummary | null,
): Promise<PlanDetails> {
  const settings = first.plan.settings;
  const summarized = summarizedBy(first);
  if (summarized.length === 0) return first;
  const draft = offlineSummary(analysis, summarized, earlier, objects, summaryCharBudget(settings.summaryTokens, first.calibration)).summary;
  // Headroom of 5% of the transcript budget: what Claude Code actually sends differs a little
  // from the estimate (reminders it adds, whitespace it trims).
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
    // One reused 1 MB buffer: fresh chunk buffers pile up tens of MB before the GC runs. Each chunk is valid until
    // the next one is requested (writeTemp writes it before asking for more).
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

