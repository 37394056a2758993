import { qualifiedFunction } from './pg-schema.js';
import { poolQueryable, type PgDatabase } from './sql-runner.js';

/** Makes sure the partitions of the month of `at` (UTC) exist before a row dated `at` is written. */
export type PartitionGuard = (at: Date) => Promise<void>;

/**
 * The history tables are partitioned by month (migration 006), and a row needs its month's partition. The guard asks
 * the database (`ttc_ensure_partitions`, which also prepares the next month) once per month and process, and
 * remembers only a month that succeeded: a refused one (`period_retired`, a month retention dropped) is asked again.
 */
export function partitionGuard(database: PgDatabase): PartitionGuard {
  const db = poolQueryable(database);
  const ensure = qualifiedFunction(database.schema, 'ttc_ensure_partitions');
  const months = new Map<string, Promise<void>>();
  return (at) => {
    const month = at.toISOString().slice(0, 7);
    let ready = months.get(month);
    if (ready === undefined) {
      ready = db.query(`SELECT ${ensure}($1::timestamptz)`, [at]).then(() => undefined);
      months.set(month, ready);
      ready.catch(() => months.delete(month));
    }
    return ready;
  };
}
