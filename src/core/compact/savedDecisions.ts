// The user's decisions saved with the session, in its state file beside the frozen budget
// decisions, so they survive reloads and come back with an in-place backup on Undo. Written
// under the session's compaction lock: a compaction rewrites the same file.
import { unlink } from 'node:fs/promises';
import { acquireLock } from '../io/lock';
import { writeFileAtomic } from '../io/atomic';
import { isEmptyDecisions, noDecisions, type UserDecisions } from './decisions';
import { loadState, statePath, type BudgetState } from './state';

/**
 * What is saved with a session that a plan follows: the frozen budget decisions of earlier compactions and the
 * user's decisions. Read here, at the edge (the CLI, the extension's store, compactFile's planning step), and passed
 * to the planner as values: the planner itself reads nothing of it.
 */
export interface SavedPlanInputs {
  state: BudgetState;
  decisions: UserDecisions;
}

export async function loadSavedPlanInputs(file: string): Promise<SavedPlanInputs> {
  const state = await loadState(file);
  return { state, decisions: state.steering ?? noDecisions() };
}

export async function loadDecisions(file: string): Promise<UserDecisions> {
  return (await loadState(file)).steering ?? noDecisions();
}

/** Saves `decisions` for `file` (empty decisions remove them), keeping everything else in its state file. */
export async function saveDecisions(file: string, decisions: UserDecisions): Promise<void> {
  const lock = await acquireLock(file);
  try {
    const state = await loadState(file);
    if (isEmptyDecisions(decisions)) delete state.steering;
    else state.steering = decisions;
    if (!state.steering && Object.keys(state.decisions).length === 0) {
      // A state file with nothing in it says no more than no file.
      await unlink(statePath(file)).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
      });
      return;
    }
    await writeFileAtomic(statePath(file), JSON.stringify(state, null, 1) + '\n');
  } finally {
    await lock.release();
  }
}

export async function clearDecisions(file: string): Promise<void> {
  await saveDecisions(file, noDecisions());
}
