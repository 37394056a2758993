import { escapePointerToken } from './canonical-json.js';

/** One removal made before a value reached the model; recorded in the audit. */
export interface Redaction {
  readonly path: string;
  readonly reason: string;
}

/**
 * Field names that never reach a model: credentials, and the control fields of this package (ids and digests
 * that bind a call). Compared after normalization, so `api_key`, `apiKey` and `X-Api-Key` are the same name.
 */
export const BUILTIN_SENSITIVE_FIELDS = Object.freeze([
  'authorization',
  'proxy_authorization',
  'token',
  'access_token',
  'refresh_token',
  'id_token',
  'session_token',
  'bearer',
  'cookie',
  'set_cookie',
  'password',
  'passwd',
  'secret',
  'client_secret',
  'api_key',
  'x_api_key',
  'apikey',
  'private_key',
  'credentials',
  'idempotency_key',
  'operation_id',
  'request_sha256',
  'result_sha256',
  'call_binding_sha256',
  'principal_ref',
]);

/** Secret-shaped substrings found inside otherwise legitimate text. */
const SECRET_PATTERNS: readonly { name: string; pattern: RegExp }[] = [
  { name: 'bearer_token', pattern: /\bBearer\s+[A-Za-z0-9._~+/-]{8,}=*/g },
  { name: 'jwt', pattern: /\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]+/g },
  // Lookbehind rather than \b: `ord_sk-live-…` hides a key behind an underscore, which \b treats as a word char.
  { name: 'api_key', pattern: /(?<![A-Za-z0-9])(?:sk|pk|rk)[-_](?:live[-_]|test[-_])?[A-Za-z0-9_-]{16,}/g },
  { name: 'aws_access_key', pattern: /(?<![A-Za-z0-9])AKIA[0-9A-Z]{16}(?![A-Za-z0-9])/g },
  { name: 'private_key_block', pattern: /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g },
];

/** Replacement for a secret found inside text. */
export const REDACTED_MARKER = '[REDACTED]';

/** Lower-case alphanumerics only: the form sensitive names are compared in. */
export function normalizeFieldName(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** What {@link Redactor} must hide besides field names: exact values that identify the caller or the call. */
export interface RedactionPolicy {
  readonly sensitiveFields: readonly string[];
  /** Values that may not appear anywhere inside model-visible text (idempotency key, operation id). */
  readonly protectedSubstrings: readonly string[];
  /** Values that may not be a whole model-visible string (tenant, subject: often ordinary words, so not substrings). */
  readonly protectedExact: readonly string[];
}

/**
 * Removes sensitive fields recursively and scrubs secrets and protected values out of strings. Input must already
 * have passed the JSON shape gate (bounded depth, no cycles). Returns a copy; the input is not modified.
 */
export class Redactor {
  private readonly names: Set<string>;
  private readonly protectedSubstrings: readonly string[];
  private readonly protectedExact: ReadonlySet<string>;

  constructor(policy: RedactionPolicy) {
    this.names = new Set([...BUILTIN_SENSITIVE_FIELDS, ...policy.sensitiveFields].map(normalizeFieldName));
    // A very short id would shred ordinary text; ids that short identify nothing worth hiding.
    this.protectedSubstrings = policy.protectedSubstrings.filter((value) => value.length >= 8);
    this.protectedExact = new Set(policy.protectedExact.filter((value) => value.length > 0));
  }

  /** True when a field of this name is removed. */
  isSensitiveName(name: string): boolean {
    return this.names.has(normalizeFieldName(name));
  }

  /** Redacts a JSON value, appending each removal (with its path under `basePath`) to `log`. */
  value(input: unknown, basePath: string, log: Redaction[]): unknown {
    if (typeof input === 'string') return this.text(input, basePath, log);
    if (Array.isArray(input)) return input.map((item, i) => this.value(item, `${basePath}/${i}`, log));
    if (input === null || typeof input !== 'object') return input;
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(input)) {
      const path = `${basePath}/${escapePointerToken(key)}`;
      if (this.isSensitiveName(key)) {
        log.push({ path, reason: 'sensitive_field' });
        continue;
      }
      out[key] = this.value(child, path, log);
    }
    return out;
  }

  /** Scrubs secret-shaped substrings and protected values out of one string. */
  text(input: string, path: string, log: Redaction[]): string {
    if (this.protectedExact.has(input)) {
      log.push({ path, reason: 'protected_value' });
      return REDACTED_MARKER;
    }
    let output = input;
    for (const { name, pattern } of SECRET_PATTERNS) {
      if (pattern.test(output)) {
        output = output.replace(pattern, REDACTED_MARKER);
        log.push({ path, reason: `secret_pattern:${name}` });
      }
      pattern.lastIndex = 0;
    }
    for (const value of this.protectedSubstrings) {
      if (output.includes(value)) {
        output = output.replaceAll(value, REDACTED_MARKER);
        log.push({ path, reason: 'protected_value' });
      }
    }
    return output;
  }
}
