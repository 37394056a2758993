import { createHmac, timingSafeEqual, verify } from 'node:crypto';
import type { DecisionClaims } from './claims.js';
import { parseNamedDecisionKey, type DecisionKey } from './keys.js';
import { decodeToken } from './token.js';

/** A token whose signature verified: what it says, and how its signer was authenticated. */
export interface AuthenticatedDecision {
  readonly claims: DecisionClaims;
  /** Recorded in the audit as the decision's `method` (e.g. `ed25519`). */
  readonly method: string;
  readonly keyId: string;
}

/** Why a token was not authenticated (a subset of the workflow's refusal reasons). */
export type AuthenticationFailure = 'bad_token' | 'unknown_key' | 'bad_signature';

export type DecisionAuthentication =
  | { readonly ok: true; readonly decision: AuthenticatedDecision }
  | { readonly ok: false; readonly reason: AuthenticationFailure };

/**
 * Authenticates decision tokens for the worker: says who signed what. A host plugs its own in (for example one
 * that checks its identity provider's tokens) through `ToolContractPlugin({ decisions })`. Whether the decision
 * fits the call — workflow, run, call, digest, expiry, self-approval — is checked by the package for every
 * authenticator alike, so an authenticator cannot forget it.
 */
export interface DecisionAuthenticator {
  authenticate(token: string): DecisionAuthentication | Promise<DecisionAuthentication>;
}

/**
 * The shipped authenticator: tokens made by `signDecision`, verified with the given keys (by key id). Give workers
 * Ed25519 public keys, so they can verify but not sign. Keys may be given as text (`parseDecisionKey`'s form).
 */
export function signedDecisions(options: { readonly keys: readonly (DecisionKey | string)[] }): DecisionAuthenticator {
  const keys = new Map<string, DecisionKey>();
  for (const [index, given] of options.keys.entries()) {
    const key = typeof given === 'string' ? parseNamedDecisionKey(given, `signedDecisions: keys[${index}]`) : given;
    if (keys.has(key.id)) throw new RangeError(`decision key id '${key.id}' is given twice`);
    keys.set(key.id, key);
  }
  if (keys.size === 0) throw new RangeError('signedDecisions needs at least one key (see verifyingKeysFromEnv)');
  return {
    authenticate(token) {
      const decoded = decodeToken(token);
      if (decoded === null) return { ok: false, reason: 'bad_token' };
      const key = keys.get(decoded.claims.keyId);
      if (key === undefined) return { ok: false, reason: 'unknown_key' };
      if (!verifies(key, decoded.signingInput, decoded.signature)) return { ok: false, reason: 'bad_signature' };
      return { ok: true, decision: { claims: decoded.claims, method: key.algorithm, keyId: key.id } };
    },
  };
}

function verifies(key: DecisionKey, input: Buffer, signature: Buffer): boolean {
  if (key.algorithm === 'hmac-sha256') {
    const expected = createHmac('sha256', key.secret).update(input).digest();
    return signature.length === expected.length && timingSafeEqual(signature, expected);
  }
  try {
    return verify(null, input, key.publicKey, signature);
  } catch {
    return false;
  }
}
