import { databaseEnv, openTestDatabase } from './postgres.js';
import type { StoreFactory } from './runtime-harness.js';

/**
 * The integration tests' store: a PgToolStore on a fresh, migrated schema of a real Postgres (DATABASE_URL or
 * embedded), with the application role's DATABASE_URL and DATABASE_SCHEMA for a CLI process on it.
 */
export function integrationStore(label: string): StoreFactory {
  return {
    create: async () => {
      const db = await openTestDatabase(label);
      const { DATABASE_URL, DATABASE_SCHEMA } = databaseEnv(db);
      return { store: db.store(), close: () => db.close(), databaseEnv: { DATABASE_URL, DATABASE_SCHEMA } };
    },
  };
}
