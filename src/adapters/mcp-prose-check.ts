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
const ISO_DATE =
  /(?<![\w.])\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?(?![\w])/g;
const NUMBER = /(?<![\w.,-])-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\w])/g;
/** Structured values looked at, at most: a remote answer is bounded, but this check must not be its weak point. */
const MAX_LEAVES = 10_000;
const MAX_TEXT_CHARS = 100_000;
/** A longer digit run is not a restated value (no JSON number has that many significant digits): it contradicts. */
const MAX_NUMBER_CHARS = 32;

/**
 * Compares the dates and numbers of `text` with the values of `structured`. Linear in the text and the structure:
 * the structured values are indexed once, and each claim is one lookup (a handful for a date in an unnamed zone).
 */
export function checkProse(text: string, structured: unknown): ProseCheck {
  const bounded = text.slice(0, MAX_TEXT_CHARS);
  const dates = [...bounded.matchAll(ISO_DATE)].map((match) => match[0]);
  const numbers = [...bounded.replace(ISO_DATE, ' ').matchAll(NUMBER)].map((match) => match[0]);
  if (dates.length === 0 && numbers.length === 0) return { kind: 'unverifiable' };
  const leaves = structuredLeaves(structured);
  const restatesNumber = numberIndex(leaves.numbers);
  const restatesDate = dateIndex(leaves.dates);
  const claims = [
    ...dates.filter((date) => !restatesDate(date)),
    ...numbers.filter((number) => !restatesNumber(number)),
  ];
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
    else if (typeof value === 'string' && value.length <= MAX_NUMBER_CHARS && /^-?\d+(?:\.\d+)?$/.test(value))
      numbers.push(Number(value));
    else if (value !== null && typeof value === 'object') {
      for (const child of Array.isArray(value) ? value : Object.values(value)) {
        if (queue.length >= MAX_LEAVES) break;
        queue.push(child);
      }
    }
  }
  return { numbers, dates };
}

/** Whether a number in the text equals a structured value, or is one rounded to the decimals the text shows. */
function numberIndex(values: readonly number[]): (claim: string) => boolean {
  const finite = values.filter((value) => Number.isFinite(value));
  const exact = new Set(finite);
  const roundedTo = new Map<number, Set<number>>();
  return (claim) => {
    if (claim.length > MAX_NUMBER_CHARS) return false;
    const normalized = claim.replace(/,/g, '');
    const stated = Number(normalized);
    if (exact.has(stated)) return true;
    const decimals = Math.min(normalized.includes('.') ? normalized.length - normalized.indexOf('.') - 1 : 0, 20);
    let rounded = roundedTo.get(decimals);
    if (rounded === undefined) {
      rounded = new Set(finite.map((value) => Number(value.toFixed(decimals))));
      roundedTo.set(decimals, rounded);
    }
    return rounded.has(stated);
  };
}

const DAY_MS = 86_400_000;
/** Local times range from UTC−12 to UTC+14; offsets are whole quarter hours. */
const MAX_OFFSET_MS = 14 * 3_600_000;
const QUARTER_HOUR_MS = 900_000;

/**
 * Whether a date in the text names a structured instant. With an offset (or `Z`) it must be that instant; without
 * one it is a wall-clock time in some zone the text does not name (seed 000 writes 10:20Z as "18:20 China Standard
 * Time"), so any real offset is accepted; a bare date must be a day that instant falls on somewhere on Earth.
 */
function dateIndex(values: readonly string[]): (claim: string) => boolean {
  const instants = new Set(values.map((value) => Date.parse(value)).filter((instant) => Number.isFinite(instant)));
  const days = new Set<number>();
  for (const instant of instants) {
    for (let day = startOfDay(instant - MAX_OFFSET_MS); day <= instant + MAX_OFFSET_MS; day += DAY_MS) days.add(day);
  }
  return (claim) => {
    if (claim.length === 10) return days.has(Date.parse(`${claim}T00:00:00Z`));
    const iso = claim.replace(' ', 'T').replace(/([+-]\d{2})(\d{2})$/, '$1:$2');
    const zoned = /(?:Z|[+-]\d{2}:\d{2})$/.test(iso);
    const at = Date.parse(zoned ? iso : `${iso}Z`);
    if (!Number.isFinite(at)) return false;
    if (zoned) return instants.has(at);
    for (let offset = -MAX_OFFSET_MS; offset <= MAX_OFFSET_MS; offset += QUARTER_HOUR_MS)
      if (instants.has(at - offset)) return true;
    return false;
  };
}

function startOfDay(instant: number): number {
  return Math.floor(instant / DAY_MS) * DAY_MS;
}
