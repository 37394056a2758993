import { readTime } from '../contract/time.js';

/** A header lookup (case-insensitive, as `Headers.get`). */
export type HeaderLookup = (name: string) => string | null;

/**
 * How long the provider asked us to wait, in milliseconds: OpenAI's `retry-after-ms` first (finer grained), then
 * `Retry-After` as seconds or an HTTP date (relative to the injected clock). `undefined` when absent or unreadable.
 */
export function retryAfterMs(header: HeaderLookup, now: () => number): number | undefined {
  const ms = header('retry-after-ms')?.trim();
  if (ms !== undefined && /^\d+(\.\d+)?$/.test(ms)) return Math.ceil(Number(ms));
  const value = header('retry-after')?.trim();
  if (value === undefined || value === '') return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const at = readTime(value);
  return at.ok ? Math.max(0, Date.parse(at.iso) - now()) : undefined;
}
