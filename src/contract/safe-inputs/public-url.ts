import { z } from 'zod';
import { isIpLiteral, isPublicAddress } from './ip-address.js';

/** Options of {@link publicUrl}. */
export interface PublicUrlOptions {
  /** Accepted schemes (default both). */
  readonly protocols?: readonly ('http:' | 'https:')[];
  /** Longest accepted URL (default 2048). */
  readonly maxLength?: number;
}

/** Host names that never name a public host: RFC 6761 `localhost`, mDNS, the private-use `.internal` and `home.arpa`. */
const LOCAL_SUFFIXES = ['localhost', 'local', 'internal', 'home.arpa', 'localdomain'];

/**
 * An http(s) URL of the public internet, as a zod schema whose output is the URL as the WHATWG parser normalizes it
 * (the exact string that was checked, so fetch what it returns). Refused: other schemes, credentials in the URL,
 * `localhost` and other local names, single-label names (resolved through search domains to internal hosts), and
 * IP literals outside the public internet — private, loopback, link-local (cloud metadata), unique-local, CGNAT,
 * multicast and reserved blocks — in every spelling the parser accepts (`2130706433`, `0x7f.1`, `[::ffff:7f00:1]`).
 *
 * A string-level check only: a public name can resolve to a private address (DNS rebinding), and a public server
 * can redirect into a private range. Fetch with a client that checks the address it connects to and every
 * redirect — `fetchPublic` in `temporal-tool-contract/net` does both.
 */
export function publicUrl(options: PublicUrlOptions = {}) {
  const protocols = options.protocols ?? ['http:', 'https:'];
  return z
    .string()
    .max(options.maxLength ?? 2048)
    .transform((text, ctx) => {
      const checked = checkPublicUrl(text, protocols);
      if (typeof checked === 'string') {
        ctx.addIssue({
          code: 'custom',
          message: `not a public URL: ${checked}`,
          params: { rule: 'public_url', problem: checked },
        });
        return z.NEVER;
      }
      return checked.href;
    });
}

/** The URL when it passes {@link publicUrl}'s string-level rules, else why not. */
export function checkPublicUrl(text: string, protocols: readonly string[] = ['http:', 'https:']): URL | string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'not a URL';
  }
  if (!protocols.includes(url.protocol)) return `scheme ${url.protocol} not allowed`;
  if (url.username !== '' || url.password !== '') return 'credentials in the URL';
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  if (host === '') return 'no host';
  if (isIpLiteral(host)) return isPublicAddress(host) ? url : 'address not public';
  if (!host.includes('.')) return 'single-label host name';
  if (LOCAL_SUFFIXES.some((suffix) => host === suffix || host.endsWith(`.${suffix}`))) return 'local host name';
  return url;
}
