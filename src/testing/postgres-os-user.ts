import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, parse, resolve, sep } from 'node:path';

/** The system user embedded Postgres runs as when this process is root (Postgres refuses to run as root). */
const POSTGRES_OS_USER = 'postgres';

/** A system user's ids, as `spawn` takes them. */
export interface OsUser {
  readonly uid: number;
  readonly gid: number;
}

/** Whom the server runs as: `null` means this process's own user; as root, the postgres system user. */
export function serverOsUser(): OsUser | null {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return null;
  return postgresOsUser();
}

/** The ids of the postgres user, created when missing. */
function postgresOsUser(): OsUser {
  const ids = (): OsUser => ({
    uid: Number(execFileSync('id', ['-u', POSTGRES_OS_USER], { encoding: 'utf8' }).trim()),
    gid: Number(execFileSync('id', ['-g', POSTGRES_OS_USER], { encoding: 'utf8' }).trim()),
  });
  try {
    return ids();
  } catch {
    execFileSync('sh', [
      '-c',
      `getent group ${POSTGRES_OS_USER} >/dev/null || groupadd ${POSTGRES_OS_USER}; useradd -g ${POSTGRES_OS_USER} ${POSTGRES_OS_USER}`,
    ]);
    return ids();
  }
}

/** True when `user` can enter `folder`, asked of the system by running `test -x` as that user (as the server runs). */
function canEnter(user: OsUser, folder: string): boolean {
  return spawnSync('test', ['-x', folder], { uid: user.uid, gid: user.gid, stdio: 'ignore' }).status === 0;
}

/**
 * True when `user` can enter every folder on the way to `path` (for a path not made yet: to its nearest existing
 * ancestor), a relative path taken from the current directory. `null` — this process's own user — always can.
 */
export function canReach(user: OsUser | null, path: string): boolean {
  if (user === null) return true;
  // Absolute first: a relative path has no root to start from, and its first folder would be judged unreachable.
  let existing = resolve(path);
  while (!existsSync(existing)) existing = dirname(existing);
  if (!statSync(existing).isDirectory()) existing = dirname(existing);
  const { root } = parse(existing);
  const parts = existing
    .slice(root.length)
    .split(sep)
    .filter((part) => part !== '');
  for (let depth = 0; depth <= parts.length; depth += 1) {
    if (!canEnter(user, root + parts.slice(0, depth).join(sep))) return false;
  }
  return true;
}
