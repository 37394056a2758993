import type { TimeInput } from './tool-handler.js';

/** Converts a handler-supplied timestamp to ISO-8601 UTC; `null` when it is not a real point in time. */
export function toIsoTimestamp(input: TimeInput): string | null {
  let ms: number;
  if (input instanceof Date) ms = input.getTime();
  else if (typeof input === 'number') ms = input;
  else if (typeof input === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(input)) ms = Date.parse(input);
  else return null;
  if (!Number.isFinite(ms)) return null;
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}
