import { openTestDatabase } from './postgres.js';
import type { StoreFactory } from './runtime-harness.js';

/** The integration tests' store: a PgToolStore on a fresh, migrated schema of a real Postgres (DATABASE_URL or embedded). */
export function integrationStore(label: string): StoreFactory {
  return {
    create: async () => {
      const db = await openTestDatabase(label);
      return { store: db.store(), close: () => db.close() };
    },
  };
}
