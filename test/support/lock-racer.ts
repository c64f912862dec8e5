// A child process for test/integration/lock.test.ts: takes part in lock races when told to, so that
// several real processes contend for one lock file. Commands arrive as JSON lines on stdin,
// answers leave as JSON lines on stdout:
//   {"cmd":"acquire","round":n,"file":f,"at":ms} → {"round":n,"pid":p,"won":true} | {"round":n,"pid":p,"won":false,"code":c,"message":m}
//     (waits until the wall clock reaches `at`, so all racers start together; a winner holds the lock)
//   {"cmd":"release","round":n}                  → {"round":n,"released":true}
import { createInterface } from 'node:readline';
import { acquireLock, type Lock } from '../../src/core/io/lock';
import { CompactError } from '../../src/core/compact/types';

let held: Lock | null = null;
const say = (o: object) => process.stdout.write(JSON.stringify(o) + '\n');

async function waitUntil(at: number): Promise<void> {
  const early = at - Date.now() - 3;
  if (early > 0) await new Promise((r) => setTimeout(r, early));
  while (Date.now() < at) {
    /* spin the last few ms: a timer alone wakes up too unevenly to make the racers collide */
  }
}

createInterface({ input: process.stdin }).on('line', (line) => {
  const msg = JSON.parse(line) as { cmd: string; round: number; file?: string; at?: number };
  void (async () => {
    if (msg.cmd === 'acquire') {
      await waitUntil(msg.at ?? 0);
      try {
        held = await acquireLock(msg.file!);
        say({ round: msg.round, pid: process.pid, won: true });
      } catch (err) {
        say({
          round: msg.round,
          pid: process.pid,
          won: false,
          code: err instanceof CompactError ? err.code : 'other',
          message: String((err as Error).message),
        });
      }
    } else if (msg.cmd === 'release') {
      await held?.release();
      held = null;
      say({ round: msg.round, released: true });
    }
  })();
});
say({ ready: true, pid: process.pid });
