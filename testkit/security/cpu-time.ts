/**
 * CPU milliseconds `run` takes in this process. Timing tests measure CPU, not wall time, so a machine shared with
 * other work does not make them flaky.
 */
export function cpuMs(run: () => void): number {
  const before = process.cpuUsage();
  run();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

/**
 * Least CPU time of `run`, trying up to `attempts` runs but stopping at the first under `limit`. On a machine shared
 * with other work a run can take twice its time; a super-linear pattern misses the limit on every run (by seconds).
 */
export function leastCpuMsUnder(limit: number, run: () => void, attempts = 15): number {
  run();
  let least = Infinity;
  for (let i = 0; i < attempts && least >= limit; i++) least = Math.min(least, cpuMs(run));
  return least;
}
