// A child process that runs the built CLI's `main(args)` (dist/cli.js, loaded once) for one case after another, so
// that a suite running hundreds of short verbs pays Node's start and the bundle's load once per child rather than
// once per run (cliBatch.ts is the parent's side, and says when to use it).
//   argv: <path of dist/cli.js>
//   IPC in:  { id, args, home }: run `main(args)` with HOME set to `home`.
//   IPC out: { id, fd: 1 | 2, chunk } for each write to stdout / stderr while the case runs, then { id, status, fds }
//            once `main` has returned and nothing it started keeps the event loop busy any more (as a process of its
//            own would then exit); `fds` are files the case opened and left open.
// Everything a case may change of the process is put back after it: the environment, the working folder,
// process.exitCode, the streams' write methods. stdin is left alone (the parent holds it open and never writes).
import { readdirSync, readlinkSync } from 'node:fs';
import { createRequire } from 'node:module';

interface Request {
  id: number;
  args: string[];
  home: string;
}

const { main } = createRequire(__filename)(process.argv[2]) as { main: (args: string[]) => Promise<number> };
const cwd = process.cwd();
const env = { ...process.env };
// The streams' handles made now, before any case counts what keeps the event loop alive.
const streams = [process.stdout, process.stderr] as const;
const ownWrite = streams.map((s) => Object.getOwnPropertyDescriptor(s, 'write'));

function openFds(): Map<string, string> {
  const fds = new Map<string, string>();
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      fds.set(fd, readlinkSync(`/proc/self/fd/${fd}`));
    } catch {
      // The listing's own descriptor, closed by now.
    }
  }
  return fds;
}

function send(msg: object): Promise<void> {
  return new Promise((resolve, reject) => process.send!(msg, (err: Error | null) => (err ? reject(err) : resolve())));
}

/** Resources keeping the event loop alive, counted by type. */
function resources(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of process.getActiveResourcesInfo()) counts.set(r, (counts.get(r) ?? 0) + 1);
  return counts;
}

/** True when no type of resource is more numerous than in `base`. */
function settled(base: Map<string, number>): boolean {
  for (const [r, n] of resources()) if (n > (base.get(r) ?? 0)) return false;
  return true;
}

/** Resolves once nothing the case started keeps the event loop alive (never, if something always does). */
function drained(base: Map<string, number>): Promise<void> {
  return new Promise((resolve) => {
    // Checked from an immediate: a timer counts itself as active until its callback has returned.
    const poll = () => (settled(base) ? resolve() : setTimeout(() => setImmediate(poll), 5));
    setImmediate(poll);
  });
}

async function runCase(req: Request): Promise<void> {
  const base = resources();
  const fdsBefore = openFds();
  process.env.HOME = req.home;
  const writes: Promise<void>[] = [];
  const capture =
    (fd: 1 | 2) =>
    (chunk: string | Uint8Array, ...rest: unknown[]): boolean => {
      writes.push(send({ id: req.id, fd, chunk: typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString() }));
      const done = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
      done?.();
      return true;
    };
  streams.forEach((s, i) =>
    Object.defineProperty(s, 'write', { value: capture(i === 0 ? 1 : 2), configurable: true, writable: true }),
  );
  let status: number;
  try {
    status = await main(req.args);
  } catch (err) {
    // As dist/cli.js does with a rejection of main.
    process.stderr.write(`agent-compactor: ${err instanceof Error ? err.stack : String(err)}\n`);
    status = 1;
  }
  await drained(base);
  streams.forEach((s, i) => {
    const own = ownWrite[i];
    if (own) Object.defineProperty(s, 'write', own);
    else delete (s as { write?: unknown }).write;
  });
  process.exitCode = undefined;
  if (process.cwd() !== cwd) process.chdir(cwd);
  for (const k of Object.keys(process.env)) if (!(k in env)) delete process.env[k];
  Object.assign(process.env, env);
  const left = [...openFds()]
    .filter(([fd, target]) => !fdsBefore.has(fd) && target.startsWith('/'))
    .map(([fd, target]) => `${fd} -> ${target}`);
  await Promise.all(writes);
  await send({ id: req.id, status, fds: left });
}

let queue = Promise.resolve();
process.on('message', (req: Request) => {
  queue = queue.then(() => runCase(req));
});
