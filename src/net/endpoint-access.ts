import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/**
 * Who may reach an HTTP endpoint the package serves on a machine (the MCP endpoint, the codec server): the checks a
 * request passes before anything else reads it. Two attackers: a web page in the operator's browser that rebinds its
 * own name to 127.0.0.1 (its requests carry its own name in `Host`), and anyone else who can open a socket to the
 * port — another local user, or the network behind a reverse proxy — whom only a token stops.
 */

/** A bearer token shorter than this is refused: it has to withstand guessing. */
export const MIN_BEARER_TOKEN_LENGTH = 16;

/** Host header names of the loopback interface. */
const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

/** Whether `host` — a listening address or a Host header name, without a port — names the loopback interface. */
export function isLoopbackName(host: string): boolean {
  return host === '::1' || LOOPBACK_NAMES.includes(host.toLowerCase());
}

/** The name part of a Host header value (`name`, `name:port`, `[v6]:port`), lower-cased. */
export function hostName(hostHeader: string): string {
  const value = hostHeader.trim().toLowerCase();
  if (value.startsWith('[')) return value.slice(0, value.indexOf(']') + 1);
  const colon = value.indexOf(':');
  return colon < 0 ? value : value.slice(0, colon);
}

/**
 * The Host header values an endpoint listening on `host:port` answers: its address, the loopback names when it is on
 * loopback, and `extra` names (a reverse proxy's), each with and without the port.
 */
export function allowedHostValues(host: string, port: number, extra: readonly string[]): ReadonlySet<string> {
  const names = new Set([host.includes(':') ? `[${host}]` : host, ...extra]);
  if (isLoopbackName(host)) LOOPBACK_NAMES.forEach((name) => names.add(name));
  return new Set([...names].flatMap((name) => [name.toLowerCase(), `${name.toLowerCase()}:${port}`]));
}

/** Whether the request's `Host` is one of `allowed` (see {@link allowedHostValues}): a rebinding page's is not. */
export function hasAllowedHost(req: IncomingMessage, allowed: ReadonlySet<string>): boolean {
  const host = req.headers.host?.toLowerCase();
  return host !== undefined && allowed.has(host);
}

/** The token of an `Authorization: Bearer <token>` header (the scheme name is case-insensitive, RFC 9110 §11.1). */
export function bearerTokenOf(req: IncomingMessage): string | undefined {
  return /^bearer +(.+)$/i.exec(req.headers.authorization ?? '')?.[1]?.trim();
}

/**
 * A constant-time comparison with `token`: both sides are compared as SHA-256 digests, so neither the content nor the
 * length of the expected token shows in the time a wrong guess takes.
 */
export function tokenMatcher(token: string): (given: string | undefined) => boolean {
  const expected = digest(token);
  return (given) => given !== undefined && timingSafeEqual(digest(given), expected);
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
