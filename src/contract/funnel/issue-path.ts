/** A schema issue's path as a JSON Pointer-like string for the audit (`/` for the root). */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  return path.length === 0 ? '/' : path.map((token) => `/${String(token)}`).join('');
}
