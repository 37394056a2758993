import type { Pool, PoolClient, QueryResultRow } from 'pg';
import { toStoreError } from './pg-errors.js';

/**
 * Something that runs a parameterised statement: the pool itself or a client inside a transaction. A `name`
 * makes it a prepared statement on each connection (planned once per connection, not on every call): give one to
 * fixed hot-path statements only, and never reuse a name for different text.
 */
export interface Queryable {
  query<R extends QueryResultRow>(sql: string, params: readonly unknown[], name?: string): Promise<readonly R[]>;
}

/** A {@link Queryable} over an injected pool; every failure is mapped to a `StoreError`. */
export function poolQueryable(pool: Pool): Queryable {
  return {
    async query<R extends QueryResultRow>(sql: string, params: readonly unknown[], name?: string): Promise<readonly R[]> {
      try {
        return (await pool.query<R>({ text: sql, values: [...params], ...(name === undefined ? {} : { name }) })).rows;
      } catch (error) {
        throw toStoreError(error);
      }
    },
  };
}

/**
 * Runs `work` in one transaction on one pooled client. On any failure it rolls back and rethrows a `StoreError`;
 * a client whose connection broke is destroyed rather than returned to the pool.
 */
export async function inTransaction<T>(pool: Pool, work: (tx: Queryable) => Promise<T>): Promise<T> {
  let client: PoolClient;
  try {
    client = await pool.connect();
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
    async query<R extends QueryResultRow>(sql: string, params: readonly unknown[], name?: string): Promise<readonly R[]> {
      return (await client.query<R>({ text: sql, values: [...params], ...(name === undefined ? {} : { name }) })).rows;
    },
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
