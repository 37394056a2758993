import { readdirSync, readFileSync } from 'node:fs';

/** What uses the CPU in a benchmark: this Node process (worker and client), the Temporal dev server, Postgres. */
export type CpuConsumer = 'node' | 'temporal' | 'postgres' | 'other';

/** CPU time in ms used so far, by consumer. */
export type CpuByConsumer = Record<CpuConsumer, number>;

/** Linux's USER_HZ: /proc reports CPU time in these ticks (100 per second on every mainstream kernel). */
const TICKS_PER_SECOND = 100;

interface ProcStat {
  readonly pid: number;
  readonly ppid: number;
  readonly comm: string;
  /** utime + stime: its own CPU time. */
  readonly ownTicks: number;
  /** cutime + cstime: its children's that it has reaped (a Postgres backend that exited). */
  readonly reapedTicks: number;
}

function readStat(pid: string): ProcStat | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null; // gone meanwhile
  }
  // The command name is in parentheses and may itself hold spaces or parentheses: fields follow the last ')'.
  const close = text.lastIndexOf(')');
  const fields = text.slice(close + 2).split(' ');
  const tick = (index: number) => Number(fields[index - 3]);
  return {
    pid: Number(pid),
    ppid: tick(4),
    comm: text.slice(text.indexOf('(') + 1, close),
    ownTicks: tick(14) + tick(15),
    reapedTicks: tick(16) + tick(17),
  };
}

/**
 * CPU used so far by this process and every process it started (the dev server, the postmaster and its backends),
 * from /proc; null where there is no /proc. The difference of two samples is what a stretch of work cost each
 * consumer, wherever it ran — which a wall clock on a saturated machine cannot tell.
 */
export function processTreeCpu(): CpuByConsumer | null {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return null;
  }
  const stats = pids.map(readStat).filter((stat): stat is ProcStat => stat !== null);
  const children = new Map<number, ProcStat[]>();
  for (const stat of stats) children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), stat]);
  const totals: CpuByConsumer = { node: 0, temporal: 0, postgres: 0, other: 0 };
  const self = stats.find((stat) => stat.pid === process.pid);
  if (self === undefined) return null;
  const pending = [self];
  for (let stat = pending.pop(); stat !== undefined; stat = pending.pop()) {
    const consumer: CpuConsumer =
      stat.pid === process.pid
        ? 'node'
        : stat.comm === 'temporal'
          ? 'temporal'
          : stat.comm === 'postgres'
            ? 'postgres'
            : 'other';
    // What this process reaped are short-lived helpers it started (not a consumer of interest); a postmaster's are its
    // backends, which count.
    const ticks = consumer === 'node' ? stat.ownTicks : stat.ownTicks + stat.reapedTicks;
    totals[consumer] += (ticks * 1000) / TICKS_PER_SECOND;
    pending.push(...(children.get(stat.pid) ?? []));
  }
  return totals;
}

/** `after - before`, by consumer. */
export function cpuSpent(before: CpuByConsumer, after: CpuByConsumer): CpuByConsumer {
  return {
    node: after.node - before.node,
    temporal: after.temporal - before.temporal,
    postgres: after.postgres - before.postgres,
    other: after.other - before.other,
  };
}
