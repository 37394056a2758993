/** What a masked secret reads as. */
const MASK = '***';

/**
 * Masks the credentials of every URL in `text`: the password of a userinfo (the user name stays, to tell which
 * account was used), a userinfo without password whole (it may be a token), and secret query parameters. Every text
 * the CLI prints that may hold a URL goes through here: progress lines, JSON events, errors (a pg or gRPC message can
 * echo its connection string) — and approval previews, which a model fills. Idempotent: masking masked text changes
 * nothing.
 *
 * Each of the three passes reads its input a bounded number of times, in time linear in its length. They were regular
 * expressions whose backtracking was cubic (`token.` repeated to 9,000 characters took 14 s); the passes make the
 * matches those expressions made.
 */
export function maskCredentials(text: string): string {
  return maskSecretParameters(maskBareUserinfo(maskUrlUserinfo(text)));
}

/** `value` as JSON with every string in it masked by {@link maskCredentials} (keys are the CLI's own). */
export function maskedJson(value: unknown, space?: number): string {
  return JSON.stringify(
    value,
    (_key, item: unknown) => (typeof item === 'string' ? maskCredentials(item) : item),
    space,
  );
}

/**
 * The userinfo of a URL (`scheme://user:password@`, the scheme `[a-z][a-z0-9+.-]*` starting a word): up to the last
 * `@` before the path, so a password with an unencoded `@` (which pg accepts) is masked whole.
 */
function maskUrlUserinfo(text: string): string {
  let out = '';
  let copied = 0;
  for (let separator = text.indexOf('://'); separator >= 0; separator = text.indexOf('://', separator + 1)) {
    if (!hasScheme(text, separator, copied)) continue;
    const start = separator + 3;
    let lastAt = -1;
    for (let at = start; at < text.length && !isSpace(text.charCodeAt(at)) && !isPathStart(text.charCodeAt(at)); at++) {
      if (text.charCodeAt(at) === AT) lastAt = at;
    }
    if (lastAt < 0) continue;
    out += `${text.slice(copied, start)}${maskUserinfo(text.slice(start, lastAt))}@`;
    copied = lastAt + 1;
    separator = lastAt;
  }
  return out + text.slice(copied);
}

/** Whether a scheme ends at `separator` (not before `floor`): a run of scheme characters in which a word starts with a letter. */
function hasScheme(text: string, separator: number, floor: number): boolean {
  let found = false;
  for (let at = separator - 1; at >= floor && isSchemeChar(text.charCodeAt(at)); at--)
    found ||= isLetter(text.charCodeAt(at)) && startsWord(text, at);
  return found;
}

function maskUserinfo(userinfo: string): string {
  const colon = userinfo.indexOf(':');
  return colon < 0 ? MASK : `${userinfo.slice(0, colon)}:${MASK}`;
}

/**
 * `user:password@host` without a scheme, as a TEMPORAL_ADDRESS or a libpq host could carry it: at the start or after
 * one of `\s ' " ( = ,`, a user (no `\s / ? # @ : ' "`), a colon, and a password (no `\s / ? # ' "`) up to its last
 * `@` that a host follows. Runs are measured once, right to left, so each start is decided in constant time.
 */
function maskBareUserinfo(text: string): string {
  const length = text.length;
  // userEnd[i]: where the run of user characters from i ends; hostAt[i]: the last `@` with a host after it in the
  // run of password characters from i (-1: none).
  const userEnd = new Int32Array(length + 1).fill(length);
  const hostAt = new Int32Array(length + 1).fill(-1);
  for (let at = length - 1; at >= 0; at--) {
    const code = text.charCodeAt(at);
    const password = isPasswordChar(code);
    userEnd[at] = password && code !== AT && code !== COLON ? userEnd[at + 1]! : at;
    const next = at + 1 < length ? text.charCodeAt(at + 1) : NaN;
    const hostFollows = code === AT && !Number.isNaN(next) && !isSpace(next) && next !== AT;
    hostAt[at] = !password ? -1 : hostAt[at + 1]! >= 0 ? hostAt[at + 1]! : hostFollows ? at : -1;
  }
  let out = '';
  let copied = 0;
  const matchAt = (user: number): number => {
    const colon = userEnd[user]!;
    // A user, its colon, and a password of at least one character before the `@`.
    if (colon === user || text.charCodeAt(colon) !== COLON || !isPasswordChar(text.charCodeAt(colon + 1))) return -1;
    const end = hostAt[colon + 1]!;
    if (end < colon + 2) return -1;
    out += `${text.slice(copied, colon + 1)}${MASK}@`;
    copied = end + 1;
    return end;
  };
  for (let at = 0; at < length; at++) {
    // A user starts at the very beginning, or after a delimiter.
    let end = at === 0 ? matchAt(0) : -1;
    if (end < 0 && isDelimiter(text.charCodeAt(at))) end = matchAt(at + 1);
    if (end >= 0) at = end;
  }
  return out + text.slice(copied);
}

/**
 * `key=value` (a URL query parameter or a libpq conninfo keyword) whose key — the word characters, dots and dashes
 * before the `=`, from where a word starts — names a secret: `password`, libpq's `sslpassword`, `access_token`,
 * `api_key`, `client_secret`, a signature. The value ends at `&`, `;`, a quote or whitespace; a single-quoted
 * conninfo value is masked whole.
 */
function maskSecretParameters(text: string): string {
  let out = '';
  let copied = 0;
  for (let equals = text.indexOf('='); equals >= 0; equals = text.indexOf('=', equals + 1)) {
    if (!SECRET_WORD.test(keyBefore(text, equals, copied))) continue;
    const valueEnd = parameterValueEnd(text, equals + 1);
    if (valueEnd === undefined) continue;
    out += `${text.slice(copied, equals + 1)}${MASK}`;
    copied = valueEnd;
    equals = valueEnd - 1;
  }
  return out + text.slice(copied);
}

/** Secret words in a key; matched on the key alone, so its cost is the key's length. */
const SECRET_WORD = /passw(?:or)?d|pwd|secret|token|api[_-]?key|access[_-]?key|credential|signature/i;

/** The key before the `=` at `equals` (not before `floor`): its run of `[\w.-]`, from the first word start in it. */
function keyBefore(text: string, equals: number, floor: number): string {
  let start = equals;
  while (start > floor && isKeyChar(text.charCodeAt(start - 1))) start--;
  while (start < equals && !startsWord(text, start)) start++;
  return text.slice(start, equals);
}

/** Where a parameter's value starting at `from` ends, or `undefined` when there is none. */
function parameterValueEnd(text: string, from: number): number | undefined {
  if (text.charCodeAt(from) === QUOTE) {
    const close = text.indexOf("'", from + 1);
    return close < 0 ? undefined : close + 1;
  }
  let end = from;
  while (end < text.length && !isValueEnd(text.charCodeAt(end))) end++;
  return end > from ? end : undefined;
}

const AT = 0x40;
const COLON = 0x3a;
const QUOTE = 0x27;

/** `\s` of JavaScript regular expressions. */
function isSpace(code: number): boolean {
  return (
    (code >= 0x09 && code <= 0x0d) ||
    code === 0x20 ||
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}
const isLetter = (code: number) => (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
const isDigit = (code: number) => code >= 0x30 && code <= 0x39;
const isWordChar = (code: number) => isLetter(code) || isDigit(code) || code === 0x5f;
/** `\b` in front of a word character at `at`. */
const startsWord = (text: string, at: number) =>
  isWordChar(text.charCodeAt(at)) && (at === 0 || !isWordChar(text.charCodeAt(at - 1)));
const isSchemeChar = (code: number) =>
  isLetter(code) || isDigit(code) || code === 0x2b || code === 0x2e || code === 0x2d;
const isKeyChar = (code: number) => isWordChar(code) || code === 0x2e || code === 0x2d;
/** `/ ? #`: where a URL's authority ends. */
const isPathStart = (code: number) => code === 0x2f || code === 0x3f || code === 0x23;
const isQuote = (code: number) => code === QUOTE || code === 0x22;
const isPasswordChar = (code: number) => !Number.isNaN(code) && !isSpace(code) && !isPathStart(code) && !isQuote(code);
/** `\s ' " ( = ,`: what a bare userinfo follows. */
const isDelimiter = (code: number) => isSpace(code) || isQuote(code) || code === 0x28 || code === 0x3d || code === 0x2c;
/** `\s & ; ' " #`: where a parameter's value ends. */
const isValueEnd = (code: number) => isSpace(code) || code === 0x26 || code === 0x3b || isQuote(code) || code === 0x23;
