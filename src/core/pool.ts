// Asynchronous work over many items, a bounded number at once: files read or stat'ed in parallel overlap their waits
// on the disk without holding thousands open. Pure: no file system of its own.

/** Files read or stat'ed at once by default: enough to overlap the waits on the disk, few enough to hold open. */
export const POOL_SIZE = 8;

/** `task` of each item, at most `size` at once, the results in the items' order. */
export async function inPool<T, R>(items: readonly T[], task: (item: T) => Promise<R>, size = POOL_SIZE): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const k = next++;
      out[k] = await task(items[k]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(size, items.length) }, worker));
  return out;
}
