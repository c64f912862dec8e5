// Summary through the Anthropic Messages API (the real @anthropic-ai/sdk): streamed,
// cancellable, retried on 429/529/5xx by the SDK (it honours retry-after), failing fast on
// 401/403/404, and on prompt-too-long cutting whole rounds from the head and trying again.
import Anthropic from '@anthropic-ai/sdk';
import { CompactError, type AttemptRecord, type ProgressReporter } from '../types';
import { isPromptTooLong, parseTokenGap, parseTokenTotal, truncateHead, TRUNCATION_MARKER, type Group } from '../ptl';
import { extractSummary, summaryRequestText } from './prompt';

export interface SummaryMessage {
  role: 'user' | 'assistant';
  text: string;
}

export interface AnthropicOptions {
  apiKey: string;
  model: string;
  baseURL?: string;
  maxTokens: number;
  signal?: AbortSignal;
  instructions?: string;
  onProgress?: ProgressReporter;
  /** Largest estimated request per summary call; bigger sessions are summarized in chunks. */
  chunkTokens: number;
  /** Head-truncation retries after prompt-too-long. */
  maxPtlRetries: number;
  timeoutMs?: number;
  maxRetries?: number;
}

export interface AnthropicSummary {
  summary: string;
  attempts: AttemptRecord[];
  /** Rounds (group payload ids) cut without being summarized. */
  droppedRounds: number[];
}

export class PromptTooLongExhausted extends Error {
  constructor(readonly attempts: AttemptRecord[], readonly droppedRounds: number[]) {
    super('the summary request was still too long after head truncation');
  }
}

/** Error from the SDK → a CompactError that says what to do; null for prompt-too-long. */
export function classifyApiError(err: unknown, signal?: AbortSignal): CompactError | null {
  if (signal?.aborted || err instanceof Anthropic.APIUserAbortError) return new CompactError('cancelled', 'Compaction cancelled; nothing was written.', err);
  if (isPromptTooLong(err)) return null;
  if (err instanceof Anthropic.APIConnectionTimeoutError) {
    return new CompactError('network', 'The Anthropic API did not answer in time. Check the base URL and your network, or use the offline extractive summary.', err);
  }
  if (err instanceof Anthropic.APIConnectionError) {
    return new CompactError('network', `Could not reach the Anthropic API (${(err as Error).message}). Check the base URL and your network, or use the offline extractive summary.`, err);
  }
  if (err instanceof Anthropic.APIError) {
    const status = err.status;
    const detail = apiMessage(err);
    if (status === 401) return new CompactError('auth', `The Anthropic API rejected the API key (401: ${detail}). Set a valid key, or use the offline extractive summary.`, err);
    if (status === 403) return new CompactError('auth', `The API key is not allowed to do this (403: ${detail}). Check the key's permissions, or use the offline extractive summary.`, err);
    if (status === 404) return new CompactError('not-found', `The Anthropic API does not know this model (404: ${detail}). Choose another model in the settings.`, err);
    if (status === 429) return new CompactError('api', `Rate limited by the Anthropic API (429: ${detail}), still after retries. Wait a minute and try again, or use the offline extractive summary.`, err);
    if (status === 529) return new CompactError('api', `The Anthropic API is overloaded (529: ${detail}), still after retries. Try again later, or use the offline extractive summary.`, err);
    if (status !== undefined && status >= 500) return new CompactError('api', `The Anthropic API failed (${status}: ${detail}), still after retries. Try again later, or use the offline extractive summary.`, err);
    // Reliability fix (failing-API table): an `error` event inside a 200 stream has no status and
    // used to read "refused the summary request (stream error: …)", which is not what happened.
    if (status === undefined) {
      const type = (err.error as { error?: { type?: string } } | undefined)?.error?.type ?? 'error';
      return new CompactError('api', `The Anthropic API failed in the middle of the summary (${type}: ${detail}). Try again later, or use the offline extractive summary.`, err);
    }
    return new CompactError('api', `The Anthropic API refused the summary request (${status}: ${detail}). Check the model and settings, or use the offline extractive summary.`, err);
  }
  // Reliability fix (failing-API table): a connection cut mid-stream ("terminated") and an
  // unreadable stream (invalid JSON) used to surface as "The summary request failed: terminated"
  // or a bare JSON parser message, naming neither the cause nor what to do.
  const chain = causeChain(err);
  if (chain.some((e) => (e instanceof TypeError && /terminated/i.test(e.message)) || /^(UND_ERR_SOCKET|ECONNRESET|EPIPE)$/.test(String((e as { code?: unknown }).code ?? '')))) {
    return new CompactError('network', `The connection to the Anthropic API broke while the summary was streaming (${(err as Error).message}). Check your network or proxy and try again, or use the offline extractive summary.`, err);
  }
  if (chain.some((e) => e instanceof SyntaxError)) {
    return new CompactError('api', `The Anthropic API sent an answer that could not be read (invalid JSON: ${(err as Error).message}). Check that the base URL points at the Anthropic Messages API, or use the offline extractive summary.`, err);
  }
  return new CompactError('api', `The summary request failed: ${err instanceof Error ? err.message : String(err)}`, err);
}

function causeChain(err: unknown): unknown[] {
  const out: unknown[] = [];
  for (let e = err, depth = 0; e && depth < 6; e = (e as { cause?: unknown }).cause, depth++) out.push(e);
  return out;
}

function apiMessage(err: InstanceType<typeof Anthropic.APIError>): string {
  const body = err.error as { error?: { message?: string; type?: string } } | undefined;
  return body?.error?.message ?? err.message;
}

/** Alternating user/assistant messages for the API, starting with a user turn. */
function toRequestMessages(groups: Group<SummaryMessage[]>[], prefix: string | null, request: string) {
  const flat: SummaryMessage[] = [];
  if (prefix) flat.push({ role: 'user', text: prefix });
  for (const g of groups) flat.push(...g.payload);
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

async function callOnce(client: Anthropic, opts: AnthropicOptions, messages: { role: 'user' | 'assistant'; content: string }[]): Promise<string> {
  const stream = client.messages.stream({ model: opts.model, max_tokens: opts.maxTokens, messages }, { signal: opts.signal });
  const final = await stream.finalMessage();
  const text = final.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
  if (final.stop_reason === 'max_tokens' && !/<\/summary>/i.test(text) && text.length < 200) {
    throw new CompactError('api', 'The summary was cut off by max_tokens before it said anything useful; raise the summary max tokens.');
  }
  return text;
}

/**
 * Summarizes `groups` (one per round, oldest first). Chunks when the estimated size exceeds
 * `chunkTokens`, carrying the running summary forward. On prompt-too-long, drops head groups
 * sized by the reported gap and retries up to `maxPtlRetries` times, then gives up.
 */
export async function summarizeWithAnthropic(groups: Group<SummaryMessage[]>[], ids: number[], opts: AnthropicOptions): Promise<AnthropicSummary> {
  const client = new Anthropic({ apiKey: opts.apiKey, baseURL: opts.baseURL, maxRetries: opts.maxRetries ?? 3, timeout: opts.timeoutMs ?? 120_000 });
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
  for (let c = 0; c < chunks.length; c++) {
    let work = chunks[c].groups.map((g, i) => ({ ...g, payload: g.payload, id: chunks[c].ids[i] }));
    const chunkLabel = chunks.length > 1 ? ` (part ${c + 1}/${chunks.length})` : '';
    for (let retry = 0; ; retry++) {
      attemptNo++;
      const prefix = running ? `Summary of the conversation before this part:\n${running}` : null;
      const request = summaryRequestText(opts.instructions) + (chunks.length > 1 && c < chunks.length - 1 ? '\n\n(This is one part of a longer conversation; later parts follow.)' : '');
      opts.onProgress?.(retry === 0 ? `Requesting summary from ${opts.model}${chunkLabel}…` : `Retrying summary with ${work.filter((w) => !w.marker).length} rounds${chunkLabel} (${retry + 1}/${opts.maxPtlRetries + 1})…`);
      try {
        const reply = await callOnce(client, opts, toRequestMessages(work, prefix, request));
        running = extractSummary(reply);
        attempts.push({ attempt: attemptNo, strategy: retry === 0 ? 'anthropic' : 'anthropic-truncated', outcome: 'ok', detail: `summary of ${work.filter((w) => !w.marker).length} rounds${chunkLabel}` });
        break;
      } catch (err) {
        const classified = classifyApiError(err, opts.signal);
        if (classified) {
          attempts.push({ attempt: attemptNo, strategy: retry === 0 ? 'anthropic' : 'anthropic-truncated', outcome: classified.code === 'cancelled' ? 'cancelled' : 'error', detail: classified.message });
          (classified as CompactError & { attempts?: AttemptRecord[] }).attempts = attempts;
          throw classified;
        }
        const gap = parseTokenGap(err);
        const record: AttemptRecord = { attempt: attemptNo, strategy: retry === 0 ? 'anthropic' : 'anthropic-truncated', outcome: 'prompt-too-long', detail: err instanceof Error ? err.message : String(err), tokenGap: gap };
        attempts.push(record);
        if (retry >= opts.maxPtlRetries) throw new PromptTooLongExhausted(attempts, droppedRounds);
        // Reliability fix (failing-API table): the gap is in the API's tokens but the groups are
        // sized by our estimate; when the two disagree (a skewed session calibration) each retry
        // cut too little and three retries could all fail. Cut the same *fraction* of the request
        // that the API says is over, measured in our own units.
        const total = parseTokenTotal(err);
        const ours = work.reduce((s, w) => s + w.tokens, 0) + Math.round(((prefix?.length ?? 0) + request.length) * 0.3);
        const cutGap = gap !== null && total ? Math.ceil((gap / total) * ours) : gap;
        const cut = truncateHead(work, cutGap, () => ({ tokens: 10, marker: true, firstRole: 'user' as const, payload: [{ role: 'user' as const, text: TRUNCATION_MARKER }], id: -1 }));
        if (!cut) throw new PromptTooLongExhausted(attempts, droppedRounds);
        const removed = work.filter((w) => !w.marker).slice(0, cut.dropped);
        for (const r of removed) droppedRounds.push(r.id);
        record.droppedRounds = cut.dropped;
        opts.onProgress?.(`Summary request too long${gap ? ` by ${gap} tokens` : ''}, dropping ${cut.dropped} oldest round${cut.dropped === 1 ? '' : 's'} and retrying (${retry + 2}/${opts.maxPtlRetries + 1})`);
        work = cut.groups as typeof work;
      }
    }
  }
  return { summary: running ?? '', attempts, droppedRounds };
}
