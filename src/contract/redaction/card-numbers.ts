import { CARD_BRANDS } from './catalog.js';
import { ALNUM, boundedRunEnd, DIGIT, inClass, startsRun } from './char-class.js';
import type { Detector, Hit } from './detector.js';

const MIN_DIGITS = 13;
const MAX_DIGITS = 19;
/** Most printed groups (4-4-4-4-3), and the longest one (the middle group of Amex and Diners). */
const MAX_GROUPS = 5;
const MAX_GROUP = 6;

/**
 * Payment card numbers: 13–19 digits, either unbroken or printed in groups (4-4-4-4…, 4-6-5, 4-6-4) split by one
 * kind of separator, in a network's issuer range and length, with a valid Luhn check digit. Phone numbers, ISBNs,
 * timestamps and order ids fail one of these; a random 16-digit id in a card range still passes one time in ten.
 * Reads at most 20 digits and their separators.
 */
export const cardNumberDetector: Detector = {
  startChars: '0123456789',
  detect(text: string, at: number, limit: number): Hit | number {
    if (!startsRun(text, at, ALNUM)) return at + 1;
    const firstEnd = boundedRunEnd(text, at, limit, DIGIT, MAX_DIGITS + 1);
    const prefix4 = leadingNumber(text, at, Math.min(firstEnd, at + 4));
    const separator = text.charCodeAt(firstEnd);
    const grouped = firstEnd - at === 4 && firstEnd + 1 < limit && (separator === 0x20 || separator === 0x2d) && isDigit(text.charCodeAt(firstEnd + 1));
    if (!grouped) {
      const card = standsAlone(text, firstEnd, limit) && isCardAt(text, at, firstEnd, firstEnd - at, prefix4);
      return card ? { start: at, end: firstEnd, rule: 'card_number' } : at + 1;
    }
    // Printed groups: whole groups are read while the shape can still be a card's; then the longest is tried first,
    // since a card may be followed by more digits (`4111 1111 1111 1111 12 28`).
    const ends = [firstEnd];
    const digits = [4];
    for (let pos = firstEnd; ends.length < MAX_GROUPS && digits[digits.length - 1]! < MAX_DIGITS; ) {
      if (pos + 1 >= limit || text.charCodeAt(pos) !== separator || !isDigit(text.charCodeAt(pos + 1))) break;
      const end = boundedRunEnd(text, pos + 1, limit, DIGIT, MAX_GROUP + 1);
      if (!continuesCardShape(digits, end - pos - 1)) break;
      ends.push(end);
      digits.push(digits[digits.length - 1]! + end - pos - 1);
      pos = end;
    }
    for (let group = ends.length - 1; group > 0; group--) {
      const end = ends[group]!;
      if (standsAlone(text, end, limit) && isCompleteShape(digits, group) && isCardAt(text, at, end, digits[group]!, prefix4)) {
        return { start: at, end, rule: 'card_number' };
      }
    }
    return at + 1;
  },
};

/** True when `digits` (digits only) is a card number: issuer range, length and Luhn check digit. */
export function isCardNumber(digits: string): boolean {
  return isCardAt(digits, 0, digits.length, digits.length, leadingNumber(digits, 0, Math.min(4, digits.length)));
}

/** Whether a next group of `size` digits keeps the shape a card's. `digits` holds the running digit counts. */
function continuesCardShape(digits: readonly number[], size: number): boolean {
  if (digits.length === 1) return size === 6 || (size >= 1 && size <= 4);
  if (digits[1] === 10) return digits.length === 2 && (size === 5 || size === 4);
  const previous = digits[digits.length - 1]! - digits[digits.length - 2]!;
  return previous === 4 && size >= 1 && size <= 4;
}

/** A 4-6 start is only a card as 4-6-5 or 4-6-4 (three groups). */
function isCompleteShape(digits: readonly number[], lastGroup: number): boolean {
  return digits[1] !== 10 || lastGroup === 2;
}

/** `text[from, to)` holds `count` digits (separators aside) starting with `prefix4`, and they form a card number. */
function isCardAt(text: string, from: number, to: number, count: number, prefix4: number): boolean {
  return count >= MIN_DIGITS && count <= MAX_DIGITS && isIssued(prefix4, count) && luhnValid(text, from, to);
}

/** The number written by the first (up to four) digits, scaled to four digits: `41` → 4100. */
function leadingNumber(text: string, from: number, to: number): number {
  let value = 0;
  for (let i = from; i < to; i++) value = value * 10 + (text.charCodeAt(i) - 0x30);
  return value * 10 ** (4 - (to - from));
}

/** For each four-digit prefix, a bit per card length (13–19) that some network issues with it. */
const ISSUED_LENGTHS = ((): Uint8Array => {
  const table = new Uint8Array(10_000);
  for (let prefix4 = 0; prefix4 < table.length; prefix4++) {
    for (const brand of CARD_BRANDS) {
      const prefix = Math.floor(prefix4 / 10 ** (4 - brand.digits));
      if (prefix >= brand.from && prefix <= brand.to) for (const length of brand.lengths) table[prefix4]! |= 1 << (length - MIN_DIGITS);
    }
  }
  return table;
})();

function isIssued(prefix4: number, length: number): boolean {
  return (ISSUED_LENGTHS[prefix4]! & (1 << (length - MIN_DIGITS))) !== 0;
}

function luhnValid(text: string, from: number, to: number): boolean {
  let sum = 0;
  let position = 0;
  for (let i = to - 1; i >= from; i--) {
    const code = text.charCodeAt(i);
    if (!isDigit(code)) continue;
    let digit = code - 0x30;
    if (position++ % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

function standsAlone(text: string, end: number, limit: number): boolean {
  return end >= limit || !inClass(ALNUM, text.charCodeAt(end));
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}
