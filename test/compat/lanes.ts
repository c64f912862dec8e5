// Runs the real-CLI work of a describe block two jobs at a time, and reports each job as its own it().
//
// A compat test spends its time waiting on a real CLI (Claude Code, Codex). Jobs that share nothing (each its own
// HOME, each lane its own fake server) can run side by side: `Lanes.it(title, body)` registers the job and an it() of
// that title; `Lanes.run(lanes)`, called from the block's before(), runs every job on the given lanes (one job at a
// time per lane: a lane's fake records only its own job's requests) and keeps each job's outcome; each it() then
// reports its job's outcome, its assertion error as thrown, after writing what the job logged (`log`, kept until then
// so that each job's lines come with its own test). Nothing is reported while jobs run, so a job may capture this
// process's output (runCliInProcess) without catching the reporter's.
//
// Mocha's --grep / --fgrep / --invert select tests when they run, after the before() hook that runs the jobs: a job
// whose it() mocha will not run is not started (`selected`), so that running one test runs one job.
import Mocha from 'mocha';

export type Log = (text: string) => void;

/** The selection mocha's runner was given (--grep / --fgrep, --invert), or undefined: every test runs. */
let selection: { re: RegExp; invert: boolean } | undefined;
// Mocha hands the selection to its runner (Runner#grep) after loading the test files and before running them, in a
// serial run and in each worker of a parallel one alike; this module is loaded with the test files, so it sees it.
const { prototype } = Mocha.Runner;
// eslint-disable-next-line @typescript-eslint/unbound-method -- called with its own runner below
const runnerGrep: (this: Mocha.Runner, re: RegExp, invert: boolean) => Mocha.Runner = prototype.grep;
prototype.grep = function (this: Mocha.Runner, re: RegExp, invert: boolean) {
  selection = { re, invert: invert === true }; // mocha passes undefined when there is no --invert
  return runnerGrep.call(this, re, invert);
};

/** Whether mocha runs the test of this full title under the selection it was given. */
export function selected(fullTitle: string): boolean {
  if (!selection) return true;
  selection.re.lastIndex = 0; // a /g selection keeps its place between tests
  return selection.re.test(fullTitle) !== selection.invert;
}

export class Lanes<L> {
  private readonly jobs: { test: Mocha.Test; body: (lane: L, log: Log) => Promise<void>; runs: number }[] = [];
  private readonly outcomes = new Map<number, { logged: string[] } & ({ ok: true } | { ok: false; error: unknown })>();

  /**
   * Registers `body` as a job and an it() of `title` that reports its outcome. `runs`, the real-CLI runs the job
   * makes, orders the jobs (the longest start first, so the lanes end together); the it()s keep their order.
   */
  it(title: string, body: (lane: L, log: Log) => Promise<void>, runs = 1): void {
    const index = this.jobs.length;
    const test = it(title, () => {
      const outcome = this.outcomes.get(index);
      if (!outcome) throw new Error(`the job "${title}" did not run: call run() from before()`);
      for (const text of outcome.logged) process.stdout.write(text);
      if (!outcome.ok) throw outcome.error;
    });
    this.jobs.push({ test, body, runs });
  }

  /**
   * Runs on `lanes` (each lane one job at a time), the longest first, every job whose it() mocha will run (see
   * `selected`). Never throws for a job.
   */
  async run(lanes: L[]): Promise<void> {
    const queue = this.jobs
      .map((job, index) => ({ ...job, index }))
      .filter((job) => selected(job.test.fullTitle()))
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
