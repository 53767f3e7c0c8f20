// Many API writes at once, but never all of them: a few in flight keep the
// round trips overlapping without flooding the API server (or this process
// with thousands of sockets).

/** Runs `task` for every item, at most `limit` at a time; resolves when all ended. `task` must not reject. */
export async function forEachBounded<T>(items: readonly T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
  if (!(limit >= 1)) throw new RangeError(`limit must be at least 1, got ${limit}`);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next] as T;
      next += 1;
      await task(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
