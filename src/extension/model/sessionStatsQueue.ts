// Rounds and cost for the Sessions view, worked out in the background one file at a time (newest wanted first) and
// kept while the file's size and mtime stay the same. Only sessions the user can see are wanted (those of expanded
// projects), and a session being written is not read again until it goes quiet: a 100 MB live session is not
// re-read on every append. Pure: no `vscode` import.
import type { SessionSummary } from '../../core/sessionList';
import type { SessionStats } from '../../core/sessionStats';

/** What the view shows for a session's rounds and cost. */
export type StatsState =
  | { kind: 'ready'; stats: SessionStats; stale: boolean }
  | { kind: 'pending' }
  | { kind: 'failed'; reason: string }
  | { kind: 'none' };

export class SessionStatsQueue {
  private readonly done = new Map<string, SessionStats>();
  private readonly failed = new Map<string, { size: number; mtimeMs: number; reason: string }>();
  private readonly waiting: SessionSummary[] = [];
  private running: Promise<void> | null = null;

  /** `compute` reads one file; `ready` is told after each file is done (or failed). */
  constructor(
    private readonly compute: (file: string) => Promise<SessionStats>,
    private readonly ready: (file: string) => void,
  ) {}

  private current(s: SessionSummary, st: { size: number; mtimeMs: number } | undefined): boolean {
    return !!st && st.size === s.size && st.mtimeMs === s.mtimeMs;
  }

  /** The state to show for `s` (nothing is read). */
  state(s: SessionSummary): StatsState {
    const got = this.done.get(s.file);
    // Figures of an earlier size are shown, marked, until the new ones are read.
    if (got) return { kind: 'ready', stats: got, stale: !this.current(s, got) };
    const bad = this.failed.get(s.file);
    if (bad && this.current(s, bad)) return { kind: 'failed', reason: bad.reason };
    return this.waiting.some((w) => w.file === s.file) ? { kind: 'pending' } : { kind: 'none' };
  }

  /** Asks for the figures of `sessions` (in this order, ahead of earlier requests); returns once they are queued. */
  want(sessions: readonly SessionSummary[]): void {
    const fresh = sessions.filter((s) => {
      if (this.current(s, this.done.get(s.file)) || this.current(s, this.failed.get(s.file))) return false;
      // Being written: keep what was read before until it goes quiet (the view asks again then).
      return !(s.live && this.done.has(s.file));
    });
    if (fresh.length === 0) return;
    const files = new Set(fresh.map((s) => s.file));
    const rest = this.waiting.filter((w) => !files.has(w.file));
    this.waiting.length = 0;
    this.waiting.push(...fresh, ...rest);
    this.running ??= this.drain().finally(() => (this.running = null));
  }

  /** Resolves when nothing is waiting. */
  idle(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  private async drain(): Promise<void> {
    for (let s = this.waiting[0]; s; s = this.waiting[0]) {
      try {
        const stats = await this.compute(s.file);
        this.done.set(s.file, stats);
        this.failed.delete(s.file);
      } catch (err) {
        this.failed.set(s.file, {
          size: s.size,
          mtimeMs: s.mtimeMs,
          reason: err instanceof Error ? err.message : String(err),
        });
      }
      const at = this.waiting.findIndex((w) => w.file === s.file);
      if (at !== -1) this.waiting.splice(at, 1);
      this.ready(s.file);
    }
  }
}
