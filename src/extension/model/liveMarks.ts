// The "being written now" mark of the Sessions view, kept true between scans: a session is live while its file was
// modified within the quiet period by someone other than this window (OwnWrites), and the mark clears when that
// period passes with no append (a timer set for the moment the next mark expires), not only at the next scan of the
// folder. Time comes through `Timers`, the seam that lets the view run on a fake clock. Pure: no `vscode` import.
import { LIVE_MS, type SessionSummary } from '../../core/sessionList';

export interface Timers {
  now(): number;
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realTimers: Timers = {
  now: () => Date.now(),
  setTimeout: (run, ms) => setTimeout(run, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * The files this window wrote itself (a compaction's fork, a repaired or restored session), as they were right after:
 * while a file is exactly that, no agent is writing it, however recent its modification time.
 */
export class OwnWrites {
  private readonly written = new Map<string, { size: number; mtimeMs: number }>();

  record(w: { file: string; size: number; mtimeMs: number }): void {
    this.written.set(w.file, { size: w.size, mtimeMs: w.mtimeMs });
  }

  /** Whether `s` is, by size and modification time, what this window last wrote to its file. */
  wrote(s: Pick<SessionSummary, 'file' | 'size' | 'mtimeMs'>): boolean {
    const w = this.written.get(s.file);
    return !!w && w.size === s.size && w.mtimeMs === s.mtimeMs;
  }
}

export class LiveMarks {
  private timer: unknown;
  private due = Infinity;

  /** `expired` is called when a live mark should clear: call `apply` again then. */
  constructor(
    private readonly timers: Timers,
    private readonly expired: () => void,
    private readonly quietMs = LIVE_MS,
    private readonly own: OwnWrites = new OwnWrites(),
  ) {}

  /** `sessions` with each live mark as of now (unchanged objects where it holds); sets the timer for the next to clear. */
  apply<T extends SessionSummary>(sessions: readonly T[]): T[] {
    const now = this.timers.now();
    let next = Infinity;
    const out = sessions.map((s) => {
      const live = now - s.mtimeMs < this.quietMs && !this.own.wrote(s);
      if (live) next = Math.min(next, s.mtimeMs + this.quietMs);
      return live === s.live ? s : { ...s, live };
    });
    this.schedule(next, now);
    return out;
  }

  private schedule(at: number, now: number): void {
    if (at === this.due) return;
    this.stop();
    this.due = at;
    if (at === Infinity) return;
    this.timer = this.timers.setTimeout(
      () => {
        this.timer = undefined;
        this.due = Infinity;
        this.expired();
      },
      Math.max(0, at - now),
    );
  }

  private stop(): void {
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
    this.timer = undefined;
    this.due = Infinity;
  }

  dispose(): void {
    this.stop();
  }
}
