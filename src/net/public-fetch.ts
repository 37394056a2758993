import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { HttpLikeResponse } from '../contract/http-response.js';
import { isPublicAddress } from '../contract/safe-inputs/ip-address.js';
import { checkPublicUrl } from '../contract/safe-inputs/public-url.js';
import { ToolError } from '../contract/tool-error.js';

/** Options of {@link fetchPublic}. */
export interface PublicFetchOptions {
  readonly method?: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array;
  /** Redirects followed, each checked like the first URL (default 3; 0 refuses any redirect). */
  readonly maxRedirects?: number;
  /** For the whole exchange, redirects included (default 10 s). */
  readonly timeoutMs?: number;
  /** A longer body is refused while it streams in (default 8 MiB). */
  readonly maxBodyBytes?: number;
  readonly signal?: AbortSignal;
  /**
   * Which resolved addresses may be connected to; default: the public internet only (`isPublicAddress`). To reach
   * one known private upstream (or a test server), allow exactly that address, never a range.
   */
  readonly allowAddress?: (address: string) => boolean;
  /** How host names are resolved; default: the system resolver (`dns.lookup`). */
  readonly resolve?: (hostname: string) => Promise<readonly LookupAddress[]>;
}

/** The response of {@link fetchPublic}: ready for `readHttpJson`, plus the URL that answered. */
export interface PublicFetchResponse extends HttpLikeResponse {
  readonly body: Uint8Array;
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  readonly url: string;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * Fetches a URL of the public internet and refuses everything else, at every step: the URL (string rules of
 * `publicUrl`), the address the connection is made to (checked inside the DNS lookup the socket uses, so a name
 * that resolves — or is re-bound — to a private, loopback or link-local address is never connected to), and every
 * redirect, which is checked the same way before it is followed — without the credential headers when it leads to
 * another origin.
 *
 * Refusals are `ToolError`s a handler can let through: a URL or host that is not public is `INVALID_ARGUMENTS` (the
 * model's to correct), a redirect into a non-public place is `SOURCE_NOT_ALLOWED`, too many redirects or an
 * oversized body `PROTOCOL_ERROR`. Transport failures (refused connections, timeouts) are thrown as they are, so
 * the funnel treats them as unexpected (`TOOL_ERROR`; for a write, an unknown outcome).
 */
export async function fetchPublic(url: string, options: PublicFetchOptions = {}): Promise<PublicFetchResponse> {
  const deadline = AbortSignal.timeout(options.timeoutMs ?? 10_000);
  const signal = options.signal === undefined ? deadline : AbortSignal.any([deadline, options.signal]);
  const maxRedirects = options.maxRedirects ?? 3;
  let target = publicTarget(url, 'INVALID_ARGUMENTS');
  let hop: Hop = {
    method: options.method ?? 'GET',
    headers: options.headers ?? {},
    body: options.body,
    refusal: 'INVALID_ARGUMENTS',
  };
  for (let redirects = 0; ; redirects++) {
    const lookup = checkedLookup(options, hop.refusal);
    const response = await send(target, hop, lookup, options.maxBodyBytes ?? 8 * 1024 * 1024, signal);
    const location = response.headers['location'];
    if (!REDIRECTS.has(response.status) || typeof location !== 'string') return { ...response, url: target.href };
    if (redirects >= maxRedirects)
      throw new ToolError('PROTOCOL_ERROR', { reason: 'too_many_redirects', limit: maxRedirects });
    const next = publicTarget(new URL(location, target).href, 'SOURCE_NOT_ALLOWED');
    // 303 (and, as browsers do, 301/302 after a POST) continue as a GET without a body.
    const asGet =
      response.status === 303 || ((response.status === 301 || response.status === 302) && hop.method === 'POST');
    hop = {
      method: asGet ? 'GET' : hop.method,
      headers: withoutHeaders(hop.headers, [
        ...(next.origin === target.origin ? [] : CREDENTIAL_HEADERS),
        ...(asGet ? BODY_HEADERS : []),
      ]),
      body: asGet ? undefined : hop.body,
      refusal: 'SOURCE_NOT_ALLOWED',
    };
    target = next;
  }
}

/**
 * Headers that carry the caller's credentials for the origin it named: a redirect to another origin (scheme, host or
 * port) goes on without them, as browsers and `fetch` do — else any site the first one redirects to receives them.
 * Once dropped they stay dropped, even if a later redirect comes back.
 */
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];
/** Headers that describe a request body: a redirect that continues as a GET has none. */
const BODY_HEADERS = ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location'];

function withoutHeaders(
  headers: Readonly<Record<string, string>>,
  names: readonly string[],
): Readonly<Record<string, string>> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !names.includes(name.toLowerCase())));
}

/** One request of a fetch, and what a refused address there is: the model's URL, or where the upstream sent it. */
interface Hop {
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | Uint8Array | undefined;
  readonly refusal: 'INVALID_ARGUMENTS' | 'SOURCE_NOT_ALLOWED';
}

function publicTarget(url: string, code: Hop['refusal']): URL {
  const checked = checkPublicUrl(url);
  if (typeof checked === 'string') throw new ToolError(code, { reason: 'url_not_public', problem: checked });
  return checked;
}

/**
 * The socket's own lookup, refusing addresses outside the policy. Checking here, not before the request, closes
 * the gap a DNS re-binding attack uses: the address checked is the address connected to. (IP literals never reach
 * a lookup; `publicTarget` checked them.)
 */
function checkedLookup(options: PublicFetchOptions, refusal: Hop['refusal']): LookupFunction {
  const allow = options.allowAddress ?? isPublicAddress;
  const resolve =
    options.resolve ??
    ((hostname: string) =>
      new Promise<LookupAddress[]>((done, fail) =>
        dnsLookup(hostname, { all: true }, (error, found) => (error ? fail(error) : done(found))),
      ));
  return (hostname, lookupOptions, callback) => {
    resolve(hostname).then(
      (addresses) => {
        if (addresses.length === 0 || !addresses.every((entry) => allow(entry.address))) {
          callback(new ToolError(refusal, { reason: 'host_not_public', host: hostname.slice(0, 253) }), '', 0);
        } else if (lookupOptions.all) callback(null, [...addresses]);
        else callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}

function send(
  url: URL,
  hop: Hop,
  lookup: LookupFunction,
  maxBodyBytes: number,
  signal: AbortSignal,
): Promise<Omit<PublicFetchResponse, 'url'>> {
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    // A lookup refusal reaches here as the request's error, unchanged.
    const req = request(url, { method: hop.method, headers: hop.headers, lookup, signal }, (res) => {
      const chunks: Uint8Array[] = [];
      let bytes = 0;
      res.on('data', (chunk: Uint8Array) => {
        bytes += chunk.byteLength;
        if (bytes > maxBodyBytes) {
          res.destroy();
          reject(new ToolError('PROTOCOL_ERROR', { reason: 'body_too_large', limit: maxBodyBytes }));
          return;
        }
        chunks.push(chunk);
      });
      res.on('error', reject);
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: { ...res.headers }, body: concat(chunks, bytes) }),
      );
    });
    req.on('error', reject);
    req.end(hop.body);
  });
}

function concat(chunks: readonly Uint8Array[], bytes: number): Uint8Array {
  const out = new Uint8Array(bytes);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}
