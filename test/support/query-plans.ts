import type pg from 'pg';

/** One node of `EXPLAIN (FORMAT JSON)`. */
export interface PlanNode {
  readonly 'Node Type': string;
  readonly 'Relation Name'?: string;
  readonly 'Index Name'?: string;
  readonly Plans?: readonly PlanNode[];
}

const INDEX_SCANS = new Set(['Index Scan', 'Index Only Scan', 'Bitmap Index Scan']);

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

/** Every node of the plan Postgres chooses for `sql` (run as whoever `pool` connects as). */
export async function planNodes(pool: pg.Pool, sql: string, params: readonly unknown[]): Promise<PlanNode[]> {
  const { rows } = await pool.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (FORMAT JSON) ${sql}`, [
    ...params,
  ]);
  return nodes(rows[0]!['QUERY PLAN'][0].Plan);
}

/**
 * How a statement reads the package's tables: the indexes it scans and `seq:<table>` for a table it reads whole, each
 * once and sorted. A monthly partition (migration 006) and its indexes are named by their table's: a plan reads one
 * partition's index per month, and what matters is which index, not how many months. A partition that ANALYZE found
 * empty (next month's, prepared ahead) is read whole at no cost and is left out.
 */
export async function accessPaths(pool: pg.Pool, sql: string, params: readonly unknown[]): Promise<string[]> {
  const partitions = (
    await pool.query<{ child: string; parent: string; empty: boolean }>(
      `SELECT c.relname AS child, p.relname AS parent, c.reltuples = 0 AS empty
         FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
        WHERE c.relname LIKE 'ttc\\_%' AND c.relnamespace = to_regnamespace(current_schema())`,
    )
  ).rows;
  const parents = new Map(partitions.map((row) => [row.child, row.parent]));
  const empty = new Set(partitions.filter((row) => row.empty).map((row) => row.child));
  const named = (relation: string) => parents.get(relation) ?? relation;
  const paths = new Set<string>();
  for (const node of await planNodes(pool, sql, params)) {
    const table = node['Relation Name'];
    if (node['Node Type'] === 'Seq Scan' && table?.startsWith('ttc_') === true && !empty.has(table))
      paths.add(`seq:${named(table)}`);
    const index = node['Index Name'];
    if (INDEX_SCANS.has(node['Node Type']) && index?.startsWith('ttc_') === true) paths.add(named(index));
  }
  return [...paths].sort();
}
