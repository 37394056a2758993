// The audit's months: what its tables are partitioned by, what an anchor seals rows of, what retention drops.

/** `[start, end)` of a month `YYYY-MM-01`, as ISO times (UTC). */
export function monthBounds(period: string): readonly [string, string] {
  const start = new Date(`${period}T00:00:00Z`);
  const end = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
  return [start.toISOString(), end.toISOString()];
}

/** The month (`YYYY-MM-01`) of an ISO time (UTC). */
export function periodOf(time: string): string {
  return `${time.slice(0, 7)}-01`;
}
