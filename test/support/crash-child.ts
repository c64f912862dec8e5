// A child process for test/integration/property/crash.test.ts: compacts one transcript in place through the library and stops at
// every progress step the library reports, so the parent can SIGKILL it at a known point of the run whatever the
// machine's speed.
//   argv: <file> <settings as JSON> [restore <backup> | undo | repair | compact <settings> | fork-before <n>]
//   stdout: `step <n> <message>` at each progress step; the child then waits for one byte on stdin before going on
//           (stdin closed: it no longer waits); `done` when the compaction finished, `error <code> <message>` if not.
import { readSync, writeSync } from 'node:fs';
import { compactFile } from '../../src/core/compact/compact';
import { CompactError } from '../../src/core/compact/types';
import { restoreBackup } from '../../src/core/compact/backup';
import { undoCompaction } from '../../src/core/compact/undo';
import { readUndoRecord } from '../../src/core/compact/undoRecord';
import { repairFile } from '../../src/core/repair/repair';
import { forkBeforeCompaction } from '../../src/core/repair/forkBefore';

const [file, settingsJson] = process.argv.slice(2, 4);
const pause = new Int32Array(new SharedArrayBuffer(4));
let waiting = true;
let step = 0;

/** Blocks (the whole process, as the library is mid-step) until the parent sends a byte or closes stdin. */
function waitForParent(): void {
  const byte = Buffer.alloc(1);
  while (waiting) {
    try {
      if (readSync(0, byte, 0, 1, null) === 0) waiting = false;
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
      Atomics.wait(pause, 0, 0, 1);
    }
  }
}

/**
 * The other writing verbs (test/integration/property/crash-verbs.test.ts): `restore <backup>`, `undo` (the record
 * `agent-compactor compact` leaves beside the session), `repair` and `compact` (of another agent's session), all in
 * place, and `fork-before <n>`. They do not stop at steps: the
 * parent kills them some time after `ready`, which is printed just before the verb starts.
 */
function runVerb(verb: string, arg: string | undefined): Promise<unknown> {
  writeSync(1, 'ready\n');
  switch (verb) {
    case 'restore':
      return restoreBackup(file, arg!);
    case 'undo':
      return readUndoRecord(file).then((r) => undoCompaction(file, r));
    case 'repair':
      return repairFile(file, { inPlace: true });
    case 'compact':
      return compactFile(file, { summarizer: 'extractive', inPlace: true, settings: JSON.parse(arg!) as object });
    case 'fork-before':
      return forkBeforeCompaction(file, Number(arg));
    default:
      return Promise.reject(new Error(`unknown verb ${verb}`));
  }
}

const [verb, arg] = process.argv.slice(4);
(verb
  ? runVerb(verb, arg)
  : compactFile(file, {
      summarizer: 'extractive',
      inPlace: true,
      settings: JSON.parse(settingsJson) as object,
      onProgress: (message) => {
        writeSync(1, `step ${step++} ${message}\n`);
        waitForParent();
      },
    })
).then(
  () => {
    writeSync(1, 'done\n');
    process.exit(0);
  },
  (err: unknown) => {
    writeSync(
      1,
      `error ${err instanceof CompactError ? err.code : 'other'} ${err instanceof Error ? err.message : String(err)}\n`,
    );
    process.exit(1);
  },
);
