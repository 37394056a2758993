// What a test of the CLI as a child process needs: its own dev server and an unmigrated test database (the CLI
// migrates), and the environment a deployment would give the CLI for them. Started in `before`, closed in `after`.
import { after, before } from 'node:test';
import { startTestTemporal, type TestTemporal } from '../../testkit/temporal-server.js';
import { databaseEnv, openTestDatabase, type TestDatabase } from './postgres.js';

export interface CliStack {
  readonly temporal: TestTemporal;
  readonly db: TestDatabase;
  /** TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, the database variables and `extraEnv`. */
  readonly env: Record<string, string | undefined>;
}

/** Registers the hooks of a file's CLI stack; its members are there once `before` has run. */
export function useCliStack(label: string, extraEnv: Record<string, string> = {}): CliStack {
  let started: CliStack | undefined;
  before(
    async () => {
      const [temporal, db] = await Promise.allSettled([
        startTestTemporal(),
        openTestDatabase(label, { migrate: false }),
      ]);
      if (temporal.status === 'rejected' || db.status === 'rejected') {
        // Whichever did start is stopped here: `after` only knows a stack that started whole.
        if (temporal.status === 'fulfilled') await temporal.value.stop();
        if (db.status === 'fulfilled') await db.value.close();
        throw temporal.status === 'rejected' ? temporal.reason : (db as PromiseRejectedResult).reason;
      }
      const env = {
        TEMPORAL_ADDRESS: temporal.value.server.address,
        TEMPORAL_NAMESPACE: temporal.value.server.namespace,
        ...databaseEnv(db.value),
        ...extraEnv,
      };
      started = { temporal: temporal.value, db: db.value, env };
    },
    { timeout: 180_000 },
  );
  after(
    async () => {
      await started?.temporal.stop();
      await started?.db.close();
    },
    { timeout: 60_000 },
  );
  const stack = (): CliStack => {
    if (started === undefined) throw new Error(`the CLI stack '${label}' is started by its before hook`);
    return started;
  };
  return {
    get temporal() {
      return stack().temporal;
    },
    get db() {
      return stack().db;
    },
    get env() {
      return stack().env;
    },
  };
}
