import { afterRun, ALNUM, boundedRunEnd, literalClass, runEnd, startsRun, TOKEN } from './char-class.js';
import type { Detector, Hit } from './detector.js';

/** Fewest characters of a header or payload part (`eyJ` + a few: real parts are much longer). */
const MIN_PART = 10;
/** A JWE has five parts, a JWS three. */
const MAX_PARTS = 5;

/**
 * JSON Web Tokens (JWS and JWE, compact form): base64url parts joined by dots, the first one a JSON object (`eyJ`).
 * From the header on, the whole token is hidden once a header and the start of a second part are seen.
 *
 * A miss after reading the header run `[at, e)` resumes at `e`: every `eyJ` inside that run ends at the same `e`,
 * with a shorter header and the same follower, so it misses too. That is what keeps `'eyJ-'.repeat(n)` linear.
 * The header itself is not secret, so a cut inside a very long header shows nothing that matters.
 */
export const jwtDetector: Detector = {
  startChars: 'e',
  secondChars: literalClass('y'),
  detect(text: string, at: number, limit: number): Hit | number {
    if (!startsRun(text, at, ALNUM)) return afterRun(text, at, limit, ALNUM);
    if (!text.startsWith('eyJ', at)) return at + 1;
    const headerEnd = runEnd(text, at, limit, TOKEN);
    if (headerEnd - at < MIN_PART || headerEnd + 1 >= limit || text.charCodeAt(headerEnd) !== 0x2e) return headerEnd;
    const seen = boundedRunEnd(text, headerEnd + 1, limit, TOKEN, MIN_PART);
    if (seen - (headerEnd + 1) < MIN_PART) return headerEnd;
    let end = runEnd(text, seen, limit, TOKEN);
    // The signature (JWS) or the other three parts (JWE); a part may be empty (`header.payload.` is unsecured).
    for (let part = 2; part < MAX_PARTS && end < limit && text.charCodeAt(end) === 0x2e; part++)
      end = runEnd(text, end + 1, limit, TOKEN);
    return { start: at, end, rule: 'jwt' };
  },
};
