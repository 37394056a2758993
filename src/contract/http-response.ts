import type { RawResponse } from './tool-handler.js';
import { checkDigestField } from './http-digest.js';
import { ToolError } from './tool-error.js';
import { readTime } from './time.js';

/** A raw HTTP-like response as a handler received it (from fetch, undici, axios or a test). */
export interface HttpLikeResponse {
  readonly status: number;
  /** Header map (any case) or a `Headers`-like object with `get`. */
  readonly headers:
    Readonly<Record<string, string | readonly string[] | undefined>> | { get(name: string): string | null };
  readonly body: Uint8Array | string;
}

/** Limits of {@link readHttpJson}. */
export interface HttpJsonOptions {
  /** Bodies larger than this are refused before parsing. Default 32 MiB. */
  readonly maxBodyBytes?: number;
}

/** A response that passed the protocol layer: its JSON, and the raw bytes for the audit digest. */
export interface HttpJson {
  readonly json: unknown;
  readonly rawResponse: RawResponse;
  /**
   * What the body was checked against besides its syntax: `content-length`, `content-digest:<algorithm>`,
   * `repr-digest:<algorithm>`. Empty when the response declared neither, or declared them over content-coded bytes
   * that the HTTP client had already decoded (they describe other bytes; see {@link readHttpJson}).
   */
  readonly verified: readonly string[];
}

/**
 * The rule version of what `readHttpJson` refuses; the funnel records it on the protocol layer. Version 2: a
 * content-coded body (gzip, br) is accepted decoded, and `Content-Digest`/`Repr-Digest` are checked.
 */
export const HTTP_JSON_RULE = 'http-json@2';

const JSON_CONTENT_TYPE = /^application\/(?:[\w.+-]+\+)?json$/i;

/**
 * The protocol layer for HTTP: a response becomes JSON only when it is complete, declared JSON, valid UTF-8 and
 * one whole document. A login page served with 200, a body shorter than its Content-Length or different from its
 * `Content-Digest`/`Repr-Digest` (sha-256, sha-512), broken encoding or half a document is a `PROTOCOL_ERROR`, never
 * "success". Status codes map to catalog codes (429 → RATE_LIMITED with its Retry-After, 503 →
 * UPSTREAM_UNAVAILABLE, …); ambiguous server errors stay `PROTOCOL_ERROR`, which the funnel turns into
 * `OUTCOME_UNKNOWN` for writes. Every refusal carries the raw body, so the audit records the SHA-256 of what arrived
 * even though nothing was parsed; a `PROTOCOL_ERROR` fails the protocol layer.
 *
 * A content-coded response (`Content-Encoding: gzip`, `br`, …) arrives decoded from `fetch`, undici and axios, while
 * its Content-Length and digests describe the coded bytes: those are then not compared (the client that decoded the
 * body checked the transfer, and a cut coded stream fails there — see {@link readFetchJson}). A body still coded
 * is not JSON and is refused as such.
 */
export function readHttpJson(response: HttpLikeResponse, options: HttpJsonOptions = {}): HttpJson {
  const header = headerReader(response.headers);
  const { status, body } = response;
  if (!(body instanceof Uint8Array) && typeof body !== 'string')
    throw protocolError('body is neither bytes nor text', {});
  const contentType = header('content-type') ?? '';
  const [mediaType = '', ...params] = contentType.split(';').map((part) => part.trim());
  // Every refusal from here on carries the body it refused, so the audit records the digest of what arrived.
  const raw: RawResponse = { body, contentType: mediaType.toLowerCase() };
  if (!Number.isInteger(status) || status < 100 || status > 599)
    throw protocolError('invalid HTTP status', { status: String(status) }, raw);
  if (status < 200 || status >= 300) throw statusError(status, header, raw);

  const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
  if (!JSON_CONTENT_TYPE.test(mediaType))
    throw protocolError('response is not declared as JSON', { content_type: contentType.slice(0, 200) }, raw);
  const charset = params
    .find((param) => /^charset=/i.test(param))
    ?.slice(8)
    .replace(/"/g, '')
    .toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8')
    throw protocolError('unsupported charset', { charset }, raw);

  const maxBodyBytes = options.maxBodyBytes ?? 32 * 1024 * 1024;
  if (bytes.byteLength > maxBodyBytes)
    throw protocolError('body exceeds the size limit', { bytes: bytes.byteLength, limit: maxBodyBytes }, raw);
  const verified = isContentCoded(header('content-encoding')) ? [] : integrityChecks(status, header, bytes, raw);

  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw protocolError('body is not valid UTF-8', { bytes: bytes.byteLength }, raw);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw protocolError('body is not one complete JSON document', { bytes: bytes.byteLength }, raw);
  }
  return { json, rawResponse: { body: bytes, contentType: mediaType.toLowerCase() }, verified };
}

/** True when a content coding other than `identity` was applied (`Content-Encoding: gzip`, `br, gzip`, …). */
export function isContentCoded(contentEncoding: string | undefined): boolean {
  return (contentEncoding ?? '')
    .split(',')
    .some((coding) => coding.trim() !== '' && coding.trim().toLowerCase() !== 'identity');
}

/**
 * Compares the body of a response without content coding with what its headers declare of it: its length and its
 * digests. `Repr-Digest` covers the whole representation, so a partial response (206) is not compared with it.
 */
function integrityChecks(
  status: number,
  header: (name: string) => string | undefined,
  bytes: Uint8Array,
  raw: RawResponse,
): string[] {
  const verified: string[] = [];
  const declaredLength = header('content-length');
  if (declaredLength !== undefined) {
    if (!/^\d+$/.test(declaredLength) || Number(declaredLength) !== bytes.byteLength) {
      throw protocolError(
        'body length differs from Content-Length',
        { declared: declaredLength.slice(0, 32), received: bytes.byteLength },
        raw,
      );
    }
    verified.push('content-length');
  }
  for (const name of status === 206 ? ['content-digest'] : ['content-digest', 'repr-digest']) {
    const field = header(name);
    if (field === undefined) continue;
    const verdict = checkDigestField(field, bytes);
    if (verdict.kind === 'mismatch')
      throw protocolError(`body does not match its ${name}`, { algorithm: verdict.algorithm }, raw);
    if (verdict.kind === 'malformed') throw protocolError(`malformed ${name}`, { field: field.slice(0, 200) }, raw);
    if (verdict.kind === 'matched') verified.push(...verdict.algorithms.map((algorithm) => `${name}:${algorithm}`));
  }
  return verified;
}

function statusError(status: number, header: (name: string) => string | undefined, raw: RawResponse): ToolError {
  const details = { http_status: status };
  const options = { rawResponse: raw, rule: HTTP_JSON_RULE };
  switch (status) {
    case 400:
    case 422:
      return new ToolError('INVALID_ARGUMENTS', details, options);
    case 401:
    case 403:
      return new ToolError('PERMISSION_DENIED', details, options);
    case 404:
    case 410:
      return new ToolError('NOT_FOUND', details, options);
    case 409:
      return new ToolError('STATUS_CONFLICT', details, options);
    case 429:
      return new ToolError('RATE_LIMITED', details, { ...options, ...retryAfter(header('retry-after')) });
    case 503:
      return new ToolError('UPSTREAM_UNAVAILABLE', details, { ...options, ...retryAfter(header('retry-after')) });
    default:
      return protocolError('unexpected HTTP status', details, raw);
  }
}

function retryAfter(value: string | undefined): { retryAfterMs?: number } {
  if (value === undefined) return {};
  if (/^\d+$/.test(value.trim())) return { retryAfterMs: Number(value.trim()) * 1000 };
  const at = readTime(value);
  return at.ok ? { retryAfterMs: Math.max(0, Date.parse(at.iso) - Date.now()) } : {};
}

function protocolError(reason: string, details: Record<string, unknown>, raw?: RawResponse): ToolError {
  return new ToolError(
    'PROTOCOL_ERROR',
    { reason, ...details },
    { rule: HTTP_JSON_RULE, ...(raw === undefined ? {} : { rawResponse: raw }) },
  );
}

function headerReader(headers: HttpLikeResponse['headers']): (name: string) => string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function') {
    const getter = headers as { get(name: string): string | null };
    return (name) => getter.get(name) ?? undefined;
  }
  const lower = new Map<string, string>();
  for (const [key, value] of Object.entries(headers as Record<string, unknown>)) {
    if (typeof value === 'string') lower.set(key.toLowerCase(), value);
    else if (Array.isArray(value)) lower.set(key.toLowerCase(), value.map(String).join(', '));
  }
  return (name) => lower.get(name);
}
