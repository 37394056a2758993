import { canonicalJson } from '../contract/canonical-json.js';
import { MAX_DECISION_TOKEN_CHARS } from '../wire/decisions.js';
import { decisionClaimsSchema, type DecisionClaims } from './claims.js';

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** A token split into what was signed and the signature, with its claims parsed (not yet verified). */
export interface DecodedToken {
  readonly claims: DecisionClaims;
  /** The exact bytes the signature covers: the token's first part, as ASCII. */
  readonly signingInput: Buffer;
  readonly signature: Buffer;
}

/**
 * A token is `base64url(canonical JSON of the claims) + '.' + base64url(signature over the first part)`: compact,
 * URL- and header-safe, and what was signed is exactly what is parsed (no re-serialisation between them).
 */
export function encodeToken(claims: DecisionClaims, sign: (signingInput: Buffer) => Buffer): string {
  const payload = Buffer.from(canonicalJson(claims), 'utf8').toString('base64url');
  const signingInput = Buffer.from(payload, 'ascii');
  return `${payload}.${sign(signingInput).toString('base64url')}`;
}

/** Splits and parses a token; `null` when it is not a well-formed decision token. Verifies nothing. */
export function decodeToken(token: string): DecodedToken | null {
  if (token.length > MAX_DECISION_TOKEN_CHARS) return null;
  const parts = token.split('.');
  const [payload, signature] = parts;
  if (
    parts.length !== 2 ||
    payload === undefined ||
    signature === undefined ||
    !BASE64URL.test(payload) ||
    !BASE64URL.test(signature)
  )
    return null;
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  const claims = decisionClaimsSchema.safeParse(json);
  if (!claims.success) return null;
  return {
    claims: claims.data,
    signingInput: Buffer.from(payload, 'ascii'),
    signature: Buffer.from(signature, 'base64url'),
  };
}
