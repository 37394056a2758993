import type { Pool, PoolClient, QueryResultRow } from 'pg';
import { toStoreError } from './pg-errors.js';
import { qualifiedTable, type TableName } from './pg-schema.js';

/**
 * The store's database: an injected pool and the (checked) schema its tables live in. Statements are never named
 * (prepared per connection): a transaction-mode pooler such as PgBouncer before 1.21 hands each transaction a
 * different server connection, where a named statement prepared on another one does not exist.
 */
export interface PgDatabase {
  readonly pool: Pool;
  readonly schema: string;
}

/** Something that runs a parameterised statement: the pool itself or a client inside a transaction. */
export interface Queryable {
  query<R extends QueryResultRow>(sql: string, params: readonly unknown[]): Promise<readonly R[]>;
  /** The table's schema-qualified name, to splice into statement text. */
  table(name: TableName): string;
}

/** A {@link Queryable} over the database's pool; every failure is mapped to a `StoreError`. */
export function poolQueryable(database: PgDatabase): Queryable {
  return {
    async query<R extends QueryResultRow>(sql: string, params: readonly unknown[]): Promise<readonly R[]> {
      try {
        return (await database.pool.query<R>(sql, [...params])).rows;
      } catch (error) {
        throw toStoreError(error);
      }
    },
    table: (name) => qualifiedTable(database.schema, name),
  };
}

/**
 * Runs `work` in one transaction on one pooled client. On any failure it rolls back and rethrows a `StoreError`;
 * a client whose connection broke is destroyed rather than returned to the pool.
 */
export async function inTransaction<T>(database: PgDatabase, work: (tx: Queryable) => Promise<T>): Promise<T> {
  let client: PoolClient;
  try {
    client = await database.pool.connect();
  } catch (error) {
    throw toStoreError(error);
  }
  // A checked-out client has no pool listener: a server shutdown between two statements arrives as an 'error'
  // event, which would crash the process if nobody listened. Remember it; the next statement fails anyway.
  let broken: Error | undefined;
  const onError = (error: Error) => {
    broken = error;
  };
  client.on('error', onError);
  const tx: Queryable = {
    async query<R extends QueryResultRow>(sql: string, params: readonly unknown[]): Promise<readonly R[]> {
      return (await client.query<R>(sql, [...params])).rows;
    },
    table: (name) => qualifiedTable(database.schema, name),
  };
  try {
    await client.query('BEGIN');
    const result = await work(tx);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    try {
      await client.query('ROLLBACK');
    } catch (rollbackError) {
      // The connection is gone; the server rolls back on its own. Do not reuse this client.
      broken ??= rollbackError instanceof Error ? rollbackError : new Error('rollback failed');
    }
    throw toStoreError(error);
  } finally {
    client.off('error', onError);
    client.release(broken);
  }
}
