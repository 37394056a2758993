import { escapePointerToken } from './canonical-json.js';
import { isCardNumber } from './redaction/card-numbers.js';
import { PAIR_LABEL_FIELDS, PAIR_VALUE_FIELDS } from './redaction/catalog.js';
import { SCAN_LOOKAHEAD, type Hit } from './redaction/detector.js';
import { normalizeFieldName } from './redaction/field-name-tokens.js';
import { MAX_FIELD_NAME, SecretNames } from './redaction/field-names.js';
import { REDACTED_MARKER } from './redaction/marker.js';
import { ProtectedValues } from './redaction/protected-values.js';
import { mergeSorted, renderRedacted } from './redaction/render.js';
import { SecretScanner } from './redaction/secret-scanner.js';
import { URL_NOT_ALLOWED, UrlAllowlist } from './redaction/url-allowlist.js';
import { truncationMarker } from './truncation.js';

export { SECRET_CATALOG_VERSION } from './redaction/catalog.js';
export { fieldNameTokens, normalizeFieldName } from './redaction/field-name-tokens.js';
export { REDACTED_MARKER } from './redaction/marker.js';

/** One removal made before a value reached the model; recorded in the audit. */
export interface Redaction {
  readonly path: string;
  readonly reason: string;
}

/**
 * Field names that never reach a model, compared exactly after normalization (`api_key`, `apiKey` and `X-Api-Key`
 * are the same name): credentials, and the control fields of this package (ids and digests that bind a call).
 * Beyond these, any name made of the catalog's secret words is removed too (`db_password`, `x-auth-token`).
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

/** What {@link Redactor} must hide besides the secrets of the catalog. */
export interface RedactionPolicy {
  /** Extra field names removed wherever they appear (compared normalized, exactly). */
  readonly sensitiveFields: readonly string[];
  /**
   * Field names that sound secret but are not in this data (a conference's `session`), compared normalized: the name
   * rule keeps them. Only the name rule: their values are scanned like any text, so a secret-shaped value still goes.
   * Never an exact name (`BUILTIN_SENSITIVE_FIELDS`, `sensitiveFields`): those always win.
   */
  readonly publicFields?: readonly string[];
  /** Values that may not appear anywhere inside model-visible text (idempotency key, operation id). */
  readonly protectedSubstrings: readonly string[];
  /**
   * Identities (tenant, subject): never a whole model-visible string, and not inside text when at least 8 characters
   * long and standing alone (shorter ones are often ordinary words).
   */
  readonly protectedExact: readonly string[];
  /**
   * Most characters of one string kept (default: all). Longer text is cut here, after redaction, with a truncation
   * marker; see {@link Redactor.text} for what is scanned.
   */
  readonly maxScanChars?: number;
  /** When given, `http(s)` links to any other host are hidden too (see `redaction/url-allowlist.ts`). */
  readonly allowedUrlDomains?: readonly string[];
}

/** What a redactor derives from the sensitive field names alone. */
interface NameRules {
  readonly names: SecretNames;
  readonly exactNames: ReadonlySet<string>;
  readonly scanner: SecretScanner;
}

/**
 * Name rules by the list they were built from. A tool's `sensitiveFields` is one frozen array for its lifetime, and
 * building the name trie and the scanner costs more than redacting a small result, so every call of a tool shares
 * them. Sharing is safe: neither changes what it decides (`SecretNames` only remembers verdicts it computed).
 */
const nameRulesByFields = new WeakMap<readonly string[], NameRules>();

function nameRulesOf(sensitiveFields: readonly string[]): NameRules {
  const known = nameRulesByFields.get(sensitiveFields);
  if (known !== undefined) return known;
  const exactNames = [...BUILTIN_SENSITIVE_FIELDS, ...sensitiveFields];
  const names = new SecretNames(exactNames);
  const rules = { names, exactNames: new Set(exactNames.map(normalizeFieldName)), scanner: new SecretScanner(names) };
  nameRulesByFields.set(sensitiveFields, rules);
  return rules;
}

/**
 * Removes secret fields recursively and scrubs secrets and protected values out of strings and keys. Every pattern
 * runs in time linear in the text it scans (see `redaction/secret-scanner.ts`). Input must already have passed the
 * JSON shape gate (bounded depth, no cycles). Returns a copy; the input is not modified.
 */
export class Redactor {
  private readonly names: SecretNames;
  private readonly exactNames: ReadonlySet<string>;
  private readonly publicNames: ReadonlySet<string>;
  private readonly scanner: SecretScanner;
  private readonly protectedValues: ProtectedValues;
  private readonly maxScanChars: number;
  /** How far past the kept part the scan reads, so a secret starting before the cut is recognised whole. */
  private readonly lookahead: number;
  private readonly knownKeys = new Map<string, KeyFacts>();
  private readonly links: UrlAllowlist | null;

  constructor(policy: RedactionPolicy) {
    ({ names: this.names, exactNames: this.exactNames, scanner: this.scanner } = nameRulesOf(policy.sensitiveFields));
    this.publicNames = new Set((policy.publicFields ?? []).map(normalizeFieldName));
    this.protectedValues = new ProtectedValues(policy.protectedSubstrings, policy.protectedExact);
    this.maxScanChars = Math.max(1, policy.maxScanChars ?? Infinity);
    this.lookahead = Math.max(SCAN_LOOKAHEAD, this.protectedValues.longest);
    this.links = policy.allowedUrlDomains === undefined ? null : new UrlAllowlist(policy.allowedUrlDomains);
  }

  /** True when a field of this name is removed. */
  isSensitiveName(name: string): boolean {
    if (!this.names.isSecret(name)) return false;
    if (this.publicNames.size === 0) return true;
    // Normalized only for the names the rules call secret, so the common case allocates nothing.
    const normalized = normalizeFieldName(name);
    return this.exactNames.has(normalized) || !this.publicNames.has(normalized);
  }

  /** Redacts a JSON value, appending each removal (with its path under `basePath`) to `log`. */
  value(input: unknown, basePath: string, log: Redaction[]): unknown {
    if (typeof input === 'string') return this.text(input, basePath, log);
    if (typeof input === 'number') return this.numberValue(input, basePath, log);
    if (Array.isArray(input)) return this.array(input, basePath, log);
    if (input === null || typeof input !== 'object') return input;
    return this.object(input as Record<string, unknown>, basePath, log);
  }

  /**
   * Scrubs secrets and protected values out of one string. With `maxScanChars` set, a longer string is cut there:
   * the scan reads only `maxScanChars + SCAN_LOOKAHEAD` characters (nothing further is looked at), and every secret
   * that starts before the cut is recognised from that window and hidden up to the cut. So a secret straddling the
   * cut never shows a prefix, and text after the cut is dropped unread, whatever its size.
   */
  text(input: string, path: string, log: Redaction[]): string {
    if (this.protectedValues.isWhole(input)) {
      log.push({ path, reason: 'protected_value' });
      return REDACTED_MARKER;
    }
    const keep = input.length > this.maxScanChars ? codePointBoundary(input, this.maxScanChars) : input.length;
    const scanned = input.length > keep + this.lookahead ? input.slice(0, keep + this.lookahead) : input;
    const hits = this.find(scanned).filter((hit) => hit.start < keep);
    for (const reason of new Set(hits.map(reasonOf))) log.push({ path, reason });
    if (hits.length === 0 && keep === input.length) return input;
    const shown = renderRedacted(input, hits, keep);
    // The count is in UTF-16 units (`String#length`): counting code points would read the dropped text.
    return keep === input.length ? shown : shown + truncationMarker(input.length - keep);
  }

  private find(text: string): Hit[] {
    // A hit that is exactly the marker was hidden before (the interceptor may run twice): nothing new to hide.
    const secrets = this.scanner
      .scan(text, text.length)
      .filter((hit) => hit.end - hit.start !== REDACTED_MARKER.length || !text.startsWith(REDACTED_MARKER, hit.start));
    const found = mergeSorted(secrets, this.protectedValues.find(text));
    return this.links === null ? found : mergeSorted(found, this.links.find(text));
  }

  /** A card number stored as a JSON number is hidden like one in text (its type cannot be kept). */
  private numberValue(input: number, path: string, log: Redaction[]): number | string {
    if (!Number.isSafeInteger(input) || input < 1e12 || !isCardNumber(String(input))) return input;
    log.push({ path, reason: 'secret_pattern:card_number' });
    return REDACTED_MARKER;
  }

  /**
   * In a list of `[name, value]` pairs (HTTP headers as fetch and undici give them), a pair whose name is secret keeps
   * the name only. A lone two-item list (`['password', 'email']`, a list of field names) is not taken for a pair.
   */
  private array(input: readonly unknown[], basePath: string, log: Redaction[]): unknown[] {
    const pairs = input.length > 0 && input.every(isNamedPair);
    return input.map((item, i) => {
      const path = `${basePath}/${i}`;
      if (!pairs || !this.isSecretLabel((item as [string, unknown])[0])) return this.value(item, path, log);
      log.push({ path: `${path}/1`, reason: 'sensitive_pair' });
      return [this.text((item as [string, unknown])[0], `${path}/0`, log), REDACTED_MARKER];
    });
  }

  private object(input: Record<string, unknown>, basePath: string, log: Redaction[]): Record<string, unknown> {
    const entries = Object.entries(input);
    const secretPair = this.isSecretPair(entries);
    const out: Record<string, unknown> = {};
    for (const [key, child] of entries) {
      const facts = this.keyFacts(key);
      // Every path logged shows the key with its secrets hidden: a key can be a secret name and hold a secret at
      // once (`password ghp_…`), and the audit is no place for the secret either.
      const logged = `${basePath}/${escapePointerToken(facts.shown)}`;
      if (facts.sensitive) {
        log.push({ path: logged, reason: 'sensitive_field' });
        continue;
      }
      if (secretPair && facts.pairValue) {
        log.push({ path: logged, reason: 'sensitive_pair' });
        continue;
      }
      // A key cannot be renamed (keys must stay unique), so a key holding a secret drops its entry.
      if (facts.shown !== key) {
        log.push({ path: logged, reason: 'secret_in_key' });
        continue;
      }
      out[key] = this.value(child, `${basePath}/${escapePointerToken(key)}`, log);
    }
    return out;
  }

  /**
   * What the rules decide about one key, which depends on the key alone: computed once per key and redactor, since a
   * listing repeats the same few keys in every item (scanning each again was most of redacting a small result).
   */
  private keyFacts(key: string): KeyFacts {
    let facts = this.knownKeys.get(key);
    if (facts === undefined) {
      const normalized = normalizeFieldName(key);
      facts = {
        sensitive: this.isSensitiveName(key),
        pairLabel: PAIR_LABELS.has(normalized),
        pairValue: PAIR_VALUES.has(normalized),
        shown: this.scrubKey(key),
      };
      if (this.knownKeys.size < MAX_KNOWN_KEYS) this.knownKeys.set(key, facts);
    }
    return facts;
  }

  private scrubKey(key: string): string {
    if (this.protectedValues.isWhole(key)) return REDACTED_MARKER;
    const hits = this.find(key);
    return hits.length === 0 ? key : renderRedacted(key, hits, key.length);
  }

  /**
   * True in a name/value entry (`{ name: 'X-Api-Key', value: … }`, `{ Key: 'password', Value: … }`) whose label is a
   * secret name: its value fields are then removed.
   */
  private isSecretPair(entries: readonly (readonly [string, unknown])[]): boolean {
    return entries.some(
      ([key, label]) => typeof label === 'string' && this.keyFacts(key).pairLabel && this.isSecretLabel(label),
    );
  }

  private isSecretLabel(label: string): boolean {
    return label.length <= MAX_FIELD_NAME && this.isSensitiveName(label);
  }
}

/** What a redactor decided about one key (see `Redactor.keyFacts`). */
interface KeyFacts {
  /** The field is removed by name. */
  readonly sensitive: boolean;
  /** The key names the label of a name/value entry, or its value. */
  readonly pairLabel: boolean;
  readonly pairValue: boolean;
  /** The key with secrets and protected values hidden (the key itself when it holds none). */
  readonly shown: string;
}

/** Keys one redactor remembers; past this (a hostile result with countless distinct keys) they are judged each time. */
const MAX_KNOWN_KEYS = 4096;

const PAIR_LABELS = new Set(PAIR_LABEL_FIELDS);
const PAIR_VALUES = new Set(PAIR_VALUE_FIELDS);

function isNamedPair(item: unknown): boolean {
  return Array.isArray(item) && item.length === 2 && typeof item[0] === 'string';
}

function reasonOf(hit: Hit): string {
  return hit.rule === 'protected_value' || hit.rule === URL_NOT_ALLOWED ? hit.rule : `secret_pattern:${hit.rule}`;
}

/** `at`, moved back one unit if it would split a surrogate pair. */
function codePointBoundary(text: string, at: number): number {
  return isHighSurrogate(text.charCodeAt(at - 1)) ? at - 1 : at;
}

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}
