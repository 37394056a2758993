import {
  NAME_FLAG_HEADS,
  NAME_METADATA_TAILS,
  SECRET_NAME_PAIRS,
  SECRET_NAME_SUFFIXES,
  SECRET_NAME_TAIL_ONLY,
  SECRET_NAME_WORDS,
  URL_SECRET_PARAMS,
} from './catalog.js';

/** Names whose verdict is remembered at once; the memory is bounded, whatever the input. */
const MAX_REMEMBERED_NAMES = 4096;

/** Longest name judged; longer ones are prose or data, not field names. */
export const MAX_FIELD_NAME = 64;

/** Lower-case alphanumerics only: the form exact field names are compared in. */
export function normalizeFieldName(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/**
 * Splits a field name into lower-case words at separators and case changes: `dbPassword` → db, password;
 * `APIKey` → api, key; `X-Amz-Security-Token` → x, amz, security, token; `oauth2Token` → oauth2, token.
 */
export function fieldNameTokens(name: string): string[] {
  const tokens: string[] = [];
  let start = -1;
  for (let i = 0; i <= name.length; i++) {
    const ch = name[i];
    const boundary = ch === undefined || !isAsciiAlnum(ch) || (start !== -1 && startsWord(name, i));
    if (boundary && start !== -1) {
      tokens.push(name.slice(start, i).toLowerCase());
      start = -1;
    }
    if (ch !== undefined && isAsciiAlnum(ch) && start === -1) start = i;
  }
  return tokens;
}

/** A capital starts a word after a lower-case letter or digit (`dbPassword`), or ends an acronym (`APIKey`). */
function startsWord(name: string, i: number): boolean {
  const ch = name[i]!;
  const prev = name[i - 1];
  const next = name[i + 1];
  return isUpper(ch) && prev !== undefined && (isLower(prev) || isDigit(prev) || (isUpper(prev) && next !== undefined && isLower(next)));
}

const WORDS = new Set(SECRET_NAME_WORDS);
const METADATA_TAILS = new Set(NAME_METADATA_TAILS);
const FLAG_HEADS = new Set(NAME_FLAG_HEADS);
const TAIL_ONLY = new Set(SECRET_NAME_TAIL_ONLY);
const PAIRS = new Set(SECRET_NAME_PAIRS.map(([a, b]) => `${a} ${b}`));
const URL_PARAMS = new Set(URL_SECRET_PARAMS);

/**
 * Decides which field names are secret. Two kinds of rule:
 * - exact names (the package's control fields and a tool's own `sensitiveFields`), compared normalized, always win;
 * - the catalog's vocabulary, matched by token, with an allowlist of metadata tails and flag heads
 *   (`token_count`, `password_updated_at`, `has_password` are not secrets).
 */
export class SecretNames {
  private readonly exact: ReadonlySet<string>;
  /** Verdicts by name: the same names recur throughout a result (every row has the same keys). */
  private readonly verdicts = new Map<string, boolean>();

  constructor(exactNames: readonly string[]) {
    this.exact = new Set(exactNames.map(normalizeFieldName));
  }

  /** True when a field (or header, or assignment) of this name holds a secret. */
  isSecret(name: string): boolean {
    if (name.length > MAX_FIELD_NAME) return this.exact.has(normalizeFieldName(name));
    const known = this.verdicts.get(name);
    if (known !== undefined) return known;
    const verdict = this.exact.has(normalizeFieldName(name)) || namesSecretByTokens(fieldNameTokens(name));
    if (this.verdicts.size >= MAX_REMEMBERED_NAMES) this.verdicts.clear();
    this.verdicts.set(name, verdict);
    return verdict;
  }

  /** Like {@link isSecret}, for a URL query parameter, where a few more names carry credentials (`?key=`). */
  isSecretParam(name: string): boolean {
    return this.isSecret(name) || URL_PARAMS.has(name.toLowerCase());
  }
}

function namesSecretByTokens(tokens: readonly string[]): boolean {
  const last = tokens[tokens.length - 1];
  if (last === undefined || METADATA_TAILS.has(last) || FLAG_HEADS.has(tokens[0]!)) return false;
  if (tokens.length > 1 && TAIL_ONLY.has(last)) return true;
  return tokens.some((token, i) => WORDS.has(token) || hasSecretSuffix(token) || (i > 0 && PAIRS.has(`${tokens[i - 1]!} ${token}`)));
}

function hasSecretSuffix(token: string): boolean {
  return SECRET_NAME_SUFFIXES.some((suffix) => token.length > suffix.length && token.endsWith(suffix));
}

function isAsciiAlnum(ch: string): boolean {
  return isLower(ch) || isUpper(ch) || isDigit(ch);
}

function isLower(ch: string): boolean {
  return ch >= 'a' && ch <= 'z';
}

function isUpper(ch: string): boolean {
  return ch >= 'A' && ch <= 'Z';
}

function isDigit(ch: string): boolean {
  return ch >= '0' && ch <= '9';
}
