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
 * Least CPU time of `times` runs, after one run that compiles the code: other work on the machine (cache, frequency,
 * the collector) only ever adds to a run, so the least is the truest figure.
 */
export function leastCpuMs(run: () => void, times = 5): number {
  run();
  return Math.min(...Array.from({ length: times }, () => cpuMs(run)));
}
