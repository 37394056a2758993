import { AUTH_SCHEMES } from './catalog.js';
import {
  BASE64,
  BLANK,
  boundedRunEnd,
  charClass,
  inClass,
  isWordUnitOutsideAscii,
  NAME,
  QUOTE,
  runEnd,
  SPACE,
  TOKEN68,
} from './char-class.js';
import type { Detector, Hit } from './detector.js';
import { lowerCode } from './field-name-tokens.js';
import { MAX_FIELD_NAME, type SecretNames } from './field-names.js';
import { REDACTED_MARKER } from './marker.js';

const SCHEMES = new Set(AUTH_SCHEMES);
const SCHEME = charClass('A-Za-z0-9-');
const MAX_SCHEME = 24;
/** Blanks allowed around a separator (`password = x`), and between a scheme and its credentials. */
const MAX_BLANKS = 4;
/** A bare `bearer <token>` needs a token this long, or a shorter one (≥ 8) with a digit or a symbol in it. */
const BEARER_LONG = 16;
const BEARER_MIN = 8;
/** Base64 characters of a bare `Basic …` decoded to find its `user:password` colon. */
const BASIC_WINDOW = 64;
/** Characters that open a URL parameter: there `key=` and `code=` carry credentials too, and `&` ends a value. */
const URL_PARAM_OPENERS = '?&#;';

/**
 * Secrets written as a named value in free text: `password=hunter2`, `"api_key": "…"`, `X-Api-Key: …`,
 * `?access_token=…`, `Authorization: Bearer …` (the scheme stays, the credentials go), `Cookie: …` (the whole line),
 * and the bare `bearer <token>` and `Basic <base64 of user:password>`. A name is secret by {@link SecretNames}.
 *
 * It starts only at the beginning of a name (a character that cannot be part of one before it), so a miss resumes at
 * the end of the name: every position is read once as part of a name, plus a bounded look-ahead for the separator
 * and the first characters of the value, which decide. Only a hit reads the rest of the value.
 */
export class SecretAssignmentDetector implements Detector {
  readonly startChars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-';
  /** Names are written in every script and width (`contraseña`, `пароль`, `ｐａｓｓｗｏｒｄ`): see {@link isNameChar}. */
  readonly startsOutsideAscii = true;

  private readonly names: SecretNames;

  constructor(names: SecretNames) {
    this.names = names;
  }

  detect(text: string, at: number, limit: number): Hit | number {
    // Inside a name: nothing starts before it ends.
    if (at > 0 && isNameChar(text.charCodeAt(at - 1))) return Math.max(at + 1, nameRunEnd(text, at, limit));
    const nameEnd = nameRunEnd(text, at, limit);
    // Outside ASCII the scanner asks at every character, punctuation too: no name starts there.
    if (nameEnd === at) return at + 1;
    if (nameEnd - at > MAX_FIELD_NAME) return nameEnd;
    const valueStart = separatorEnd(text, nameEnd, limit);
    if (valueStart === -1) return bareCredential(text, at, nameEnd, limit) ?? nameEnd;
    if (
      nameEnd - at < this.names.shortest &&
      (nameEnd - at < this.names.shortestAnyScript || isAsciiRun(text, at, nameEnd))
    )
      return nameEnd;
    const name = text.slice(at, nameEnd);
    const inUrl = at > 0 && URL_PARAM_OPENERS.includes(text[at - 1]!);
    if (!(inUrl ? this.names.isSecretParam(name) : this.names.isSecret(name))) return nameEnd;
    const wholeLine = endsWithWord(name, 'cookie') || endsWithWord(name, 'cookies');
    return namedValue(text, valueStart, limit, { inUrl, wholeLine }) ?? nameEnd;
  }
}

/** A character of a name in free text: ASCII letters, digits and `_ . -`, and word characters of any script. */
function isNameChar(code: number): boolean {
  return code < 0x80 ? inClass(NAME, code) : isWordUnitOutsideAscii(code);
}

function isAsciiRun(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (text.charCodeAt(i) >= 0x80) return false;
  return true;
}

/** First index in `[from, limit)` whose character is not a name character (or `limit`). */
function nameRunEnd(text: string, from: number, limit: number): number {
  let i = from;
  while (i < limit && isNameChar(text.charCodeAt(i))) i++;
  return i;
}

/** `name` ends with `word`, case-insensitively (`Set-Cookie`, `cookies`). */
function endsWithWord(name: string, word: string): boolean {
  if (name.length < word.length) return false;
  for (let k = 1; k <= word.length; k++)
    if (lowerCode(name.charCodeAt(name.length - k)) !== word.charCodeAt(word.length - k)) return false;
  return true;
}

/**
 * Position after `name` + separator + blanks, or -1 when no assignment follows. Accepts the closing quote of a
 * quoted key (`"password":`, `\"password\":`), `=`, `:`, `=>` and `:=` (and their full-width forms), but not `==`
 * or `::`.
 */
function separatorEnd(text: string, from: number, limit: number): number {
  let i = from;
  while (i < limit && i - from < 3 && (inClass(QUOTE, text.charCodeAt(i)) || text[i] === '\\' || text[i] === ']')) i++;
  i = boundedRunEnd(text, i, limit, BLANK, MAX_BLANKS);
  const separator = i < limit ? halfWidth(text[i]!) : undefined;
  if (separator !== '=' && separator !== ':') return -1;
  const next = i + 1 < limit ? halfWidth(text[i + 1]!) : undefined;
  if (next === separator) return -1;
  i += next === '>' || next === '=' ? 2 : 1;
  if (i > limit) return -1;
  return boundedRunEnd(text, i, limit, BLANK, MAX_BLANKS);
}

/** The full-width `＝` and `：` (CJK text, full-width names) as `=` and `:`; other characters as they are. */
function halfWidth(char: string): string {
  return char === '＝' ? '=' : char === '：' ? ':' : char;
}

/** The value of a secret-named assignment starting at `from`, or null when there is nothing (new) to hide. */
function namedValue(
  text: string,
  from: number,
  limit: number,
  context: { inUrl: boolean; wholeLine: boolean },
): Hit | null {
  let start = from;
  const quote = opening(text, start, limit);
  if (quote !== null) start += quote.length;
  if (start >= limit || alreadyHidden(text, start, limit)) return null;
  // A structure (`"password": {"hash": …}`) is not a value: its own fields are scanned where they stand.
  if (quote === null && opensStructure(text, start, limit)) return null;
  const credentials = afterScheme(text, start, limit);
  if (credentials !== null) start = credentials;
  if (alreadyHidden(text, start, limit)) return null;
  const end =
    quote !== null
      ? quotedEnd(text, start, limit, quote)
      : context.wholeLine
        ? lineEnd(text, start, limit)
        : unquotedEnd(text, start, limit, context.inUrl);
  return end > start ? { start, end, rule: 'secret_assignment' } : null;
}

/** `{` or `[` followed by what starts a JSON member or item (a quote, a bracket, whitespace, or the close). */
function opensStructure(text: string, at: number, limit: number): boolean {
  const first = text[at];
  return (first === '{' || first === '[') && (at + 1 >= limit || '"\'{[]} \t\r\n'.includes(text[at + 1]!));
}

/** The opening quote at `at` (`"`, `'`, a backtick, or a JSON-escaped `\"`), or null. */
function opening(text: string, at: number, limit: number): string | null {
  if (at < limit && inClass(QUOTE, text.charCodeAt(at))) return text[at]!;
  if (at + 1 < limit && text[at] === '\\' && text[at + 1] === '"') return '\\"';
  return null;
}

/** A value that is the marker, or masked (`***`), has nothing left to hide: redacting twice changes nothing. */
function alreadyHidden(text: string, at: number, limit: number): boolean {
  return (
    (at + REDACTED_MARKER.length <= limit && text.startsWith(REDACTED_MARKER, at)) ||
    (at + 3 <= limit && text.startsWith('***', at))
  );
}

/** Where the credentials start when the value opens with an HTTP auth scheme (`Bearer …`), else null. */
function afterScheme(text: string, at: number, limit: number): number | null {
  const schemeEnd = boundedRunEnd(text, at, limit, SCHEME, MAX_SCHEME + 1);
  if (schemeEnd === at || schemeEnd - at > MAX_SCHEME || !SCHEMES.has(text.slice(at, schemeEnd).toLowerCase()))
    return null;
  const credentials = boundedRunEnd(text, schemeEnd, limit, BLANK, MAX_BLANKS);
  if (credentials === schemeEnd || credentials >= limit || inClass(SPACE, text.charCodeAt(credentials))) return null;
  return credentials;
}

function quotedEnd(text: string, from: number, limit: number, quote: string): number {
  const close = quote === '\\"' ? '\\' : quote;
  let i = from;
  while (i < limit && text[i] !== close && text[i] !== '\n') i++;
  return i;
}

function unquotedEnd(text: string, from: number, limit: number, inUrl: boolean): number {
  let i = from;
  for (; i < limit; i++) {
    const code = text.charCodeAt(i);
    if (inClass(SPACE, code) || inClass(QUOTE, code) || (inUrl && (code === 0x26 || code === 0x23))) break;
  }
  return i;
}

function lineEnd(text: string, from: number, limit: number): number {
  let i = from;
  while (i < limit && text[i] !== '\n' && text[i] !== '\r') i++;
  return i;
}

/** `bearer <token>` and `Basic <base64 user:password>` written without a separator, as in prose or a curl line. */
function bareCredential(text: string, at: number, nameEnd: number, limit: number): Hit | null {
  const scheme = nameEnd - at === 5 || nameEnd - at === 6 ? text.slice(at, nameEnd).toLowerCase() : '';
  if (scheme !== 'bearer' && scheme !== 'basic') return null;
  const start = boundedRunEnd(text, nameEnd, limit, BLANK, MAX_BLANKS);
  if (start === nameEnd || alreadyHidden(text, start, limit)) return null;
  if (scheme === 'bearer') {
    const seen = boundedRunEnd(text, start, limit, TOKEN68, BEARER_LONG);
    const long = seen - start >= BEARER_LONG;
    if (!long && (seen - start < BEARER_MIN || !hasDigitOrSymbol(text, start, seen))) return null;
    return { start, end: runEnd(text, seen, limit, TOKEN68), rule: 'bearer_token' };
  }
  const window = boundedRunEnd(text, start, limit, BASE64, BASIC_WINDOW);
  if (window - start < BEARER_MIN || !decodesToUserPassword(text, start, window)) return null;
  return { start, end: runEnd(text, window, limit, BASE64), rule: 'basic_auth' };
}

function hasDigitOrSymbol(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const ch = text[i]!;
    if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'))) return true;
  }
  return false;
}

const BASE64_VALUES = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** True when the base64 in `text[from, to)` decodes to printable ASCII containing a `:` (as `user:password` does). */
function decodesToUserPassword(text: string, from: number, to: number): boolean {
  let bits = 0;
  let buffer = 0;
  let colon = false;
  for (let i = from; i < to && text[i] !== '='; i++) {
    buffer = ((buffer << 6) | BASE64_VALUES.indexOf(text[i]!)) & 0xffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      const byte = (buffer >> bits) & 0xff;
      if (byte < 0x20 || byte > 0x7e) return false;
      if (byte === 0x3a) colon = true;
    }
  }
  return colon;
}
