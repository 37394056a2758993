/**
 * ASCII character classes as lookup tables, and the one scanning primitive the secret detectors use: the end of a
 * maximal run of a class. A run is found by a single forward loop that never backs up, so reading a run costs its
 * length and nothing more.
 */
export type CharClass = Readonly<Uint8Array>;

/** Builds a class from a spec such as `A-Za-z0-9_-` (ranges `x-y`; a `-` at either end is literal). */
export function charClass(spec: string): CharClass {
  const table = new Uint8Array(128);
  for (let i = 0; i < spec.length; i++) {
    const from = spec.charCodeAt(i);
    const isRange = spec[i + 1] === '-' && i + 2 < spec.length;
    const to = isRange ? spec.charCodeAt(i + 2) : from;
    for (let code = from; code <= to; code++) table[code] = 1;
    if (isRange) i += 2;
  }
  return table;
}

/** A class of exactly the (ASCII) characters of `chars`, no ranges. */
export function literalClass(chars: string): CharClass {
  const table = new Uint8Array(128);
  for (let i = 0; i < chars.length; i++) if (chars.charCodeAt(i) < 128) table[chars.charCodeAt(i)] = 1;
  return table;
}

/** True when the UTF-16 unit `code` belongs to `cls` (non-ASCII never does). */
export function inClass(cls: CharClass, code: number): boolean {
  return code < 128 && cls[code] === 1;
}

/** First index in `[from, limit)` whose character is not in `cls` (or `limit`). */
export function runEnd(text: string, from: number, limit: number, cls: CharClass): number {
  let i = from;
  while (i < limit && inClass(cls, text.charCodeAt(i))) i++;
  return i;
}

/** Like {@link runEnd}, but stops after `max` characters: for checks that only need to know "at least `max`". */
export function boundedRunEnd(text: string, from: number, limit: number, cls: CharClass, max: number): number {
  return runEnd(text, from, Math.min(limit, from + max), cls);
}

/** True when the character before `at` is not in `cls` (or `at` is the start): a match may begin at `at`. */
export function startsRun(text: string, at: number, cls: CharClass): boolean {
  return at === 0 || !inClass(cls, text.charCodeAt(at - 1));
}

/**
 * For a detector whose matches must start a run of `cls`, called inside one: nothing can start before the run ends,
 * so that is where it resumes (each character of the run is then read once, not once per position).
 */
export function afterRun(text: string, at: number, limit: number, cls: CharClass): number {
  return Math.max(at + 1, runEnd(text, at, limit, cls));
}

export const ALNUM = charClass('A-Za-z0-9');
export const DIGIT = charClass('0-9');
export const HEX = charClass('0-9a-fA-F');
export const UPPER_DIGIT = charClass('A-Z0-9');
/** Letters, digits and `_`. */
export const WORD = charClass('A-Za-z0-9_');
/** Letters, digits, `_` and `-`: base64url and most API key bodies. */
export const TOKEN = charClass('A-Za-z0-9_-');
/** {@link TOKEN} plus `/`: secret paths such as webhook URLs. */
export const URL_PATH_TOKEN = charClass('A-Za-z0-9_/-');
/** {@link TOKEN} plus `.`: keys built of dotted parts (SendGrid, Doppler, Google OAuth). */
export const DOTTED_TOKEN = charClass('A-Za-z0-9_.-');
/** RFC 7235 token68 (the credentials of `Authorization: Bearer …`), `=` padding included. */
export const TOKEN68 = charClass('A-Za-z0-9._~+/=-');
export const BASE64 = charClass('A-Za-z0-9+/=');
/** What a field name in free text is made of (`db.password`, `X-Api-Key`, `--password`). */
export const NAME = charClass('A-Za-z0-9_.-');
/** Spaces and tabs (a separator that stays on one line). */
export const BLANK = charClass(' \t');
/** ASCII whitespace. */
export const SPACE = charClass(' \t\n\r\f\v');
export const QUOTE = charClass('"\'`');

/**
 * True for a UTF-16 unit outside ASCII that can be part of a word (a field name in any script): everything but the
 * spaces, punctuation and symbols of the blocks that hold them (Latin-1's, general and CJK punctuation, full-width
 * forms — whose `＝` and `：` then separate a name from its value). Full-width letters, digits, `－ ． ＿` count.
 * Surrogates count too (a word may hold a character outside the BMP).
 */
export function isWordUnitOutsideAscii(code: number): boolean {
  if (code <= 0xbf) return code === 0xaa || code === 0xb5 || code === 0xba;
  if (code === 0xd7 || code === 0xf7) return false;
  if ((code >= 0x2000 && code <= 0x206f) || (code >= 0x2e00 && code <= 0x2e7f) || (code >= 0x3000 && code <= 0x303f))
    return false;
  if ((code >= 0xfe10 && code <= 0xfe1f) || (code >= 0xfe30 && code <= 0xfe6f) || code === 0xfeff || code >= 0xfff0)
    return false;
  if (code >= 0xff00 && code <= 0xff65)
    return code === 0xff0d || code === 0xff0e || code === 0xff3f || isFullWidthAlnum(code);
  return code !== 0x1680 && code !== 0x180e;
}

function isFullWidthAlnum(code: number): boolean {
  return (code >= 0xff10 && code <= 0xff19) || (code >= 0xff21 && code <= 0xff3a) || (code >= 0xff41 && code <= 0xff5a);
}

/**
 * First index of `needle` in `text[from, limit)`, or -1. Never reads past `limit` (unlike `indexOf`), at a cost of
 * at most `needle.length` comparisons per position.
 */
export function indexWithin(text: string, needle: string, from: number, limit: number): number {
  const first = needle.charCodeAt(0);
  for (let i = from; i + needle.length <= limit; i++) {
    if (text.charCodeAt(i) === first && text.startsWith(needle, i)) return i;
  }
  return -1;
}
