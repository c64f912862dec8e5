// Summary through the Anthropic Messages API (the real @anthropic-ai/sdk): streamed,
// cancellable, retried on 429/529/5xx by the SDK (it honours retry-after), failing fast on
// 401/403/404, and on prompt-too-long cutting whole rounds from the head and trying again.
// The SDK is loaded when a summary is asked of the API, not before: it is most of the bundles' code (1.3 MB with its
// dependencies) and every other verb, and the extension's activation, would parse it for nothing. The bundles load it
// from a file of its own beside them (dist/anthropic-sdk.js, scripts/build.mjs); here, only its types are imported.
import type Anthropic from '@anthropic-ai/sdk' with { 'resolution-mode': 'import' };
import { CompactError, type AttemptRecord, type ProgressReporter } from '../types';
import { isPromptTooLong, parseTokenGap, parseTokenTotal, truncateHead, TRUNCATION_MARKER, type Group } from '../ptl';
import { extractSummary, summaryRequestText } from './prompt';
import { estimateStringTokens } from '../../tokens/estimate';
import { asObject, obj, str } from '../../json';
import type { SummaryDetail } from '../../summaryDetail';

export interface SummaryMessage {
  role: 'user' | 'assistant';
  text: string;
}

export interface AnthropicOptions {
  apiKey: string;
  model: string;
  baseURL?: string;
  /** Output room of a request (scratchpad and summary): the caller gives the reserve of the summary's detail level. */
  maxTokens: number;
  /** How much the summary keeps: the request's instructions (summaryInstructions); standard when not given. */
  detail?: SummaryDetail;
  signal?: AbortSignal;
  instructions?: string;
  onProgress?: ProgressReporter;
  /**
   * The reply of the current request so far, each time text arrives (the raw reply, scratchpad
   * included; the summary is taken from it once complete). A retry starts again from empty.
   */
  onText?: (replySoFar: string) => void;
  /** Largest estimated request per summary call; bigger sessions are summarized in chunks. */
  chunkTokens: number;
  /** Head-truncation retries after prompt-too-long. */
  maxPtlRetries: number;
  timeoutMs?: number;
  maxRetries?: number;
  /** The session's calibration, as applied to the groups' token estimates. */
  calibration?: number;
}

export interface AnthropicSummary {
  summary: string;
  attempts: AttemptRecord[];
  /** Rounds (group payload ids) cut without being summarized. */
  droppedRounds: number[];
}

export class PromptTooLongExhausted extends Error {
  constructor(
    readonly attempts: AttemptRecord[],
    readonly droppedRounds: number[],
  ) {
    super('the summary request was still too long after head truncation');
  }
}

/** The SDK's client class (its error classes are its statics). */
type Sdk = typeof Anthropic;

/** The SDK, loaded on first use (the module system keeps it once loaded). */
async function loadSdk(): Promise<Sdk> {
  return (await import('@anthropic-ai/sdk')).default;
}

/** Error from the SDK → a CompactError that says what to do; null for prompt-too-long. */
function classifyApiError(Anthropic: Sdk, err: unknown, signal?: AbortSignal): CompactError | null {
  if (signal?.aborted || err instanceof Anthropic.APIUserAbortError)
    return new CompactError('cancelled', 'Compaction cancelled; nothing was written.', err);
  if (isPromptTooLong(err)) return null;
  if (err instanceof Anthropic.APIConnectionTimeoutError) {
    return new CompactError(
      'network',
      'The Anthropic API did not answer in time. Check the base URL and your network, or use the offline extractive summary.',
      err,
    );
  }
  if (err instanceof Anthropic.APIConnectionError) {
    return new CompactError(
      'network',
      `Could not reach the Anthropic API (${(err as Error).message}). Check the base URL and your network, or use the offline extractive summary.`,
      err,
    );
  }
  if (isApiError(Anthropic, err)) {
    const status = err.status;
    const detail = apiMessage(err);
    if (status === 401)
      return new CompactError(
        'auth',
        `The Anthropic API rejected the API key (401: ${detail}). Set a valid key, or use the offline extractive summary.`,
        err,
      );
    if (status === 403)
      return new CompactError(
        'auth',
        `The API key is not allowed to do this (403: ${detail}). Check the key's permissions, or use the offline extractive summary.`,
        err,
      );
    if (status === 404)
      return new CompactError(
        'not-found',
        `The Anthropic API does not know this model (404: ${detail}). Choose another model in the settings.`,
        err,
      );
    if (status === 429)
      return new CompactError(
        'api',
        `Rate limited by the Anthropic API (429: ${detail}), still after retries. Wait a minute and try again, or use the offline extractive summary.`,
        err,
      );
    if (status === 529)
      return new CompactError(
        'api',
        `The Anthropic API is overloaded (529: ${detail}), still after retries. Try again later, or use the offline extractive summary.`,
        err,
      );
    if (status !== undefined && status >= 500)
      return new CompactError(
        'api',
        `The Anthropic API failed (${status}: ${detail}), still after retries. Try again later, or use the offline extractive summary.`,
        err,
      );
    // No status: an `error` event inside a 200 stream. The request was accepted, so say it failed midway.
    if (status === undefined) {
      const type = str(obj(asObject(err.error), 'error'), 'type') ?? 'error';
      return new CompactError(
        'api',
        `The Anthropic API failed in the middle of the summary (${type}: ${detail}). Try again later, or use the offline extractive summary.`,
        err,
      );
    }
    return new CompactError(
      'api',
      `The Anthropic API refused the summary request (${status}: ${detail}). Check the model and settings, or use the offline extractive summary.`,
      err,
    );
  }
  // A connection cut mid-stream ("terminated") and an unreadable stream (invalid JSON) arrive as
  // low-level errors: name the cause and what to do.
  const chain = causeChain(err);
  if (
    chain.some(
      (e) =>
        (e instanceof TypeError && /terminated/i.test(e.message)) || isSocketErrorCode((e as { code?: unknown }).code),
    )
  ) {
    return new CompactError(
      'network',
      `The connection to the Anthropic API broke while the summary was streaming (${(err as Error).message}). Check your network or proxy and try again, or use the offline extractive summary.`,
      err,
    );
  }
  if (chain.some((e) => e instanceof SyntaxError)) {
    return new CompactError(
      'api',
      `The Anthropic API sent an answer that could not be read (invalid JSON: ${(err as Error).message}). Check that the base URL points at the Anthropic Messages API, or use the offline extractive summary.`,
      err,
    );
  }
  return new CompactError(
    'api',
    `The summary request failed: ${err instanceof Error ? err.message : String(err)}`,
    err,
  );
}

/** `instanceof Anthropic.APIError`, typed with the class's declared parameters (the SDK's own narrowing gives `any`). */
function isApiError(Anthropic: Sdk, err: unknown): err is InstanceType<Sdk['APIError']> {
  return err instanceof Anthropic.APIError;
}

function isSocketErrorCode(code: unknown): boolean {
  return typeof code === 'string' && /^(UND_ERR_SOCKET|ECONNRESET|EPIPE)$/.test(code);
}

function causeChain(err: unknown): unknown[] {
  const out: unknown[] = [];
  for (let e = err, depth = 0; e && depth < 6; e = (e as { cause?: unknown }).cause, depth++) out.push(e);
  return out;
}

function apiMessage(err: InstanceType<Sdk['APIError']>): string {
  return str(obj(asObject(err.error), 'error'), 'message') ?? err.message;
}

/** Alternating user/assistant messages for the API, starting with a user turn. */
function toRequestMessages(groups: Group<SummaryMessage[]>[], prefix: string | null, request: string) {
  const flat: SummaryMessage[] = [];
  if (prefix) flat.push({ role: 'user', text: prefix });
  // One by one: a round of many short lines would overflow the stack as spread arguments.
  for (const g of groups) for (const m of g.payload) flat.push(m);
  flat.push({ role: 'user', text: request });
  const merged: { role: 'user' | 'assistant'; content: string }[] = [];
  for (const m of flat) {
    const prev = merged[merged.length - 1];
    if (prev && prev.role === m.role) prev.content += `\n\n${m.text}`;
    else merged.push({ role: m.role, content: m.text });
  }
  if (merged[0]?.role !== 'user') merged.unshift({ role: 'user', content: TRUNCATION_MARKER });
  return merged;
}

interface Reply {
  text: string;
  stopReason: string | null;
}

async function callOnce(
  client: Anthropic,
  opts: AnthropicOptions,
  maxTokens: number,
  messages: { role: 'user' | 'assistant'; content: string }[],
): Promise<Reply> {
  const stream = client.messages.stream(
    { model: opts.model, max_tokens: maxTokens, messages },
    { signal: opts.signal },
  );
  const onText = opts.onText;
  if (onText) {
    onText('');
    stream.on('text', (_delta, snapshot) => onText(snapshot));
  }
  const final = await stream.finalMessage();
  return { text: final.content.map((b) => (b.type === 'text' ? b.text : '')).join(''), stopReason: final.stop_reason };
}

/**
 * Output room for the retry after a reply without a complete summary. `max_tokens` covers the
 * <analysis> scratchpad too, which is often as long as the summary or longer, so the retry gets
 * 4× the first request (three summaries' worth of scratchpad), capped at 32k: the output size
 * Claude Code itself asks for by default, accepted by current models (a model with a lower cap
 * answers 400, which falls back like any other API failure). The caller still clips the written
 * summary to its budget, so the extra room never makes the result larger.
 */
export const CUT_OFF_RETRY_MAX_TOKENS_CEILING = 32_000;

export function cutOffRetryMaxTokens(first: number): number {
  return Math.max(first, Math.min(first * 4, CUT_OFF_RETRY_MAX_TOKENS_CEILING));
}

export type ReplyVerdict = { ok: true; summary: string } | { ok: false; problem: string };

/**
 * A reply counts only with a complete <summary>…</summary> block and a natural stop; a reply cut
 * off by max_tokens is refused even after </summary>, since what was cut cannot be seen.
 * `problem` completes the sentence "the model's reply …".
 */
export function judgeSummaryReply(text: string, stopReason: string | null): ReplyVerdict {
  const summary = extractSummary(text);
  if (stopReason === 'max_tokens')
    return {
      ok: false,
      problem:
        summary === null ? 'was cut off by max_tokens before </summary>' : 'was cut off by max_tokens after </summary>',
    };
  if (summary === null)
    return {
      ok: false,
      problem: /<summary>/i.test(text) ? 'had no complete <summary> block (no </summary>)' : 'had no <summary> block',
    };
  return { ok: true, summary };
}

/**
 * Summarizes `groups` (one per round, oldest first). Chunks when the estimated size exceeds
 * `chunkTokens`, carrying the running summary forward. On prompt-too-long, drops head groups
 * sized by the reported gap and retries up to `maxPtlRetries` times, then gives up.
 */
export async function summarizeWithAnthropic(
  groups: Group<SummaryMessage[]>[],
  ids: number[],
  opts: AnthropicOptions,
): Promise<AnthropicSummary> {
  const Anthropic = await loadSdk();
  const client = new Anthropic({
    apiKey: opts.apiKey,
    baseURL: opts.baseURL,
    maxRetries: opts.maxRetries ?? 3,
    timeout: opts.timeoutMs ?? 120_000,
  });
  const attempts: AttemptRecord[] = [];
  const droppedRounds: number[] = [];
  const chunks: { groups: Group<SummaryMessage[]>[]; ids: number[] }[] = [];
  let cur: { groups: Group<SummaryMessage[]>[]; ids: number[] } = { groups: [], ids: [] };
  let acc = 0;
  groups.forEach((g, i) => {
    if (cur.groups.length && acc + g.tokens > opts.chunkTokens) {
      chunks.push(cur);
      cur = { groups: [], ids: [] };
      acc = 0;
    }
    cur.groups.push(g);
    cur.ids.push(ids[i]);
    acc += g.tokens;
  });
  if (cur.groups.length) chunks.push(cur);

  let running: string | null = null;
  let attemptNo = 0;
  // Once a reply was cut off, every later request (and chunk) gets the extra room and the
  // reminder, and a cut-off reply with them is final: there is no more room to give.
  let roomy = false;
  for (let c = 0; c < chunks.length; c++) {
    let work = chunks[c].groups.map((g, i) => ({ ...g, payload: g.payload, id: chunks[c].ids[i] }));
    const chunkLabel = chunks.length > 1 ? ` (part ${c + 1}/${chunks.length})` : '';
    let ptlRetries = 0;
    let progress = `Requesting summary from ${opts.model}${chunkLabel}…`;
    for (;;) {
      attemptNo++;
      const strategy: AttemptRecord['strategy'] = ptlRetries === 0 ? 'anthropic' : 'anthropic-truncated';
      const maxTokens = roomy ? cutOffRetryMaxTokens(opts.maxTokens) : opts.maxTokens;
      const prefix = running ? `Summary of the conversation before this part:\n${running}` : null;
      const request = summaryRequestText(opts.instructions, {
        morePartsFollow: chunks.length > 1 && c < chunks.length - 1,
        tagsReminder: roomy,
        detail: opts.detail,
      });
      opts.onProgress?.(progress);
      let reply: Reply;
      try {
        reply = await callOnce(client, opts, maxTokens, toRequestMessages(work, prefix, request));
      } catch (err) {
        const classified = classifyApiError(Anthropic, err, opts.signal);
        if (classified) {
          attempts.push({
            attempt: attemptNo,
            strategy,
            outcome: classified.code === 'cancelled' ? 'cancelled' : 'error',
            detail: classified.message,
          });
          (classified as CompactError & { attempts?: AttemptRecord[] }).attempts = attempts;
          throw classified;
        }
        const gap = parseTokenGap(err);
        const record: AttemptRecord = {
          attempt: attemptNo,
          strategy,
          outcome: 'prompt-too-long',
          detail: err instanceof Error ? err.message : String(err),
          tokenGap: gap,
        };
        attempts.push(record);
        if (ptlRetries >= opts.maxPtlRetries) throw new PromptTooLongExhausted(attempts, droppedRounds);
        // The gap is in the API's tokens but the groups are sized by our estimate, and the two can
        // disagree (a skewed session calibration). Cut the same *fraction* of the request that the
        // API says is over, measured in our own units.
        const total = parseTokenTotal(err);
        const ours =
          work.reduce((s, w) => s + w.tokens, 0) +
          estimateStringTokens((prefix ?? '') + request, 'prose', opts.calibration || 1);
        const cutGap = gap !== null && total ? Math.ceil((gap / total) * ours) : gap;
        const cut = truncateHead(work, cutGap, () => ({
          tokens: 10,
          marker: true,
          firstRole: 'user' as const,
          payload: [{ role: 'user' as const, text: TRUNCATION_MARKER }],
          id: -1,
        }));
        if (!cut) throw new PromptTooLongExhausted(attempts, droppedRounds);
        const removed = work.filter((w) => !w.marker).slice(0, cut.dropped);
        for (const r of removed) droppedRounds.push(r.id);
        record.droppedRounds = cut.dropped;
        ptlRetries++;
        opts.onProgress?.(
          `Summary request too long${gap ? ` by ${gap} tokens` : ''}, dropping ${cut.dropped} oldest round${cut.dropped === 1 ? '' : 's'} and retrying (${ptlRetries + 1}/${opts.maxPtlRetries + 1})`,
        );
        work = cut.groups as typeof work;
        progress = `Retrying summary with ${work.filter((w) => !w.marker).length} rounds${chunkLabel} (${ptlRetries + 1}/${opts.maxPtlRetries + 1})…`;
        continue;
      }
      const verdict = judgeSummaryReply(reply.text, reply.stopReason);
      if (verdict.ok) {
        running = verdict.summary;
        attempts.push({
          attempt: attemptNo,
          strategy,
          outcome: 'ok',
          detail: `summary of ${work.filter((w) => !w.marker).length} rounds${chunkLabel}`,
        });
        break;
      }
      attempts.push({
        attempt: attemptNo,
        strategy,
        outcome: 'error',
        detail: `the model's reply ${verdict.problem} (max_tokens ${maxTokens}, stop_reason ${reply.stopReason ?? 'none'}, ${reply.text.length} characters)${chunkLabel}`,
      });
      if (roomy) {
        const error = new CompactError(
          'api',
          `The model's reply had no complete summary${chunkLabel}: it ${verdict.problem}, even with max_tokens ${maxTokens} and the request to put the summary in <summary></summary> tags. Raise the summary max tokens or try another model, or use the offline extractive summary.`,
        );
        (error as CompactError & { attempts?: AttemptRecord[] }).attempts = attempts;
        throw error;
      }
      roomy = true;
      progress = `The model's reply${chunkLabel} ${verdict.problem}; retrying with max_tokens ${cutOffRetryMaxTokens(opts.maxTokens)} and a reminder to close the <summary> tag…`;
    }
  }
  return { summary: running ?? '', attempts, droppedRounds };
}
