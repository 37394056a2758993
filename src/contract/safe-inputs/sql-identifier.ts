import { z } from 'zod';

/** Options of {@link sqlIdentifier}. */
export interface SqlIdentifierOptions {
  /** The identifiers accepted (a sort column, a report table): when given, nothing else is. Strongly preferred. */
  readonly allowed?: readonly string[];
  /** Longest accepted identifier (default 63, Postgres' limit). */
  readonly maxLength?: number;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * An SQL identifier the model may choose — a column to sort by, a table of a report — as a zod schema (seed 003: SQL
 * arguments are filtered before a tool runs). Values never need this: bind them as query parameters (`$1`), which no
 * text can escape. An identifier cannot be bound, so this one is refused unless it is a plain name — ASCII letters,
 * digits and `_`, not starting with a digit — and, with `allowed`, one of those names exactly: no quote, space,
 * semicolon, comment, dot or operator can reach the statement. Quote it anyway where it is used (`"${name}"`).
 */
export function sqlIdentifier(options: SqlIdentifierOptions = {}) {
  const allowed = options.allowed === undefined ? null : new Set(options.allowed);
  return z
    .string()
    .min(1)
    .max(options.maxLength ?? 63)
    .superRefine((name, ctx) => {
      const problem = !IDENTIFIER.test(name)
        ? 'not a plain identifier'
        : allowed !== null && !allowed.has(name)
          ? 'not an allowed identifier'
          : null;
      if (problem !== null)
        ctx.addIssue({
          code: 'custom',
          message: `unsafe SQL identifier: ${problem}`,
          params: { rule: 'sql_identifier', problem },
        });
    });
}
