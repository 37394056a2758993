import { z } from 'zod';

/** Version of the decision token payload; a changed payload gets a new version, never a silent reinterpretation. */
export const DECISION_TOKEN_VERSION = 1;

const text = (max: number) => z.string().min(1).max(max);
const isoTime = z.iso.datetime({ offset: true });

/** What every decision token states besides its subject: who, when, until when, which decision and which key. */
const common = {
  v: z.literal(DECISION_TOKEN_VERSION),
  /** The workflow execution the decision is for: a token is worth nothing for any other run. */
  workflowId: text(1000),
  runId: text(200),
  /** The approver or resolver the signer vouches for. */
  decidedBy: text(200),
  note: z.string().max(2000).optional(),
  issuedAt: isoTime,
  expiresAt: isoTime,
  /** Random, unique per decision: the id the audit records. */
  decisionId: text(200),
  /** The key that signed (lets workers hold several keys during a rotation). */
  keyId: text(200),
};

/** Claims of an approval token: bound to one pending call and the digest of its exact request. */
const approvalClaimsSchema = z.strictObject({
  ...common,
  kind: z.literal('approval'),
  callId: text(200),
  requestSha256: z.string().regex(/^[0-9a-f]{64}$/),
  decision: z.enum(['approve', 'reject']),
});

/** Claims of a resolution token: bound to one escalated reconciliation by its idempotency key. */
const resolutionClaimsSchema = z.strictObject({
  ...common,
  kind: z.literal('resolution'),
  idempotencyKey: text(1000),
  decision: z.enum(['committed', 'not_committed']),
  /** The authoritative system's id of the committed write (required for `committed`). */
  externalId: text(256).optional(),
});

/** The payload of a decision token (see `signDecision`). */
export const decisionClaimsSchema = z
  .discriminatedUnion('kind', [approvalClaimsSchema, resolutionClaimsSchema])
  .refine(
    (claims) => claims.kind !== 'resolution' || claims.decision !== 'committed' || claims.externalId !== undefined,
    { message: 'a committed resolution names the external id of the write', path: ['externalId'] },
  );

export type ApprovalClaims = z.infer<typeof approvalClaimsSchema>;
export type ResolutionClaims = z.infer<typeof resolutionClaimsSchema>;
/** What a decision token says, once its signature verified. */
export type DecisionClaims = ApprovalClaims | ResolutionClaims;
