// Off-main-thread exact token counting: one lazily started worker (the encoder is built
// once inside it), requests queued in order, the worker unref'd so it never keeps the
// process alive. The worker bundle is dist/tokens-worker.js (built from ./worker.ts); this
// module does not import the encoder itself, so bundles using it stay small.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { CountReply } from './worker';

let worker: Worker | undefined;
let nextId = 1;
const pending = new Map<number, { resolve: (counts: number[]) => void; reject: (err: Error) => void }>();
let workerPath: string | undefined;

/**
 * Sets the worker script (default: `tokens-worker.js` beside the running bundle, i.e.
 * dist/tokens-worker.js built from src/core/tokens/worker.ts).
 */
export function setTokenWorkerPath(path: string): void {
  workerPath = path;
}

function defaultWorkerPath(): string | undefined {
  const candidates = [
    workerPath,
    join(__dirname, 'tokens-worker.js'),
    join(__dirname, '..', 'dist', 'tokens-worker.js'),
  ];
  return candidates.find((p): p is string => !!p && existsSync(p));
}

function failAll(w: Worker, err: Error): void {
  if (worker !== w) return;
  worker = undefined;
  for (const p of pending.values()) p.reject(err);
  pending.clear();
}

function getWorker(): Worker {
  if (worker) return worker;
  const path = defaultWorkerPath();
  if (!path) throw new Error('token worker bundle (tokens-worker.js) not found; build it or call setTokenWorkerPath()');
  const w = new Worker(path);
  w.unref();
  w.on('message', (msg: CountReply) => {
    const p = pending.get(msg.id);
    if (!p) return;
    pending.delete(msg.id);
    if ('error' in msg) p.reject(new Error(msg.error));
    else p.resolve(msg.counts);
    if (pending.size === 0) w.unref();
  });
  w.on('error', (err) => failAll(w, err));
  w.on('exit', (code) => failAll(w, new Error(`token worker exited (${code})`)));
  worker = w;
  return w;
}

/** Exact o200k_base token counts of `texts`, computed on a worker thread. */
export async function countInWorker(texts: string[]): Promise<number[]> {
  if (texts.length === 0) return [];
  const w = getWorker();
  const id = nextId++;
  return new Promise<number[]>((resolve, reject) => {
    pending.set(id, { resolve, reject });
    w.ref(); // keep the process alive while an answer is due
    w.postMessage({ id, texts });
  });
}

/** Stops the worker (pending requests are rejected). */
export async function stopTokenWorker(): Promise<void> {
  const w = worker;
  if (!w) return;
  failAll(w, new Error('token worker stopped'));
  await w.terminate();
}
