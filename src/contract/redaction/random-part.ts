import { ALNUM, boundedRunEnd } from './char-class.js';

/** A random-looking part: this many letters and digits in a row, with at least one of each… */
const RANDOM_SEGMENT = 16;
/** …found within this many characters of where the run starts. */
const RANDOM_WINDOW = 40;
/** Short labels allowed before the random part (`sk-or-v1-…` has two), and their longest length. */
const MAX_LABELS = 3;
const MAX_LABEL = 12;

/**
 * Whether `text` at `from` reads like generated key material rather than words: up to {@link MAX_LABELS} short
 * labels ending in `-` or `_` (`live-`, `or-v1-`), then a random-looking part: {@link RANDOM_SEGMENT} or more letters
 * and digits mixing both. Reads at most `MAX_LABELS * (MAX_LABEL + 1) + RANDOM_WINDOW` characters.
 */
export function hasRandomPart(text: string, from: number, limit: number): boolean {
  let i = from;
  for (let labels = 0; ; labels++) {
    const end = boundedRunEnd(text, i, limit, ALNUM, RANDOM_WINDOW);
    if (end - i >= RANDOM_SEGMENT && mixesDigitsAndLetters(text, i, end)) return true;
    const separator = text.charCodeAt(end);
    if (
      labels === MAX_LABELS ||
      end === i ||
      end - i > MAX_LABEL ||
      end >= limit ||
      (separator !== 0x2d && separator !== 0x5f)
    )
      return false;
    i = end + 1;
  }
}

/** True when the letters-and-digits run `text[from, to)` holds at least one of each. */
function mixesDigitsAndLetters(text: string, from: number, to: number): boolean {
  let digits = 0;
  for (let i = from; i < to; i++) if (text.charCodeAt(i) <= 0x39) digits++;
  return digits > 0 && digits < to - from;
}
