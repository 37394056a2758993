import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import type { Pool } from 'pg';
import { checkText } from '../input-checks.js';
import { inTransaction, type Queryable } from './sql-runner.js';
import { checkSchemaName, DEFAULT_SCHEMA, qualifiedTable } from './pg-schema.js';
import { StoreError } from '../store-error.js';

/** Where the numbered SQL files live (shipped next to this module). */
export const MIGRATIONS_DIR = new URL('./migrations/', import.meta.url);

/** Table recording applied migrations (in the store's schema). */
export const MIGRATIONS_TABLE = 'ttc_schema_migrations';

/** Advisory lock key serializing concurrent migrators of one database: an arbitrary fixed constant, never to change. */
export const MIGRATION_LOCK_KEY = '8391707391234197362';

/** One numbered migration file. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
  readonly sha256: string;
}

/** Options of {@link migrate}. */
export interface MigrateOptions {
  /**
   * The role the application connects as (e.g. the user of `DATABASE_URL`). It must be a different role from the
   * one migrating, not a superuser and not a member of the owner; it is granted exactly what the store needs
   * (`ttc_grant_application_role`, migration 002). Without it, whoever migrates owns the tables *and* is expected to
   * run the application: append-only is then a courtesy, not enforced against the application.
   */
  readonly appRole?: string;
  /**
   * The schema to create the tables in (default `public`; created when missing): the one `PgToolStore` is then
   * given. A lower-case identifier; the connection's `search_path` plays no part.
   */
  readonly schema?: string;
  /** The migrations to apply; defaults to the package's own ({@link loadMigrations}). */
  readonly migrations?: readonly Migration[];
}

/** What {@link migrate} did: versions applied now, versions that were already there, and the role granted. */
export interface MigrationReport {
  readonly applied: readonly number[];
  readonly alreadyApplied: readonly number[];
  /** The application role granted its privileges, or `null` when none was named. */
  readonly appRole: string | null;
  /**
   * No application role was named and the migrating role owns the package's tables: whoever runs the application
   * with it could rewrite the audit. False for a role that only confirmed a schema its owner migrated.
   */
  readonly singleRole: boolean;
}

/** Reads `NNN_name.sql` files in version order; a gap or duplicate number is a packaging error. */
export async function loadMigrations(dir: URL = MIGRATIONS_DIR): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((file) => /^\d{3}_[a-z0-9_]+\.sql$/.test(file)).sort();
  const migrations: Migration[] = [];
  for (const [index, file] of files.entries()) {
    const version = Number(file.slice(0, 3));
    if (version !== index + 1)
      throw new StoreError('migration_mismatch', { file, problem: 'versions must be 1..n without gaps' });
    const sql = await readFile(new URL(file, dir), 'utf8');
    migrations.push({ version, name: file, sql, sha256: createHash('sha256').update(sql).digest('hex') });
  }
  return migrations;
}

/**
 * Brings the schema up to date: applies every migration not yet recorded, in order, in one transaction under an
 * advisory lock, so concurrent migrators wait and then find nothing to do. Forward only: an applied migration
 * whose file changed is refused (`migration_mismatch`) rather than silently diverging. With `appRole`, the pool must
 * connect as the owner, and the application role is (re)granted its privileges in the same transaction.
 */
export async function migrate(pool: Pool, options: MigrateOptions = {}): Promise<MigrationReport> {
  const all = options.migrations ?? (await loadMigrations());
  const appRole = options.appRole === undefined ? null : checkText(options.appRole, 'appRole');
  const schema = checkSchemaName(options.schema ?? DEFAULT_SCHEMA);
  return inTransaction({ pool, schema }, async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1::bigint)', [MIGRATION_LOCK_KEY]);
    if (appRole !== null) await assertSeparateRole(tx, appRole);
    if (options.schema === undefined) await assertNoStoreElsewhere(tx, schema);
    await useSchema(tx, schema);
    const migrationsTable = tx.table(MIGRATIONS_TABLE);
    // Created only when missing (CREATE ... IF NOT EXISTS needs the schema's CREATE right even when the table is
    // there): a schema that is up to date takes no DDL, so a role that may only read it can confirm that it is.
    const existing = await tx.query<{ present: boolean }>('SELECT to_regclass($1) IS NOT NULL AS present', [
      qualifiedTable(schema, MIGRATIONS_TABLE),
    ]);
    if (existing[0]?.present !== true) {
      await tx.query(
        `CREATE TABLE ${migrationsTable} (version integer PRIMARY KEY, name text NOT NULL, sha256 text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
        [],
      );
    }
    const rows = await tx.query<{ version: number; sha256: string }>(
      `SELECT version, sha256 FROM ${migrationsTable} ORDER BY version`,
      [],
    );
    const recorded = new Map(rows.map((row) => [row.version, row.sha256]));
    const applied: number[] = [];
    const alreadyApplied: number[] = [];
    for (const migration of all) {
      const sha = recorded.get(migration.version);
      if (sha !== undefined) {
        if (sha !== migration.sha256)
          throw new StoreError('migration_mismatch', {
            version: migration.version,
            problem: 'applied migration was edited',
          });
        alreadyApplied.push(migration.version);
        continue;
      }
      // A migration file is trusted SQL shipped with the package, run as a multi-statement script.
      await tx.query(migration.sql, []);
      await tx.query(`INSERT INTO ${migrationsTable} (version, name, sha256) VALUES ($1, $2, $3)`, [
        migration.version,
        migration.name,
        migration.sha256,
      ]);
      applied.push(migration.version);
    }
    const known = new Set(all.map((m) => m.version));
    const unknown = [...recorded.keys()].filter((version) => !known.has(version));
    if (unknown.length > 0)
      throw new StoreError('migration_mismatch', { versions: unknown, problem: 'database is newer than this package' });
    if (appRole !== null) {
      await assertOwnsTables(tx, schema);
      await tx.query(`SELECT "${schema}".ttc_grant_application_role($1)`, [appRole]);
    }
    return { applied, alreadyApplied, appRole, singleRole: appRole === null && (await ownsTables(tx, schema)) };
  });
}

/**
 * The application role must not be able to do what an owner can: it exists, is not the migrating role, not a
 * superuser, and does not inherit the migrating role's rights through membership.
 */
async function assertSeparateRole(tx: Queryable, appRole: string): Promise<void> {
  const rows = await tx.query<{ superuser: boolean; member_of_owner: boolean; is_owner: boolean }>(
    `SELECT rolsuper AS superuser, pg_has_role(oid, current_user, 'MEMBER') AS member_of_owner, rolname = current_user AS is_owner
       FROM pg_roles WHERE rolname = $1`,
    [appRole],
  );
  const role = rows[0];
  const problem = !role
    ? 'no_such_role'
    : role.is_owner
      ? 'same_as_owner'
      : role.superuser
        ? 'superuser'
        : role.member_of_owner
          ? 'member_of_owner'
          : null;
  if (problem !== null) throw new StoreError('role_setup', { appRole, problem });
}

/**
 * Creates the schema when missing and makes it the current one for this transaction only: the migration files create
 * their objects unqualified and name their schema as `current_schema()` (so they are the same files, with the same
 * digests, whatever the schema), and a transaction-local setting never leaks into a pooled connection.
 */
async function useSchema(tx: Queryable, schema: string): Promise<void> {
  // Checked before creating: CREATE SCHEMA IF NOT EXISTS needs the database's CREATE right even when it exists.
  const existing = await tx.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
  if (existing.length === 0) await tx.query(`CREATE SCHEMA "${schema}"`, []);
  await tx.query(`SELECT set_config('search_path', $1, true)`, [`"${schema}"`]);
}

/**
 * Before the schema option, the tables went wherever the connection's search_path pointed. A deployment upgraded
 * without setting the schema would have `migrate` create a second, empty store in `public` next to its real one —
 * and an empty ledger runs completed writes again. When no schema was given, `public` has no store yet and the
 * connection's current schema holds one, that is refused, naming the schema to set.
 */
async function assertNoStoreElsewhere(tx: Queryable, schema: string): Promise<void> {
  const rows = await tx.query<{ current: string; target_has: boolean; current_has: boolean }>(
    `SELECT current_schema() AS current,
            to_regclass(format('%I.%I', $1::text, $2::text)) IS NOT NULL AS target_has,
            CASE WHEN current_schema() IS NULL THEN false
                 ELSE to_regclass(format('%I.%I', current_schema(), $2::text)) IS NOT NULL END AS current_has`,
    [schema, MIGRATIONS_TABLE],
  );
  const found = rows[0];
  if (found === undefined || found.current === schema || found.target_has || !found.current_has) return;
  throw new StoreError('migration_mismatch', {
    problem: 'store_in_another_schema',
    schema,
    found: found.current,
    fix: `set DATABASE_SCHEMA=${found.current} (or pass { schema: '${found.current}' } to migrate and PgToolStore)`,
  });
}

/** True when the connected role owns a table of the package. */
async function ownsTables(tx: Queryable, schema: string): Promise<boolean> {
  const rows = await tx.query<{ owns: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM pg_tables WHERE schemaname = $1 AND tablename LIKE 'ttc\\_%' AND tableowner = current_user) AS owns`,
    [schema],
  );
  return rows[0]?.owns === true;
}

/** Grants mean nothing on tables the application role owns (e.g. created by an older, single-role setup). */
async function assertOwnsTables(tx: Queryable, schema: string): Promise<void> {
  const foreign = await tx.query<{ tablename: string; tableowner: string }>(
    `SELECT tablename, tableowner FROM pg_tables WHERE schemaname = $1 AND tablename LIKE 'ttc\\_%' AND tableowner <> current_user ORDER BY tablename`,
    [schema],
  );
  if (foreign.length > 0)
    throw new StoreError('role_setup', {
      problem: 'tables_owned_by_another_role',
      tables: foreign.map((row) => `${row.tablename} (${row.tableowner})`),
    });
}
