// Clear Compaction Preview: removes the plan marks from the tree and the editors.
import type { Services } from '../services';

/** Whether there was a preview to clear. */
export async function clearPreviewCommand(s: Services): Promise<boolean> {
  const had = s.store.plan !== null;
  await s.store.clearPreview();
  return had;
}
