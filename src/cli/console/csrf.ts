import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * CSRF protection by synchronizer token: each browser session gets a random id in an HttpOnly, SameSite=Strict
 * cookie, and every form carries a token derived from that id with a key only this process holds. A POST counts
 * only when its token is the one of the session cookie it came with — a page on another site can make the browser
 * send the cookie (old browsers), but cannot read the token out of the console's pages.
 */
export interface CsrfGuard {
  /** A new session id, for a browser that has none. */
  newSession(): string;
  /** The token the forms of a session carry. */
  tokenFor(session: string): string;
  /** Whether `token` is the session's (constant time); false for anything missing. */
  verify(session: string | undefined, token: string | undefined): boolean;
}

/** Session ids look like this; any other cookie value is treated as no session. */
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

/** A guard with a key made for this process: restarting the console ends every session. */
export function csrfGuard(key: Buffer = randomBytes(32)): CsrfGuard {
  const tokenFor = (session: string) => createHmac('sha256', key).update(session, 'utf8').digest('base64url');
  return {
    newSession: () => randomBytes(32).toString('base64url'),
    tokenFor,
    verify: (session, token) => {
      if (session === undefined || token === undefined || !isSessionId(session)) return false;
      const expected = Buffer.from(tokenFor(session));
      const given = Buffer.from(token);
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
  };
}

/** Whether a cookie value has the shape of a session id this guard makes. */
export function isSessionId(value: string): boolean {
  return SESSION_ID.test(value);
}
