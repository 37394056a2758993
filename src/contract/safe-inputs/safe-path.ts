import { z } from 'zod';

/** Options of {@link safePath}. */
export interface SafePathOptions {
  /** The absolute POSIX directory every accepted path stays inside. */
  readonly root: string;
  /** Longest accepted argument, in UTF-16 units (default 1024). */
  readonly maxLength?: number;
}

// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL = /[\u0000-\u001f\u007f]/;
const PERCENT_ESCAPE = /%[0-9A-Fa-f]{2}/;

/**
 * A relative file path the model may name, as a zod schema whose output is the normalized absolute path under
 * `root`. Refused: empty paths, absolute paths (`/etc/passwd`, `C:\…`, `~/…`), any `..` segment (also its
 * look-alikes that Unicode compatibility folding turns into `..`), NUL and other control characters, backslashes
 * (a second separator on some systems) and percent escapes (a later decoding could turn `%2e%2e%2f` into `../`).
 * `.` and empty segments are dropped. A string-level check: a symbolic link inside `root` can still point outside
 * it, so open the result without following links (or check its real path) when that matters.
 */
export function safePath(options: SafePathOptions) {
  const root = normalizedRoot(options.root);
  const maxLength = options.maxLength ?? 1024;
  return z
    .string()
    .max(maxLength)
    .superRefine((path, ctx) => {
      const problem = pathProblem(path);
      if (problem !== null) ctx.addIssue({ code: 'custom', message: `unsafe path: ${problem}`, params: { rule: 'safe_path', problem } });
    })
    .transform((path) => `${root === '/' ? '' : root}/${segmentsOf(path).join('/')}`);
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
  if (typeof root !== 'string' || !root.startsWith('/') || CONTROL.test(root) || root.split('/').some((segment) => segment === '..')) {
    throw new TypeError('safePath: root must be an absolute POSIX path without .. segments or control characters');
  }
  return `/${root.split('/').filter((segment) => segment !== '' && segment !== '.').join('/')}`;
}
