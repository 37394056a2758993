import { join } from 'node:path';
import { EmbeddedPostgresServer, type EmbeddedPostgresOptions } from './embedded-postgres-server.js';

/** Project-local folder holding embedded Postgres clusters (gitignored). */
export const EMBEDDED_DATA_ROOT = join('.data', 'postgres');

/** Where to find Postgres: explicit URLs, or an embedded cluster under a project folder. */
export interface DatabaseResolution {
  /** `DATABASE_URL` as the composition root read it (the application role); empty or absent means "embedded". */
  readonly databaseUrl?: string | undefined;
  /**
   * `DATABASE_OWNER_URL`: the role that owns the tables and runs migrations. Only with `databaseUrl`; absent, the
   * application role migrates and owns the tables itself (append-only is then not enforced against it).
   */
  readonly databaseOwnerUrl?: string | undefined;
  /** Project root the embedded data folder is relative to. */
  readonly projectRoot: string;
  /** Cluster name under `.data/postgres/` (default `main`). */
  readonly clusterName?: string;
  readonly embedded?: Omit<EmbeddedPostgresOptions, 'dataDir'>;
}

/** A resolved database: the application's URL, the owner's, the embedded server when one was started. */
export interface ResolvedDatabase {
  /** What the store connects as: the application role. */
  readonly connectionString: string;
  /** What migrations run as; `null` when the application role is also the owner (a single-role setup). */
  readonly ownerConnectionString: string | null;
  readonly embedded: EmbeddedPostgresServer | null;
  /** Stops the embedded server if this process started it; a no-op for `DATABASE_URL`. */
  close(): Promise<void>;
}

/**
 * Resolves the database the way SPEC §10 and DESIGN "Running it" prescribe: `DATABASE_URL` (and
 * `DATABASE_OWNER_URL`) when set, otherwise a real embedded Postgres with its data in `.data/postgres/<cluster>`,
 * whose superuser owns the tables and whose role `ttc_app` the application uses. It reads no environment itself: the
 * composition root passes the URLs.
 */
export async function resolveDatabase(resolution: DatabaseResolution): Promise<ResolvedDatabase> {
  const url = resolution.databaseUrl?.trim();
  if (url) {
    const owner = resolution.databaseOwnerUrl?.trim();
    return {
      connectionString: url,
      ownerConnectionString: owner || null,
      embedded: null,
      close: () => Promise.resolve(),
    };
  }
  const server = new EmbeddedPostgresServer({
    ...resolution.embedded,
    dataDir: join(resolution.projectRoot, EMBEDDED_DATA_ROOT, resolution.clusterName ?? 'main'),
  });
  await server.start();
  try {
    return {
      connectionString: await server.applicationConnectionString(),
      ownerConnectionString: server.connectionString,
      embedded: server,
      close: () => server.dispose(),
    };
  } catch (error) {
    await server.dispose().catch(() => undefined);
    throw error;
  }
}
