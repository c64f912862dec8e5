// A clock for code that takes its time through `Timers` (src/extension/model/liveMarks.ts): time moves only when a
// test says so, and each timer runs at its moment, in order.
import type { Timers } from '../../src/extension/model/liveMarks';

export class FakeClock implements Timers {
  private t: number;
  private seq = 0;
  readonly pending = new Map<number, { at: number; run: () => void }>();
  constructor(start: number) {
    this.t = start;
  }
  now(): number {
    return this.t;
  }
  setTimeout(run: () => void, ms: number): unknown {
    const id = ++this.seq;
    this.pending.set(id, { at: this.t + ms, run });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
  }
  /** Moves time on by `ms`, running each timer at its moment, in order. */
  advance(ms: number): void {
    const end = this.t + ms;
    for (;;) {
      const next = [...this.pending].filter(([, p]) => p.at <= end).sort((a, b) => a[1].at - b[1].at || a[0] - b[0])[0];
      if (!next) break;
      this.pending.delete(next[0]);
      this.t = Math.max(this.t, next[1].at);
      next[1].run();
    }
    this.t = end;
  }
}
