import { randomBytes } from 'node:crypto';
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { ensureLoginRole, withCredentials } from '../../src/testing/application-role.js';
import { EmbeddedPostgresServer, isAlive } from '../../src/testing/embedded-postgres-server.js';
import { EMBEDDED_DATA_ROOT } from '../../src/testing/resolve-database.js';
import { migrate } from '../../src/store/pg/migrate.js';
import { PgToolStore, type PgToolStoreOptions } from '../../src/store/pg/pg-tool-store.js';
import { PROJECT_ROOT } from '../../testkit/project-root.js';
import { SHARED_POSTGRES_ENV, sharedService } from '../../testkit/shared-test-services.js';

/**
 * Flags for throwaway test clusters: no fsync (the data is deleted afterwards; a clean stop still writes
 * everything), and enough connections for the concurrency tests.
 */
const TEST_POSTGRES_FLAGS = ['-c', 'fsync=off', '-c', 'full_page_writes=off', '-c', 'max_connections=200'];

/**
 * One test file's private database: a fresh schema on a real Postgres with its own application role, set up as a
 * deployment is — the owner migrates and owns the tables, the store connects as the application role.
 */
export interface TestDatabase {
  /** Connected as the application role, exactly as a deployed store connects. */
  readonly pool: pg.Pool;
  /** The application role's URL (DATABASE_URL style; the store is given {@link schema}, see {@link databaseEnv}). */
  readonly connectionString: string;
  /** The owner's URL (DATABASE_OWNER_URL style): the server's admin role. */
  readonly ownerConnectionString: string;
  /** Connected as the owner: for migrations, and tests that act as the owner (or a superuser) on purpose. */
  readonly ownerPool: pg.Pool;
  /** The application role (one per test database, so test files never share grants). */
  readonly appRole: string;
  /** The store's schema, given to `migrate` and `PgToolStore`; also the application role's default search_path, for raw SQL. */
  readonly schema: string;
  /** The embedded server, when this process started one (absent with DATABASE_URL or the run's shared cluster). */
  readonly server: EmbeddedPostgresServer | null;
  /** A store over this database's (application) pool. */
  store(options?: PgToolStoreOptions): PgToolStore;
  /** Opens another application-role pool on the same schema (e.g. for a raw-SQL "attacker" or a second process). */
  newPool(max?: number, extra?: pg.PoolConfig): pg.Pool;
  close(): Promise<void>;
}

/**
 * Starts an embedded Postgres that only this process uses, with its data under `.data/postgres/` (deleted again on
 * dispose). Throws when it cannot: tests that need Postgres must fail without it, never skip.
 */
export async function startEmbeddedPostgres(
  label: string,
  extraFlags: readonly string[] = [],
): Promise<EmbeddedPostgresServer> {
  await removeAbandonedClusters();
  const dataDir = join(
    PROJECT_ROOT,
    EMBEDDED_DATA_ROOT,
    `test-${safeName(label)}-${process.pid}-${randomBytes(3).toString('hex')}`,
  );
  const server = new EmbeddedPostgresServer({
    dataDir,
    ephemeral: true,
    postgresFlags: [...TEST_POSTGRES_FLAGS, ...extraFlags],
  });
  try {
    await server.start();
  } catch (error) {
    await server.dispose().catch(() => undefined);
    throw new Error(
      `could not start an embedded Postgres for '${label}' (set DATABASE_URL to use an existing server)`,
      { cause: error },
    );
  }
  return server;
}

/** Options of {@link openTestDatabase}. */
export interface TestDatabaseOptions {
  /** Migrate the fresh schema (default true). */
  readonly migrate?: boolean;
  /** Always start a private embedded server, even with DATABASE_URL (for tests that stop and restart it). */
  readonly privateServer?: boolean;
  /** Pool settings for the default pool (e.g. a short connection timeout for restart tests). */
  readonly pool?: Pick<pg.PoolConfig, 'max' | 'connectionTimeoutMillis'>;
}

/**
 * Opens a fresh schema for one test file on the Postgres the project resolves (DATABASE_URL; else a database of its own
 * on the test run's shared cluster, testkit/shared-test-services.ts; else an embedded server of its own), creates its
 * application role, and migrates it as the owner (granting the role) unless `migrate: false`. Files never share a
 * schema or a role, so they cannot interfere. With DATABASE_URL its role must be allowed to create roles, unless
 * DATABASE_OWNER_URL names such a role: then the owner connects there and the application role to DATABASE_URL's
 * host (how the pooler tier puts PgBouncer in front of the application only).
 */
export async function openTestDatabase(label: string, options: TestDatabaseOptions = {}): Promise<TestDatabase> {
  const url = options.privateServer ? undefined : process.env['DATABASE_URL']?.trim();
  const sharedCluster = options.privateServer || url ? undefined : sharedService(SHARED_POSTGRES_ENV);
  const database = sharedCluster === undefined ? null : await createDatabase(sharedCluster, label);
  const server = url || database ? null : await startEmbeddedPostgres(label);
  const ownerConnectionString =
    (url && process.env['DATABASE_OWNER_URL']?.trim()) || url || database?.url || server!.connectionString;
  const schema = `ttc_test_${safeName(label)}_${randomBytes(4).toString('hex')}`;
  const appRole = `${schema}_app`;
  const appPassword = randomBytes(18).toString('base64url');
  const admin = new pg.Client({ connectionString: ownerConnectionString });
  try {
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
  } catch (error) {
    await server?.dispose().catch(() => undefined);
    await database?.drop().catch(() => undefined);
    throw new Error(`could not reach Postgres for '${label}'`, { cause: error });
  } finally {
    await admin.end().catch(() => undefined);
  }
  await ensureLoginRole(ownerConnectionString, appRole, appPassword);
  const connectionString = withCredentials(url || ownerConnectionString, appRole, appPassword);
  const pools: pg.Pool[] = [];
  const poolOn = (target: string, max: number, extra: pg.PoolConfig): pg.Pool => {
    const pool = new pg.Pool({ ...extra, connectionString: target, max });
    // An idle client losing its connection (e.g. a server restart) must not crash the test process.
    pool.on('error', () => undefined);
    pools.push(pool);
    return pool;
  };
  const ownerPool = poolOn(ownerConnectionString, 4, { options: `-c search_path=${schema}` });
  // Raw SQL of the tests names tables unqualified. A role default (not a connection option, which PgBouncer refuses)
  // points it at the schema; the store itself is given the schema and never reads search_path.
  await ownerPool.query(`ALTER ROLE ${appRole} SET search_path TO ${schema}`);
  const newPool = (max = 30, extra: pg.PoolConfig = {}): pg.Pool => poolOn(connectionString, max, extra);
  const pool = newPool(options.pool?.max ?? 30, options.pool ?? {});
  if (options.migrate !== false) await migrate(ownerPool, { appRole, schema });
  return {
    pool,
    connectionString,
    ownerConnectionString,
    ownerPool,
    appRole,
    schema,
    server,
    store: (storeOptions) => new PgToolStore(pool, { schema, ...storeOptions }),
    newPool,
    async close() {
      await Promise.all(pools.map((p) => p.end().catch(() => undefined)));
      if (server) {
        await server.dispose();
        return;
      }
      if (database) {
        await database.drop(appRole);
        return;
      }
      const cleanup = new pg.Client({ connectionString: ownerConnectionString });
      await cleanup.connect();
      try {
        await cleanup.query(`DROP SCHEMA ${schema} CASCADE`);
        await cleanup.query(`DROP OWNED BY ${appRole}`);
        await cleanup.query(`DROP ROLE ${appRole}`);
      } finally {
        await cleanup.end();
      }
    },
  };
}

/**
 * A database of its own for one test file on the run's shared cluster, as a private server would give it: its own
 * `public` schema and catalog, so nothing a file creates there (a CLI migrating into `public`, say) meets another's.
 */
async function createDatabase(
  clusterUrl: string,
  label: string,
): Promise<{ url: string; drop(role?: string): Promise<void> }> {
  const name = `ttc_${safeName(label)}_${process.pid}_${randomBytes(3).toString('hex')}`;
  await withClient(clusterUrl, (client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(clusterUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: (role) =>
      withClient(clusterUrl, async (client) => {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        if (role !== undefined) await client.query(`DROP ROLE IF EXISTS ${role}`);
      }),
  };
}

async function withClient<T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

/**
 * The environment a CLI process needs to use this test database as a deployment would: DATABASE_URL as the
 * application role, DATABASE_OWNER_URL as the owner, and DATABASE_SCHEMA.
 */
export function databaseEnv(db: TestDatabase): {
  DATABASE_URL: string;
  DATABASE_OWNER_URL: string;
  DATABASE_SCHEMA: string;
} {
  return {
    DATABASE_URL: db.connectionString,
    DATABASE_OWNER_URL: db.ownerConnectionString,
    DATABASE_SCHEMA: db.schema,
  };
}

/**
 * Removes test clusters left behind by killed test processes (their folder names carry the owner's pid), so an
 * interrupted run does not leak data folders. Folders of live processes are never touched.
 */
async function removeAbandonedClusters(): Promise<void> {
  const root = join(PROJECT_ROOT, EMBEDDED_DATA_ROOT);
  const entries = await readdir(root).catch(() => [] as string[]);
  for (const entry of entries) {
    const match = /^test-.+-(\d+)-[0-9a-f]{6}(\.ttc(-app)?-password)?$/.exec(entry);
    if (!match || isAlive(Number(match[1]))) continue;
    const dataDir = join(root, entry.replace(/\.ttc(-app)?-password$/, ''));
    // A postmaster the dead test left running still owns the folder; leave it rather than pull data from under it.
    if (await postmasterAlive(dataDir)) continue;
    await rm(join(root, entry), { recursive: true, force: true });
  }
}

async function postmasterAlive(dataDir: string): Promise<boolean> {
  const pid = Number((await readFile(join(dataDir, 'postmaster.pid'), 'utf8').catch(() => '')).split('\n')[0]);
  return Number.isInteger(pid) && pid > 0 && isAlive(pid);
}

function safeName(label: string): string {
  return label
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .slice(0, 24);
}

/**
 * Runs one statement as the owner with triggers off (`session_replication_role = replica`): what an owner — or anyone
 * with the database's superuser — can do to append-only rows, which the audit's digests must then reveal.
 */
export async function asOwnerWithoutTriggers(db: TestDatabase, sql: string, params: readonly unknown[]): Promise<void> {
  const client = await db.ownerPool.connect();
  try {
    await client.query("SET session_replication_role = 'replica'");
    await client.query(sql, [...params]);
  } finally {
    await client.query("SET session_replication_role = 'origin'");
    client.release();
  }
}
