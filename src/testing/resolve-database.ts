import { join } from 'node:path';
import { EmbeddedPostgresServer, type EmbeddedPostgresOptions } from './embedded-postgres-server.js';

/** Project-local folder holding embedded Postgres clusters (gitignored). */
export const EMBEDDED_DATA_ROOT = join('.data', 'postgres');

/** Where to find Postgres: an explicit URL, or an embedded cluster under a project folder. */
export interface DatabaseResolution {
  /** `DATABASE_URL` as the composition root read it; empty or absent means "embedded". */
  readonly databaseUrl?: string | undefined;
  /** Project root the embedded data folder is relative to. */
  readonly projectRoot: string;
  /** Cluster name under `.data/postgres/` (default `main`). */
  readonly clusterName?: string;
  readonly embedded?: Omit<EmbeddedPostgresOptions, 'dataDir'>;
}

/** A resolved database: its URL, the embedded server when one was started, and how to let go of it. */
export interface ResolvedDatabase {
  readonly connectionString: string;
  readonly embedded: EmbeddedPostgresServer | null;
  /** Stops the embedded server if this process started it; a no-op for `DATABASE_URL`. */
  close(): Promise<void>;
}

/**
 * Resolves the database the way SPEC §10 and DESIGN "Running it" prescribe: `DATABASE_URL` when set, otherwise
 * a real embedded Postgres with its data in `.data/postgres/<cluster>`. It reads no environment itself: the
 * composition root passes `databaseUrl`.
 */
export async function resolveDatabase(resolution: DatabaseResolution): Promise<ResolvedDatabase> {
  const url = resolution.databaseUrl?.trim();
  if (url) return { connectionString: url, embedded: null, close: () => Promise.resolve() };
  const server = new EmbeddedPostgresServer({
    ...resolution.embedded,
    dataDir: join(resolution.projectRoot, EMBEDDED_DATA_ROOT, resolution.clusterName ?? 'main'),
  });
  await server.start();
  return { connectionString: server.connectionString, embedded: server, close: () => server.dispose() };
}
