import { createHmac, randomBytes, sign } from 'node:crypto';
import { DECISION_TOKEN_VERSION, decisionClaimsSchema, type ApprovalClaims, type ResolutionClaims } from './claims.js';
import { DecisionKeyError, type DecisionKey } from './keys.js';
import { encodeToken } from './token.js';

/** The fields of the claims the signer states; `signDecision` adds version, times, decision id and key id. */
type Stated<C> = Omit<C, 'v' | 'issuedAt' | 'expiresAt' | 'decisionId' | 'keyId'>;

/** What an approval service signs for an approval: one pending call, the digest it showed, the decision. */
export type ApprovalStatement = Stated<ApprovalClaims>;
/** What an approval service signs for a resolution: one escalated reconciliation and its outcome. */
export type ResolutionStatement = Stated<ResolutionClaims>;

/** Options of {@link signDecision}. */
export interface SignOptions {
  /** Issue time (default: now). */
  readonly now?: Date;
  /** How long the token may be submitted (default 15 minutes). The workflow refuses it afterwards. */
  readonly ttlMs?: number;
}

/** Default lifetime of a decision token: long enough to submit, short enough that a leaked one soon expires. */
export const DEFAULT_DECISION_TTL_MS = 15 * 60_000;

/**
 * Signs a decision with `key` and returns its token. The signer vouches for `decidedBy`: a host's approval service
 * signs after authenticating its user; `tool-contract approve` signs with the key of the project folder.
 */
export function signDecision(
  statement: ApprovalStatement | ResolutionStatement,
  key: DecisionKey,
  options: SignOptions = {},
): string {
  const issuedAt = options.now ?? new Date();
  const ttlMs = options.ttlMs ?? DEFAULT_DECISION_TTL_MS;
  if (!(ttlMs > 0)) throw new RangeError('ttlMs must be positive');
  // Checked as the verifier will check it, so a signer never hands out a token every worker refuses.
  const claims = decisionClaimsSchema.safeParse({
    ...statement,
    v: DECISION_TOKEN_VERSION,
    issuedAt: issuedAt.toISOString(),
    expiresAt: new Date(issuedAt.getTime() + ttlMs).toISOString(),
    decisionId: `dec_${randomBytes(16).toString('base64url')}`,
    keyId: key.id,
  });
  if (!claims.success)
    throw new TypeError(
      `not a valid decision: ${claims.error.issues.map((issue) => `${issue.path.join('.') || '/'} (${issue.code})`).join(', ')}`,
    );
  return encodeToken(claims.data, (input) => signature(key, input));
}

function signature(key: DecisionKey, input: Buffer): Buffer {
  if (key.algorithm === 'hmac-sha256') return createHmac('sha256', key.secret).update(input).digest();
  if (key.privateKey === null) throw new DecisionKeyError(`decision key '${key.id}' is a public key: it cannot sign`);
  return sign(null, input, key.privateKey);
}
