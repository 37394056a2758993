/** What a masked secret reads as. */
const MASK = '***';

/**
 * The userinfo of a URL (`scheme://user:password@`): up to the last `@` before the path, so a password with an
 * unencoded `@` (which pg accepts) is masked whole.
 */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/?#]*)@/gi;

/** `user:password@host` without a scheme, as a TEMPORAL_ADDRESS or a libpq host could carry it. */
const BARE_USERINFO = /(^|[\s'"(=,])([^\s/?#@:'"]+):([^\s/?#'"]+)@(?=[^\s@])/g;

/**
 * `key=value` (a URL query parameter or a libpq conninfo keyword) whose key names a secret: `password`, libpq's
 * `sslpassword`, `access_token`, `api_key`, `client_secret`, a signature. The value ends at `&`, `;`, a quote or
 * whitespace; a single-quoted conninfo value is masked whole.
 */
const SECRET_PARAMETER = /\b([\w.-]*(?:passw(?:or)?d|pwd|secret|token|api[_-]?key|access[_-]?key|credential|signature)[\w.-]*)=('[^']*'|[^\s&;'"#]+)/gi;

/**
 * Masks the credentials of every URL in `text`: the password of a userinfo (the user name stays, to tell which
 * account was used), a userinfo without password whole (it may be a token), and secret query parameters. Every text
 * the CLI prints that may hold a URL goes through here: progress lines, JSON events, errors (a pg or gRPC message can
 * echo its connection string). Idempotent: masking masked text changes nothing.
 */
export function maskCredentials(text: string): string {
  return text
    .replace(URL_USERINFO, (_match, scheme: string, userinfo: string) => `${scheme}${maskUserinfo(userinfo)}@`)
    .replace(BARE_USERINFO, (_match, before: string, user: string) => `${before}${user}:${MASK}@`)
    .replace(SECRET_PARAMETER, (_match, key: string) => `${key}=${MASK}`);
}

/** `value` as JSON with every string in it masked by {@link maskCredentials} (keys are the CLI's own). */
export function maskedJson(value: unknown, space?: number): string {
  return JSON.stringify(value, (_key, item: unknown) => (typeof item === 'string' ? maskCredentials(item) : item), space);
}

function maskUserinfo(userinfo: string): string {
  const colon = userinfo.indexOf(':');
  return colon < 0 ? MASK : `${userinfo.slice(0, colon)}:${MASK}`;
}
