import { readFileSync, writeFileSync } from 'node:fs';

/**
 * The peak resident set size of this process, with a way to start a new peak. Linux keeps the peak (VmHWM) and
 * resets it to the current RSS when "5" is written to /proc/self/clear_refs; getrusage's maxRSS cannot be reset, so
 * a call measured after a larger allocation (building the benchmark's own data) would show no growth at all.
 */
export interface PeakRss {
  /** Starts a new peak at the current RSS and returns that RSS in bytes. */
  reset(): number;
  /** The peak since the last reset, in bytes. */
  peak(): number;
}

/** The Linux peak meter, or null where /proc does not offer it (the bench then reports no peak RSS). */
export function linuxPeakRss(): PeakRss | null {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
  } catch {
    return null;
  }
  const field = (name: string) => {
    const match = new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm').exec(readFileSync('/proc/self/status', 'utf8'));
    if (match === null) throw new Error(`/proc/self/status has no ${name}`);
    return Number(match[1]) * 1024;
  };
  return {
    reset: () => {
      writeFileSync('/proc/self/clear_refs', '5');
      return field('VmRSS');
    },
    peak: () => field('VmHWM'),
  };
}
