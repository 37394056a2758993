/**
 * Runs `run` over `items` with at most `limit` runs pending at once and returns the results in item order. Runs
 * start in item order, each as soon as an earlier one settles, so workflow code using it stays deterministic. Like
 * `Promise.all`, the first rejection rejects the whole (runs already started keep going).
 */
export async function mapBounded<T, R>(
  items: readonly T[],
  limit: number,
  run: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = [];
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await run(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}
