/**
 * Checks prose a remote MCP server sent next to `structuredContent` (seed 000: text saying 30 °C beside
 * `temperature_c: 27.4` is a contract violation, not a harmless difference). What can be checked mechanically is
 * checked: every ISO date and every number in the text must restate a value of the structured result. A number
 * may be rounded in the text (27.4 → "27"), never changed.
 */

/** What the text of one content block says about the structured result. */
export type ProseCheck =
  /** Every date and number in the text restates a structured value. */
  | { readonly kind: 'consistent' }
  /** Nothing in the text can be compared (no numbers or dates), so nothing was verified. */
  | { readonly kind: 'unverifiable' }
  /** These claims match no structured value. */
  | { readonly kind: 'contradicts'; readonly claims: readonly string[] };

// Both patterns run in linear time on untrusted text: the lookbehind refuses to start inside a digit run, so no
// starting position re-scans one.
const ISO_DATE = /(?<![\w.])\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?(?![\w])/g;
const NUMBER = /(?<![\w.,-])-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\w])/g;
/** Structured values looked at, at most: a remote answer is bounded, but this check must not be its weak point. */
const MAX_LEAVES = 10_000;
const MAX_TEXT_CHARS = 100_000;

/** Compares the dates and numbers of `text` with the values of `structured`. */
export function checkProse(text: string, structured: unknown): ProseCheck {
  const bounded = text.slice(0, MAX_TEXT_CHARS);
  const dates = [...bounded.matchAll(ISO_DATE)].map((match) => match[0]);
  const numbers = [...bounded.replace(ISO_DATE, ' ').matchAll(NUMBER)].map((match) => match[0]);
  if (dates.length === 0 && numbers.length === 0) return { kind: 'unverifiable' };
  const values = structuredLeaves(structured);
  const claims = [...dates.filter((date) => !values.dates.some((value) => sameDate(date, value))), ...numbers.filter((number) => !values.numbers.some((value) => restates(number, value)))];
  return claims.length === 0 ? { kind: 'consistent' } : { kind: 'contradicts', claims };
}

/** The numbers and date strings of a structured result, breadth first and bounded. */
function structuredLeaves(structured: unknown): { numbers: number[]; dates: string[] } {
  const numbers: number[] = [];
  const dates: string[] = [];
  const queue: unknown[] = [structured];
  for (let next = 0; next < queue.length && next < MAX_LEAVES; next++) {
    const value = queue[next];
    if (typeof value === 'number') numbers.push(value);
    else if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}/.test(value)) dates.push(value);
    else if (typeof value === 'string' && /^-?\d+(?:\.\d+)?$/.test(value)) numbers.push(Number(value));
    else if (value !== null && typeof value === 'object') {
      for (const child of Array.isArray(value) ? value : Object.values(value)) {
        if (queue.length >= MAX_LEAVES) break;
        queue.push(child);
      }
    }
  }
  return { numbers, dates };
}

/** The text's number equals `value`, or is `value` rounded to the decimals the text shows. */
function restates(claim: string, value: number): boolean {
  const normalized = claim.replace(/,/g, '');
  const stated = Number(normalized);
  const decimals = normalized.includes('.') ? normalized.length - normalized.indexOf('.') - 1 : 0;
  return stated === value || (Number.isFinite(value) && Number(value.toFixed(Math.min(decimals, 20))) === stated);
}

const DAY_MS = 86_400_000;
/** Local times range from UTC−12 to UTC+14; offsets are whole quarter hours. */
const MAX_OFFSET_MS = 14 * 3_600_000;
const QUARTER_HOUR_MS = 900_000;

/**
 * The text's date names the value's instant. With an offset (or `Z`) it must be that instant; without one it is a
 * wall-clock time in some zone the text does not name (seed 000 writes 10:20Z as "18:20 China Standard Time"), so
 * any real offset is accepted; a bare date must be a day that instant falls on somewhere on Earth.
 */
function sameDate(claim: string, value: string): boolean {
  const instant = Date.parse(value);
  if (!Number.isFinite(instant)) return false;
  if (claim.length === 10) {
    const day = Date.parse(`${claim}T00:00:00Z`);
    return instant + MAX_OFFSET_MS >= day && instant - MAX_OFFSET_MS < day + DAY_MS;
  }
  const iso = claim.replace(' ', 'T').replace(/([+-]\d{2})(\d{2})$/, '$1:$2');
  const zoned = /(?:Z|[+-]\d{2}:\d{2})$/.test(iso);
  const at = Date.parse(zoned ? iso : `${iso}Z`);
  if (!Number.isFinite(at)) return false;
  if (zoned) return at === instant;
  const shift = at - instant;
  return Math.abs(shift) <= MAX_OFFSET_MS && shift % QUARTER_HOUR_MS === 0;
}
