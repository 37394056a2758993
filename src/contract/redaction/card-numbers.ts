import { CARD_BRANDS } from './catalog.js';
import { afterRun, ALNUM, boundedRunEnd, DIGIT, inClass, startsRun } from './char-class.js';
import type { Detector, Hit } from './detector.js';

const MIN_DIGITS = 13;
const MAX_DIGITS = 19;
/** The longest printed group (the middle one of Amex and Diners). */
const MAX_GROUP = 6;

/**
 * Payment card numbers: 13–19 digits, either unbroken or printed in groups (4-4-4-4…, 4-6-5, 4-6-4) split by one
 * kind of separator, in a network's issuer range and length, with a valid Luhn check digit. Phone numbers, ISBNs,
 * timestamps and order ids fail one of these; a random 16-digit id in a card range still passes one time in ten.
 * Reads at most 20 digits and their separators.
 */
export const cardNumberDetector: Detector = {
  startChars: '0123456789',
  // A card starts with at least four digits in a row.
  secondChars: DIGIT,
  detect(text: string, at: number, limit: number): Hit | number {
    if (!startsRun(text, at, ALNUM)) return afterRun(text, at, limit, ALNUM);
    const firstEnd = boundedRunEnd(text, at, limit, DIGIT, MAX_DIGITS + 1);
    const separator = text.charCodeAt(firstEnd);
    const grouped =
      firstEnd - at === 4 &&
      firstEnd + 1 < limit &&
      (separator === 0x20 || separator === 0x2d) &&
      isDigit(text.charCodeAt(firstEnd + 1));
    if (!grouped)
      return (firstEnd - at >= MIN_DIGITS ? cardEndingAt(text, at, firstEnd, firstEnd - at, limit) : null) ?? at + 1;
    return groupedCard(text, at, firstEnd, separator, limit) ?? at + 1;
  },
};

/**
 * A card printed in groups from `at` (the first group, four digits, ends at `firstEnd`): 4-4-4-k (13–16 digits),
 * 4-4-4-4-k (17–19), 4-6-5 (Amex) or 4-6-4 (Diners). The longest shape that is a card wins, since a card may be
 * followed by more digits (`4111 1111 1111 1111 12 28`).
 */
function groupedCard(text: string, at: number, firstEnd: number, separator: number, limit: number): Hit | null {
  const second = nextGroup(text, firstEnd, separator, limit);
  if (second === -1) return null;
  if (second - firstEnd - 1 === 6) {
    const third = nextGroup(text, second, separator, limit);
    const size = third - second - 1;
    return third !== -1 && (size === 5 || size === 4) ? cardEndingAt(text, at, third, 10 + size, limit) : null;
  }
  const third = second - firstEnd - 1 === 4 ? nextGroup(text, second, separator, limit) : -1;
  const fourth = third !== -1 && third - second - 1 === 4 ? nextGroup(text, third, separator, limit) : -1;
  const fourthSize = fourth - third - 1;
  if (fourth === -1 || fourthSize > 4) return null;
  const fifth = fourthSize === 4 ? nextGroup(text, fourth, separator, limit) : -1;
  const longer =
    fifth !== -1 && fifth - fourth - 1 <= 3 ? cardEndingAt(text, at, fifth, 16 + fifth - fourth - 1, limit) : null;
  return longer ?? cardEndingAt(text, at, fourth, 12 + fourthSize, limit);
}

/** End of the digit group after the separator at `at`, or -1 when no such group follows. */
function nextGroup(text: string, at: number, separator: number, limit: number): number {
  if (at + 1 >= limit || text.charCodeAt(at) !== separator || !isDigit(text.charCodeAt(at + 1))) return -1;
  return boundedRunEnd(text, at + 1, limit, DIGIT, MAX_GROUP + 1);
}

function cardEndingAt(text: string, at: number, end: number, digits: number, limit: number): Hit | null {
  return standsAlone(text, end, limit) && isCardAt(text, at, end, digits, leadingNumber(text, at, at + 4))
    ? { start: at, end, rule: 'card_number' }
    : null;
}

/** True when `digits` (digits only) is a card number: issuer range, length and Luhn check digit. */
export function isCardNumber(digits: string): boolean {
  return digits.length >= MIN_DIGITS && isCardAt(digits, 0, digits.length, digits.length, leadingNumber(digits, 0, 4));
}

/** `text[from, to)` holds `count` digits (separators aside) starting with `prefix4`, and they form a card number. */
function isCardAt(text: string, from: number, to: number, count: number, prefix4: number): boolean {
  return count >= MIN_DIGITS && count <= MAX_DIGITS && isIssued(prefix4, count) && luhnValid(text, from, to);
}

/** The number written by the digits of `text[from, to)`. */
function leadingNumber(text: string, from: number, to: number): number {
  let value = 0;
  for (let i = from; i < to; i++) value = value * 10 + (text.charCodeAt(i) - 0x30);
  return value;
}

/** For each four-digit prefix, a bit per card length (13–19) that some network issues with it. */
const ISSUED_LENGTHS = ((): Uint8Array => {
  const table = new Uint8Array(10_000);
  for (let prefix4 = 0; prefix4 < table.length; prefix4++) {
    for (const brand of CARD_BRANDS) {
      const prefix = Math.floor(prefix4 / 10 ** (4 - brand.digits));
      if (prefix >= brand.from && prefix <= brand.to)
        for (const length of brand.lengths) table[prefix4]! |= 1 << (length - MIN_DIGITS);
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
