// The optional notice (`agentCompactor.cacheExpiryNotice`, off by default) that the live session's prompt cache is
// about to expire while its context is large: the next prompt sent before then reads the context from the cache; one
// sent after writes it all anew. It only informs: nothing is compacted by itself. Time comes through `Timers` (the
// seam that lets it run on a fake clock). Pure: no `vscode` import.
import { dollars, ONE_HOUR_MS, type CacheState, type ExpiredResume } from '../../core/cache';
import { shortNumber } from './format';
import type { Timers } from './liveMarks';
import { EXPIRED_MARK_TOKENS } from './sessionsTree';

/** How long before the expiry the notice comes: a minute of a 5-minute cache, five of a 1-hour one. */
export function noticeLeadMs(ttlMs: number): number {
  return ttlMs === ONE_HOUR_MS ? 5 * 60_000 : 60_000;
}

/** What the notice is about: one session's cache as its newest response left it. */
export interface ExpiryWatch {
  file: string;
  title: string;
  cache: CacheState;
  contextTokens: number | null;
  expiredResume: ExpiredResume | null;
}

/** The notice's text, or null when the session does not call for one (cache not warm or of unknown lifetime, context small). */
export function expiryNoticeText(w: ExpiryWatch): string | null {
  const { cache, contextTokens } = w;
  if (cache.status !== 'warm' || cache.expiresAt === null || cache.ttlMs === null) return null;
  if (contextTokens === null || contextTokens < EXPIRED_MARK_TOKENS) return null;
  const until = new Date(cache.expiresAt).toISOString().slice(11, 16);
  const cost = w.expiredResume ? `, ≈ ${dollars(w.expiredResume.asIsUsd)}` : '';
  return `${w.title}: the prompt cache expires at ${until} UTC. A prompt sent after that re-writes ${shortNumber(contextTokens)} tokens${cost}; one sent before reads them from the cache.`;
}

/**
 * Schedules one notice per cache lifetime of each watched session: `noticeLeadMs` before it expires (at once when that
 * moment has passed but the cache is still warm). A newer response (a later expiry) replaces the pending notice; a
 * cache that expired, or a session that no longer calls for one, cancels it.
 */
export class CacheExpiryNotices {
  private readonly pending = new Map<string, { expiresAt: number; handle: unknown }>();
  private readonly shown = new Map<string, number>();

  constructor(
    private readonly timers: Timers,
    private readonly notify: (file: string, text: string) => void,
  ) {}

  watch(w: ExpiryWatch): void {
    const text = expiryNoticeText(w);
    const now = this.timers.now();
    const expiresAt = w.cache.expiresAt ?? 0;
    if (!text || now >= expiresAt || this.shown.get(w.file) === expiresAt) {
      this.cancel(w.file);
      return;
    }
    if (this.pending.get(w.file)?.expiresAt === expiresAt) return;
    this.cancel(w.file);
    const at = expiresAt - noticeLeadMs(w.cache.ttlMs ?? 0);
    const handle = this.timers.setTimeout(
      () => {
        this.pending.delete(w.file);
        this.shown.set(w.file, expiresAt);
        this.notify(w.file, text);
      },
      Math.max(0, at - now),
    );
    this.pending.set(w.file, { expiresAt, handle });
  }

  cancel(file: string): void {
    const p = this.pending.get(file);
    if (p) this.timers.clearTimeout(p.handle);
    this.pending.delete(file);
  }

  dispose(): void {
    for (const file of [...this.pending.keys()]) this.cancel(file);
  }
}
