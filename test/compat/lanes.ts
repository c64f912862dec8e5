// Runs the real-CLI work of a describe block two jobs at a time, and reports each job as its own it().
//
// A compat test spends its time waiting on a real CLI (Claude Code, Codex). Jobs that share nothing (each its own
// HOME, each lane its own fake server) can run side by side: `Lanes.it(title, body)` registers the job and an it() of
// that title; `Lanes.run(lanes)`, called from the block's before(), runs every job on the given lanes (one job at a
// time per lane: a lane's fake records only its own job's requests) and keeps each job's outcome; each it() then
// reports its job's outcome, its assertion error as thrown, after writing what the job logged (`log`, kept until then
// so that each job's lines come with its own test). Nothing is reported while jobs run, so a job may capture this
// process's output (runCliInProcess) without catching the reporter's.
export type Log = (text: string) => void;

export class Lanes<L> {
  private readonly jobs: { title: string; body: (lane: L, log: Log) => Promise<void>; runs: number }[] = [];
  private readonly outcomes = new Map<number, { logged: string[] } & ({ ok: true } | { ok: false; error: unknown })>();

  /**
   * Registers `body` as a job and an it() of `title` that reports its outcome. `runs`, the real-CLI runs the job
   * makes, orders the jobs (the longest start first, so the lanes end together); the it()s keep their order.
   */
  it(title: string, body: (lane: L, log: Log) => Promise<void>, runs = 1): void {
    const index = this.jobs.push({ title, body, runs }) - 1;
    it(title, () => {
      const outcome = this.outcomes.get(index);
      if (!outcome) throw new Error(`the job "${title}" did not run: call run() from before()`);
      for (const text of outcome.logged) process.stdout.write(text);
      if (!outcome.ok) throw outcome.error;
    });
  }

  /** Runs every job on `lanes` (each lane one job at a time), the longest first. Never throws for a job. */
  async run(lanes: L[]): Promise<void> {
    const queue = this.jobs
      .map((job, index) => ({ ...job, index }))
      .sort((a, b) => b.runs - a.runs || a.index - b.index);
    await Promise.all(
      lanes.map(async (lane) => {
        for (let job = queue.shift(); job; job = queue.shift()) {
          const logged: string[] = [];
          try {
            await job.body(lane, (text) => logged.push(text));
            this.outcomes.set(job.index, { logged, ok: true });
          } catch (error) {
            this.outcomes.set(job.index, { logged, ok: false, error });
          }
        }
      }),
    );
  }
}

/** Jobs run side by side in a test: two, on a machine of two cores. */
export const LANES = 2;
