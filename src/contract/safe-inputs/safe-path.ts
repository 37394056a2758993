import { z } from 'zod';

/** Options of {@link safePath}. */
export interface SafePathOptions {
  /** The absolute POSIX directory every accepted path stays inside. */
  readonly root: string;
  /** Longest accepted argument, in UTF-16 units (default 1024). */
  readonly maxLength?: number;
  /**
   * The file system's real path of a path (`fs.realpathSync.native` on Node): with it, a path whose symbolic links
   * lead out of `root` is refused too. It is given the path and each parent in turn until one exists (a file the tool
   * is about to create has none yet); an error other than "does not exist" refuses the path. Injected, so the check
   * runs where the files are and the contract itself touches no file system.
   */
  readonly realpath?: (path: string) => string;
}

// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL = /[\u0000-\u001f\u007f]/;
const PERCENT_ESCAPE = /%[0-9A-Fa-f]{2}/;

/**
 * A relative file path the model may name, as a zod schema whose output is the normalized absolute path under
 * `root`. Refused: empty paths, absolute paths (`/etc/passwd`, `C:\…`, `~/…`), any `..` segment (also its
 * look-alikes that Unicode compatibility folding turns into `..`), NUL and other control characters, backslashes
 * (a second separator on some systems) and percent escapes (a later decoding could turn `%2e%2e%2f` into `../`).
 * `.` and empty segments are dropped. Without `realpath` it is a string-level check: a symbolic link inside `root` can
 * still point outside it. With `realpath`, such a path is refused (`symlink escapes root`) — though a link created
 * between the check and the open can still escape, so open without following links when that matters.
 */
export function safePath(options: SafePathOptions) {
  const root = normalizedRoot(options.root);
  const maxLength = options.maxLength ?? 1024;
  return z
    .string()
    .max(maxLength)
    .superRefine((path, ctx) => {
      const problem =
        pathProblem(path) ??
        (options.realpath === undefined ? null : escapeProblem(absoluteUnder(root, path), root, options.realpath));
      if (problem !== null)
        ctx.addIssue({ code: 'custom', message: `unsafe path: ${problem}`, params: { rule: 'safe_path', problem } });
    })
    .transform((path) => absoluteUnder(root, path));
}

function absoluteUnder(root: string, path: string): string {
  return `${root === '/' ? '' : root}/${segmentsOf(path).join('/')}`;
}

/** Why the real path of `path` (or of its deepest existing parent) is not inside the real `root`; `null` when it is. */
function escapeProblem(path: string, root: string, realpath: (path: string) => string): string | null {
  const realRoot = existingRealPath(root, realpath);
  let candidate = path;
  for (;;) {
    const real = existingRealPath(candidate, realpath);
    if (real.kind === 'error' || realRoot.kind === 'error') return 'path cannot be resolved';
    if (real.kind === 'found') {
      const inside =
        realRoot.kind === 'found' &&
        (real.path === realRoot.path || real.path.startsWith(realRoot.path === '/' ? '/' : `${realRoot.path}/`));
      return inside ? null : 'symlink escapes root';
    }
    if (candidate === root || candidate === '/') return null;
    candidate = candidate.slice(0, candidate.lastIndexOf('/')) || '/';
  }
}

/** The real path; `missing` when nothing exists there; `error` for any other failure (the check fails closed). */
function existingRealPath(
  path: string,
  realpath: (path: string) => string,
): { kind: 'found'; path: string } | { kind: 'missing' | 'error' } {
  try {
    return { kind: 'found', path: realpath(path) };
  } catch (error) {
    return { kind: (error as { code?: unknown } | null)?.code === 'ENOENT' ? 'missing' : 'error' };
  }
}

function pathProblem(path: string): string | null {
  if (CONTROL.test(path)) return 'control character';
  if (path.includes('\\')) return 'backslash';
  if (PERCENT_ESCAPE.test(path)) return 'percent escape';
  if (path.startsWith('/') || path.startsWith('~') || /^[A-Za-z]:/.test(path)) return 'absolute path';
  const segments = segmentsOf(path);
  if (segments.length === 0) return 'empty path';
  if (path.split('/').some((segment) => segment.normalize('NFKC') === '..')) return 'parent segment';
  return null;
}

function segmentsOf(path: string): string[] {
  return path.split('/').filter((segment) => segment !== '' && segment !== '.');
}

function normalizedRoot(root: string): string {
  if (
    typeof root !== 'string' ||
    !root.startsWith('/') ||
    CONTROL.test(root) ||
    root.split('/').some((segment) => segment === '..')
  ) {
    throw new TypeError('safePath: root must be an absolute POSIX path without .. segments or control characters');
  }
  return `/${root
    .split('/')
    .filter((segment) => segment !== '' && segment !== '.')
    .join('/')}`;
}
