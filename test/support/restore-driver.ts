// Restore From Backup as the extension runs it (core restoreBackup on the newest backup), in a process of its own so
// that a test can bound it in time and kill it: the CLI has no restore verb. Exit codes as the CLI's: 0 restored (or
// no backup to restore), 2 refused with a one-line reason (an unsafe path), 1 any other failure.
import { listBackups, restoreBackup } from '../../src/core/compact/backup';
import { CompactError } from '../../src/core/compact/types';

async function run(file: string): Promise<number> {
  try {
    const [newest] = await listBackups(file);
    if (newest) await restoreBackup(file, newest);
    return 0;
  } catch (err) {
    process.stderr.write(`agent-compactor: ${err instanceof Error ? err.message : String(err)}\n`);
    return err instanceof CompactError && err.code === 'unsafe-path' ? 2 : 1;
  }
}

void run(process.argv[2]).then((code) => {
  process.exitCode = code;
});
