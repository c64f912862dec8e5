// Prompt-too-long: recognise it in every shape it arrives in, read the token gap when the
// message has the numbers, and cut whole API-round groups from the head to cover it.

const PTL_PATTERNS = [
  /prompt is too long/i,
  /input length and `?max_tokens`? exceed context limit/i,
  /context[_ ]length[_ ]exceeded/i,
  /request too large/i,
  /request_too_large/i,
  /maximum context length/i,
  /too many tokens/i,
];

function messagesOf(err: unknown, depth = 0): string[] {
  if (!err || depth > 8) return [];
  if (typeof err === 'string') return [err];
  if (typeof err !== 'object') return [];
  const o = err as Record<string, unknown>;
  const out: string[] = [];
  if (typeof o.message === 'string') out.push(o.message);
  // Anthropic SDK APIError keeps the parsed body in `error`: {type:'error', error:{type, message}}.
  if (o.error && typeof o.error === 'object') out.push(...messagesOf(o.error, depth + 1));
  if (o.cause) out.push(...messagesOf(o.cause, depth + 1));
  if (Array.isArray(o.errors)) for (const e of o.errors) out.push(...messagesOf(e, depth + 1));
  return out;
}

function statusOf(err: unknown, depth = 0): number | undefined {
  if (!err || typeof err !== 'object' || depth > 8) return undefined;
  const o = err as Record<string, unknown>;
  if (typeof o.status === 'number') return o.status;
  return statusOf(o.cause, depth + 1);
}

/** True when an error (or anything in its cause chain) says the prompt was too long. */
export function isPromptTooLong(err: unknown): boolean {
  if (statusOf(err) === 413) return true;
  return messagesOf(err).some((m) => PTL_PATTERNS.some((p) => p.test(m)));
}

/** Tokens by which the prompt exceeded the limit, when the message says so; else null. */
export function parseTokenGap(err: unknown): number | null {
  for (const m of messagesOf(err)) {
    const a = /prompt is too long[^0-9]*(\d+)\s*tokens?\s*>\s*(\d+)/i.exec(m);
    if (a) return Math.max(1, Number(a[1]) - Number(a[2]));
    const b = /exceed context limit:\s*(\d+)\s*\+\s*(\d+)\s*>\s*(\d+)/i.exec(m);
    if (b) return Math.max(1, Number(b[1]) + Number(b[2]) - Number(b[3]));
    const c = /(\d+)\s*tokens?\s*>\s*(\d+)\s*maximum/i.exec(m);
    if (c) return Math.max(1, Number(c[1]) - Number(c[2]));
  }
  return null;
}

/** Input tokens of the refused request as the API counted them, when the message says so; else null. */
export function parseTokenTotal(err: unknown): number | null {
  for (const m of messagesOf(err)) {
    const a = /prompt is too long[^0-9]*(\d+)\s*tokens?\s*>\s*(\d+)/i.exec(m);
    if (a) return Number(a[1]);
    const b = /exceed context limit:\s*(\d+)\s*\+\s*(\d+)\s*>\s*(\d+)/i.exec(m);
    if (b) return Number(b[1]);
    const c = /(\d+)\s*tokens?\s*>\s*(\d+)\s*maximum/i.exec(m);
    if (c) return Number(c[1]);
  }
  return null;
}

export const TRUNCATION_MARKER = '[earlier conversation truncated for compaction retry]';

export interface Group<T> {
  /** Tokens this group costs in the request (estimated). */
  tokens: number;
  /** True for the synthetic marker group added by an earlier retry. */
  marker?: boolean;
  /** Role of the group's first message. */
  firstRole: 'user' | 'assistant';
  payload: T;
}

export interface TruncationResult<T> {
  groups: Group<T>[];
  /** Number of real groups dropped this time. */
  dropped: number;
  droppedTokens: number;
  /** True when a marker group was prepended because the list would start with an assistant turn. */
  markerAdded: boolean;
}

/**
 * Drops whole groups from the head, oldest first, until `gap` tokens are covered; without
 * a gap, drops 20% of the groups (at least one). Strips an earlier retry's marker first so
 * each retry makes real progress. Keeps at least one group; returns null if nothing safe remains.
 */
export function truncateHead<T>(
  groups: Group<T>[],
  gap: number | null,
  makeMarker: () => Group<T>,
): TruncationResult<T> | null {
  const real = groups.filter((g) => !g.marker);
  if (real.length <= 1) return null;
  let drop = 0;
  let droppedTokens = 0;
  if (gap !== null && gap > 0) {
    while (drop < real.length - 1 && droppedTokens < gap) {
      droppedTokens += real[drop].tokens;
      drop++;
    }
  } else {
    drop = Math.max(1, Math.floor(real.length * 0.2));
    drop = Math.min(drop, real.length - 1);
    for (let i = 0; i < drop; i++) droppedTokens += real[i].tokens;
  }
  if (drop === 0) return null;
  const rest = real.slice(drop);
  let markerAdded = false;
  if (rest[0].firstRole === 'assistant') {
    rest.unshift(makeMarker());
    markerAdded = true;
  }
  return { groups: rest, dropped: drop, droppedTokens, markerAdded };
}
