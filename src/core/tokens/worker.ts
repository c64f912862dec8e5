// Worker-thread entry for exact token counts, so the extension host never blocks on a
// tokenizer pass. Built as its own bundle (dist/tokens-worker.js); `pool.ts` starts it.
// Protocol: receives { id, texts: string[] }, replies { id, counts: number[] } or { id, error }.
import { parentPort } from 'node:worker_threads';
import { countTokensExact } from './exact';

export interface CountRequest {
  id: number;
  texts: string[];
}

export type CountReply = { id: number; counts: number[] } | { id: number; error: string };

if (parentPort) {
  const port = parentPort;
  port.on('message', (msg: CountRequest) => {
    try {
      port.postMessage({ id: msg.id, counts: msg.texts.map((t) => countTokensExact(t)) } satisfies CountReply);
    } catch (err) {
      port.postMessage({ id: msg.id, error: err instanceof Error ? err.message : String(err) } satisfies CountReply);
    }
  });
}
