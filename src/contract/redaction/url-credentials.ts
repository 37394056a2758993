import { boundedRunEnd, charClass, inClass, literalClass } from './char-class.js';
import type { Detector, Hit } from './detector.js';
import { hasRandomPart } from './random-part.js';

/** Longest URL authority (`user:password@host:port`) inspected. */
const MAX_AUTHORITY = 256;
/** Scheme characters (RFC 3986): one must precede `://`. */
const SCHEME = charClass('A-Za-z0-9+.-');
/** What may appear in an authority; `/ ? #`, whitespace, quotes and angle brackets end it. */
const AUTHORITY = charClass("A-Za-z0-9._~%!$&'()*+,;=:@[]-");

/**
 * Credentials in a URL's userinfo: the password of `scheme://user:password@host` (the user stays, so
 * `postgres://admin:[REDACTED]@db/x` keeps its meaning), or a lone user part that is itself a token
 * (`https://<token>@github.com`). The last `@` ends the userinfo, since passwords often hold an unescaped `@`.
 */
export const urlCredentialsDetector: Detector = {
  startChars: ':',
  secondChars: literalClass('/'),
  detect(text: string, at: number, limit: number): Hit | number {
    if (at === 0 || !inClass(SCHEME, text.charCodeAt(at - 1)) || at + 3 > limit || !text.startsWith('://', at))
      return at + 1;
    const start = at + 3;
    const end = boundedRunEnd(text, start, limit, AUTHORITY, MAX_AUTHORITY);
    let lastAt = -1;
    let colon = -1;
    for (let i = start; i < end; i++) {
      const code = text.charCodeAt(i);
      if (code === 0x40) lastAt = i;
      else if (code === 0x3a && colon === -1 && lastAt === -1) colon = i;
    }
    if (lastAt === -1) return at + 1;
    if (colon !== -1 && colon + 1 < lastAt) return { start: colon + 1, end: lastAt, rule: 'url_password' };
    if (colon === -1 && hasRandomPart(text, start, lastAt)) return { start, end: lastAt, rule: 'url_token' };
    return at + 1;
  },
};
