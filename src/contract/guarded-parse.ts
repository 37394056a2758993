import type { ZodType } from 'zod';
import { describeThrown } from './call-failure.js';

/** One problem a schema found: where (a JSON Pointer-like path, `/` for the root) and zod's issue code. */
export interface ParseIssue {
  readonly path: string;
  readonly code: string;
}

/** Result of {@link guardedParse}: the parsed value, or the issues (and, when the schema threw, what it threw). */
export type GuardedParse<T> =
  | { readonly success: true; readonly data: T }
  | { readonly success: false; readonly issues: readonly ParseIssue[]; readonly thrown?: Record<string, unknown> };

/** The issue a schema that threw is reported as (where it threw is not known). */
export const THROWN_ISSUE: ParseIssue = Object.freeze({ path: '/', code: 'schema_threw' });

/**
 * `schema.safeParse(value)` that never throws. zod reports bad input as issues, but lets a throwing transform,
 * refinement or getter escape (and throws for an async refinement in a sync parse), so a model-controlled value
 * like `'not a url'` given to `z.string().transform((u) => new URL(u).href)` would otherwise fail whoever called
 * it. Such a throw is a failed parse here: the caller reports it like any other issue, and `thrown` describes it
 * for the audit. Use it for every schema a tool author wrote.
 */
export function guardedParse<T>(schema: ZodType<T>, value: unknown): GuardedParse<T> {
  let parsed: ReturnType<ZodType<T>['safeParse']>;
  try {
    parsed = schema.safeParse(value);
  } catch (thrown) {
    return { success: false, issues: [THROWN_ISSUE], thrown: describeThrown(thrown) };
  }
  if (parsed.success) return { success: true, data: parsed.data };
  return {
    success: false,
    issues: parsed.error.issues.map((issue) => ({ path: formatIssuePath(issue.path), code: issue.code })),
  };
}

/** Issues as the audit records them: `<path> (<code>)`. */
export function describeIssues(issues: readonly ParseIssue[]): string[] {
  return issues.map((issue) => `${issue.path} (${issue.code})`);
}

function formatIssuePath(path: readonly PropertyKey[]): string {
  return path.length === 0 ? '/' : path.map((token) => `/${String(token)}`).join('');
}
