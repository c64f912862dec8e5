// The built CLI (dist/cli.js) run for many cases in one child process, one case after another, each still bounded
// in time: for suites of hundreds of short runs whose point is what each verb does with what it finds, not the
// process's wiring (cli.ts spawns a process per run for that). A child (cli-batch-child.ts) loads the bundle once and
// calls its `main(args)` per case, putting back what a case may change of the process; a case that does not finish
// within its bound gets its child killed (the case then ends as a spawned run killed at that bound would: signal
// SIGKILL) and the next case a new child. As with a process of its own, a case is over when `main` has returned and
// nothing it started keeps the event loop alive; files it left open are reported.
import { type ChildProcess, spawn } from 'node:child_process';
import { CLI } from './cli';
import { repoRoot } from './fixtures';

/** A run's outcome, as a spawned run's would be. */
export interface BatchRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
  /** Files the run opened and left open (`<fd> -> <path>`): none, unless a verb leaks a file handle. */
  openFiles: string[];
}

/** What the child sends: a write of the case (`fd`, `chunk`), or its end (`status`, `fds`). */
interface Reply {
  id: number;
  fd?: 1 | 2;
  chunk?: string;
  status?: number;
  fds?: string[];
}

/**
 * One child at a time running cases one after another (`run` calls are queued). `env` is the children's environment;
 * their working folder is the repository's, stdin an open pipe nobody writes to.
 */
export class CliBatch {
  private child: ChildProcess | undefined;
  private nextId = 1;
  private queue: Promise<unknown> = Promise.resolve();
  /** A child that died between cases (a late error of the case before): reported by the next run. */
  private diedIdle: string | undefined;
  private childStderr = '';

  constructor(
    private readonly bundle: string,
    private readonly env: NodeJS.ProcessEnv,
    private readonly boundMs: number,
    /** The module whose `main(args)` runs (the built CLI). */
    private readonly cli = CLI,
  ) {}

  /** Runs `main(args)` with HOME `home`, in the current child or a new one. */
  run(args: string[], home: string): Promise<BatchRun> {
    const r = this.queue.then(() => this.runNow(args, home));
    this.queue = r.catch(() => undefined);
    return r;
  }

  /** Ends the child, if one is running (idle, it exits once its channel closes), once the cases queued are over. */
  async dispose(): Promise<void> {
    await this.queue;
    const child = this.child;
    this.child = undefined;
    if (!child) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.stdin?.destroy();
      child.disconnect();
    });
  }

  private start(): ChildProcess {
    const child = spawn(process.execPath, [this.bundle, this.cli], {
      cwd: repoRoot,
      env: this.env,
      stdio: ['pipe', 'ignore', 'pipe', 'ipc'],
    });
    this.childStderr = '';
    child.stderr!.on('data', (d: Buffer) => (this.childStderr += d.toString()));
    child.on('close', (code, signal) => {
      if (this.child !== child) return;
      this.child = undefined;
      if (child.listenerCount('message') === 0)
        this.diedIdle = `the batch child died between cases (code ${code}, signal ${signal}):\n${this.childStderr}`;
    });
    this.child = child;
    return child;
  }

  private runNow(args: string[], home: string): Promise<BatchRun> {
    if (this.diedIdle) return Promise.reject(new Error(this.diedIdle));
    const child = this.child ?? this.start();
    const id = this.nextId++;
    const started = Date.now();
    return new Promise((resolve) => {
      let stdout = '';
      let stderr = '';
      const finish = (code: number | null, signal: NodeJS.Signals | null, openFiles: string[]) => {
        clearTimeout(timer);
        child.off('message', onMessage);
        child.off('close', onExit);
        resolve({ code, signal, stdout, stderr, ms: Date.now() - started, openFiles });
      };
      const onMessage = (m: Reply) => {
        if (m.id !== id) return;
        if (m.fd === 1) stdout += m.chunk;
        else if (m.fd === 2) stderr += m.chunk;
        else if (m.status !== undefined) finish(m.status, null, m.fds ?? []);
      };
      // The child died during the case: what it printed itself (an uncaught error's stack) is the case's stderr.
      const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
        stderr += this.childStderr;
        finish(code, signal, []);
      };
      const timer = setTimeout(() => {
        this.child = undefined;
        child.kill('SIGKILL');
      }, this.boundMs);
      child.on('message', onMessage);
      child.on('close', onExit);
      child.send({ id, args, home });
    });
  }
}
