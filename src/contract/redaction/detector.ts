import type { CharClass } from './char-class.js';

/** A part of a text to hide, and the catalog rule that found it. `start < end`. */
export interface Hit {
  readonly start: number;
  readonly end: number;
  readonly rule: string;
}

/**
 * One way of finding secrets in text, called by the scanner at positions whose character is in `startChars` (and
 * whose next character is in `secondChars`, if given).
 *
 * The contract that keeps every scan linear in the text's length:
 * - `detect` reads nothing at or past `limit` (and before `at`, at most the one character that tells a run start);
 * - a `Hit` has `at <= start < end`, and the scanner continues at `end`: what was read to find it is not read again;
 * - a miss is a number `resume > at` such that called anywhere in `(at, resume)` this detector would miss too; the
 *   scanner does not call it again before `resume`. A miss reads at most `resume - at + SCAN_LOOKAHEAD` characters.
 * So each detector reads every character a bounded number of times, whatever the text.
 *
 * And the contract that makes a cut safe: whether a secret starting at `s` is found depends only on
 * `text[s, s + SCAN_LOOKAHEAD)`, and once found it is hidden up to `limit` if it runs that far. (One documented
 * exception: a JWT whose header alone is longer; the header is not secret.)
 */
export interface Detector {
  /** ASCII characters a hit (or the name before one) can start with. */
  readonly startChars: string;
  /** Whether a hit (or the name before one) can also start with a character outside ASCII (a letter of any script). */
  readonly startsOutsideAscii?: boolean;
  /** Characters that can follow a start character, when narrower than "any": the scanner checks it first. */
  readonly secondChars?: CharClass;
  detect(text: string, at: number, limit: number): Hit | number;
}

/**
 * Most characters a detector reads past `resume` on a miss, and the longest stretch it needs to see to recognise a
 * secret. Every detector keeps its bounded look-ahead below this; the scanner reads this far past a cut.
 */
export const SCAN_LOOKAHEAD = 512;
