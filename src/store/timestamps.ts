/** ISO-8601 (UTC, millisecond) form of a timestamp read from Postgres. */
export function isoOf(value: Date): string {
  return value.toISOString();
}

/** {@link isoOf} for a nullable column. */
export function isoOrNull(value: Date | null): string | null {
  return value === null ? null : value.toISOString();
}

/** The store's clock; injected so tests control time. */
export type StoreClock = () => Date;
