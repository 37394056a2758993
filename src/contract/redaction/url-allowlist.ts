import type { Hit } from './detector.js';

/** The rule (and audit reason) of a link whose host the tool does not allow. */
export const URL_NOT_ALLOWED = 'url_not_allowed';

/** Longest URL looked at; a longer run is hidden to its end all the same (its host decides). */
const MAX_URL = 2048;

/**
 * Links a model may be shown, per tool (seeds 001 and 003: "限制 … URL", a tool's output is not a way to send the
 * model — or the user it talks to — anywhere its author did not intend): an `http(s)://` link whose host is neither
 * one of the tool's `allowedUrlDomains` nor below one is hidden in any text a model sees, like a secret. Linear: each
 * character is read a bounded number of times.
 */
export class UrlAllowlist {
  private readonly domains: readonly string[];

  constructor(domains: readonly string[]) {
    this.domains = domains.map((domain) => domain.toLowerCase().replace(/^\.+|\.+$/g, ''));
  }

  /** The links of `text` to hide, in order. */
  find(text: string): Hit[] {
    const hits: Hit[] = [];
    let from = 0;
    for (;;) {
      const separator = text.indexOf('://', from);
      if (separator === -1) return hits;
      const start = schemeStart(text, separator);
      const scheme = text.slice(start, separator).toLowerCase();
      const end = urlEnd(text, separator + 3);
      if ((scheme === 'http' || scheme === 'https') && !this.allows(hostOf(text.slice(separator + 3, end))))
        hits.push({ start, end, rule: URL_NOT_ALLOWED });
      from = Math.max(end, separator + 3);
    }
  }

  private allows(host: string): boolean {
    return host !== '' && this.domains.some((domain) => host === domain || host.endsWith(`.${domain}`));
  }
}

/** Where the scheme before `://` at `separator` starts (letters only: `xhttps://` is not an https link's start). */
function schemeStart(text: string, separator: number): number {
  let start = separator;
  while (start > 0 && separator - start < 10 && /[A-Za-z]/.test(text[start - 1]!)) start -= 1;
  return start;
}

/** Where a link starting its authority at `at` ends: at white space, a quote or an angle bracket, without trailing punctuation. */
function urlEnd(text: string, at: number): number {
  let end = at;
  while (end < text.length && end - at < MAX_URL && !/[\s"'<>`]/.test(text[end]!)) end += 1;
  while (end > at && /[.,;:!?)\]}]/.test(text[end - 1]!)) end -= 1;
  return end;
}

/** The host of a URL's remainder after `://`, lower-cased: without user info and port. */
function hostOf(rest: string): string {
  const authority = rest.split(/[/?#\\]/, 1)[0] ?? '';
  const host = authority.slice(authority.lastIndexOf('@') + 1);
  const bracketed = /^\[[^\]]*\]/.exec(host);
  return (bracketed === null ? (host.split(':', 1)[0] ?? '') : bracketed[0]).toLowerCase().replace(/\.$/, '');
}

/** What `declareTool` refuses about `allowedUrlDomains` (one line each). */
export function allowedUrlDomainsProblems(spec: { readonly allowedUrlDomains?: unknown }): string[] {
  const domains = spec.allowedUrlDomains;
  if (domains === undefined) return [];
  if (!Array.isArray(domains)) return ['allowedUrlDomains must be a list of domain names'];
  return (domains as unknown[])
    .filter((domain) => typeof domain !== 'string' || !/^[a-z0-9-]+(\.[a-z0-9-]+)*$/i.test(domain))
    .map((domain) => `allowedUrlDomains: '${String(domain)}' is not a domain name`);
}
