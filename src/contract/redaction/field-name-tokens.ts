import { nfkc } from './folded-name.js';

/**
 * Field names as words: split at separators and case changes, so `dbPassword`, `db_password` and `DB-PASSWORD` are
 * the same two words. The boundary functions walk a name without allocating; {@link fieldNameTokens} is the readable
 * form built on them.
 */

/**
 * Lower-case alphanumerics only, after NFKC (so full-width `ＡＰＩ＿ＫＥＹ` is `apikey`): the form exact field names are
 * compared in.
 */
export function normalizeFieldName(name: string): string {
  return nfkc(name)
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');
}

/**
 * Splits a field name into lower-case words at separators and case changes: `dbPassword` → db, password;
 * `APIKey` → api, key; `X-Amz-Security-Token` → x, amz, security, token; `oauth2Token` → oauth2, token.
 */
export function fieldNameTokens(name: string): string[] {
  const tokens: string[] = [];
  for (let start = tokenStart(name, 0); start < name.length;) {
    const end = tokenEnd(name, start);
    tokens.push(name.slice(start, end).toLowerCase());
    start = tokenStart(name, end);
  }
  return tokens;
}

/** Start of the first word at or after `from` (`name.length` when there is none). */
export function tokenStart(name: string, from: number): number {
  let i = from;
  while (i < name.length && !isAsciiAlnum(name.charCodeAt(i))) i++;
  return i;
}

/** End of the word that starts at `start`. */
export function tokenEnd(name: string, start: number): number {
  let i = start + 1;
  while (i < name.length && isAsciiAlnum(name.charCodeAt(i)) && !startsWord(name, i)) i++;
  return i;
}

/** A capital starts a word after a lower-case letter or digit (`dbPassword`), or ends an acronym (`APIKey`). */
function startsWord(name: string, i: number): boolean {
  if (!isUpper(name.charCodeAt(i))) return false;
  const prev = name.charCodeAt(i - 1);
  return isLower(prev) || isDigit(prev) || (isUpper(prev) && i + 1 < name.length && isLower(name.charCodeAt(i + 1)));
}

/** The lower-case form of an ASCII letter's code (other codes unchanged). */
export function lowerCode(code: number): number {
  return isUpper(code) ? code + 0x20 : code;
}

function isAsciiAlnum(code: number): boolean {
  return isLower(code) || isUpper(code) || isDigit(code);
}

function isLower(code: number): boolean {
  return code >= 0x61 && code <= 0x7a;
}

function isUpper(code: number): boolean {
  return code >= 0x41 && code <= 0x5a;
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}
