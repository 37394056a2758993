import type { TimeInput } from './tool-handler.js';

/** A time read from a handler: the instant as ISO-8601 UTC, or why it is not one (fixed words, never the input). */
export type TimeReading = { readonly ok: true; readonly iso: string } | { readonly ok: false; readonly reason: string };

/** The forms a handler may give a time in, for messages that say what would have been accepted. */
const ACCEPTED_TIME_FORMS = 'a Date, epoch milliseconds (a number), an ISO 8601 time with a zone, or an HTTP date';

// Every pattern is anchored and free of nested quantifiers (linear in the input), and the input is cut to
// MAX_TIME_TEXT first: the text comes from an upstream response.
const MAX_TIME_TEXT = 64;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const ISO_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?([Zz]|[+-]\d{2}(?::?\d{2})?)?$/;
// RFC 9110 §5.6.7: IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the obsolete RFC 850 form
// (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime (`Sun Nov  6 08:49:37 1994`); a recipient must accept all three.
const IMF_FIXDATE = /^[A-Za-z]{3}, (\d{2}) ([A-Za-z]{3}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const RFC_850 = /^[A-Za-z]{6,9}, (\d{2})-([A-Za-z]{3})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const ASCTIME = /^[A-Za-z]{3} ([A-Za-z]{3}) ([ \d]\d) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/;
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/**
 * Reads a time as the outside world gives it: a `Date`, epoch milliseconds, an ISO 8601 / RFC 3339 time (a date
 * alone is its UTC midnight; a date and time needs its zone, `Z` or an offset), or an HTTP date in any of the three
 * forms HTTP allows (a `Last-Modified` or `Date` header as it comes). A date and time without a zone is refused, not
 * guessed: read in the worker's own zone, the same text would be a different instant on another machine. A number
 * given as text is refused too: seconds and milliseconds cannot be told apart.
 */
export function readTime(input: unknown): TimeReading {
  if (input instanceof Date) return instant(input.getTime(), 'an invalid Date');
  if (typeof input === 'number')
    return Number.isFinite(input)
      ? instant(input, 'a number outside the range of dates')
      : refused('a number that is not finite');
  if (typeof input !== 'string') return refused(`a ${input === null ? 'null' : typeof input}, not a time`);
  const text = input.trim();
  if (text === '') return refused('an empty text');
  if (text.length > MAX_TIME_TEXT) return refused(`a text longer than ${MAX_TIME_TEXT} characters`);
  if (/^\d+$/.test(text)) return refused('a number written as text (give epoch milliseconds as a number)');
  return readIso(text) ?? readHttpDate(text) ?? refused(`a text that is none of: ${ACCEPTED_TIME_FORMS}`);
}

/** Converts a handler-supplied timestamp to ISO-8601 UTC; `null` when it is not a real point in time (see {@link readTime}). */
export function toIsoTimestamp(input: TimeInput): string | null {
  const reading = readTime(input);
  return reading.ok ? reading.iso : null;
}

function readIso(text: string): TimeReading | null {
  const day = ISO_DATE.exec(text);
  if (day) return utc({ year: day[1], month: day[2], day: day[3] }, 0);
  const match = ISO_DATE_TIME.exec(text);
  if (!match) return null;
  const [, year, month, dayOfMonth, hour, minute, second, fraction, zone] = match;
  if (zone === undefined) return refused('a date and time without a time zone (add Z or an offset such as +02:00)');
  const offset = zoneOffsetMinutes(zone);
  if (offset === null) return refused('a time zone offset out of range');
  const fields = {
    year,
    month,
    day: dayOfMonth,
    hour,
    minute,
    second,
    millisecond: (fraction ?? '').padEnd(3, '0').slice(0, 3),
  };
  return utc(fields, -offset * 60_000);
}

function readHttpDate(text: string): TimeReading | null {
  const fixdate = IMF_FIXDATE.exec(text);
  if (fixdate)
    return utc(
      {
        day: fixdate[1],
        month: monthNumber(fixdate[2]),
        year: fixdate[3],
        hour: fixdate[4],
        minute: fixdate[5],
        second: fixdate[6],
      },
      0,
    );
  const rfc850 = RFC_850.exec(text);
  if (rfc850) {
    // Two-digit years: RFC 9110 reads a year more than 50 years ahead as the past century; a fixed pivot keeps it pure.
    const twoDigits = Number(rfc850[3]);
    const year = String(twoDigits < 70 ? 2000 + twoDigits : 1900 + twoDigits);
    return utc(
      { day: rfc850[1], month: monthNumber(rfc850[2]), year, hour: rfc850[4], minute: rfc850[5], second: rfc850[6] },
      0,
    );
  }
  const asctime = ASCTIME.exec(text);
  if (asctime)
    return utc(
      {
        month: monthNumber(asctime[1]),
        day: asctime[2]?.trim(),
        hour: asctime[3],
        minute: asctime[4],
        second: asctime[5],
        year: asctime[6],
      },
      0,
    );
  return null;
}

interface TimeFields {
  readonly year: string | undefined;
  readonly month: string | undefined;
  readonly day: string | undefined;
  readonly hour?: string | undefined;
  readonly minute?: string | undefined;
  readonly second?: string | undefined;
  readonly millisecond?: string | undefined;
}

/**
 * The instant of calendar fields in UTC, shifted by `shiftMs`; refused when a field is out of its range (31 February,
 * 25:00). A leap second (`:60`, which a Date cannot hold) is read as the first instant of the next minute.
 */
function utc(fields: TimeFields, shiftMs: number): TimeReading {
  const [year, month, day, hour, minute, second, millisecond] = [
    fields.year,
    fields.month,
    fields.day,
    fields.hour,
    fields.minute,
    fields.second,
    fields.millisecond,
  ].map((part) => Number(part ?? 0)) as [number, number, number, number, number, number, number];
  if (fields.month === undefined) return refused('a date with an unknown month name');
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month) || hour > 23 || minute > 59 || second > 60)
    return refused('a date or time with a field out of range');
  const at = new Date(0);
  // setUTCFullYear, not Date.UTC: Date.UTC reads the years 0–99 as 1900–1999.
  at.setUTCFullYear(year, month - 1, day);
  at.setUTCHours(hour, minute, second, millisecond);
  return instant(at.getTime() + shiftMs, 'a date outside the range of dates');
}

function daysInMonth(year: number, month: number): number {
  const lastDay = new Date(0);
  lastDay.setUTCFullYear(year, month, 0);
  return lastDay.getUTCDate();
}

function instant(ms: number, whyNot: string): TimeReading {
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? refused(whyNot) : { ok: true, iso: date.toISOString() };
}

function monthNumber(name: string | undefined): string | undefined {
  const index = MONTHS.indexOf((name ?? '').toLowerCase());
  return index < 0 ? undefined : String(index + 1);
}

/** `Z`, `±hh`, `±hhmm` or `±hh:mm` as minutes east of UTC; `null` beyond ±23:59. */
function zoneOffsetMinutes(zone: string): number | null {
  if (zone === 'Z' || zone === 'z') return 0;
  const sign = zone.startsWith('-') ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = digits.length > 2 ? Number(digits.slice(2)) : 0;
  if (hours > 23 || minutes > 59) return null;
  return sign * (hours * 60 + minutes);
}

function refused(reason: string): TimeReading {
  return { ok: false, reason };
}
