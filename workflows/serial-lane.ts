/**
 * A lane that runs what is given to it one at a time, in the order given: how writes wait for each other while reads
 * run beside them (SPEC §7). A run that fails does not block the ones after it. Deterministic (promise order only),
 * so workflow code may use it.
 */
export type SerialLane = <T>(run: () => Promise<T>) => Promise<T>;

/** A new, empty {@link SerialLane}. */
export function serialLane(): SerialLane {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(run: () => Promise<T>): Promise<T> => {
    const next = tail.then(run);
    tail = next.catch(() => undefined);
    return next;
  };
}
