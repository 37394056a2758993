import { checkText } from '../input-checks.js';
import type { CheckedFence, DispatchState, FenceDecision, FenceDispatchInput } from '../lease.js';
import type { LedgerStatus } from '../ledger.js';
import type { Queryable } from './sql-runner.js';
import { isoOrNull } from '../timestamps.js';

/**
 * The dispatch fence: one UPDATE that passes only while the claim holds the row with its lease unrevoked and
 * unexpired (database clock), and marks it dispatched. It takes the row lock a revocation takes too, so of a fence
 * and a revocation racing, whichever commits second sees the other.
 */
export async function fenceDispatch(db: Queryable, input: FenceDispatchInput): Promise<FenceDecision> {
  const key = checkText(input.idempotencyKey, 'idempotencyKey');
  const token = checkText(input.leaseToken, 'leaseToken');
  const passed = await db.query(
    `UPDATE ${db.table('ttc_ledger')} SET dispatched_at = COALESCE(dispatched_at, clock_timestamp())
      WHERE idempotency_key = $1 AND lease_token = $2 AND status = 'claimed' AND lease_revoked_at IS NULL AND lease_expires_at > clock_timestamp()
     RETURNING 1`,
    [key, token],
  );
  if (passed.length > 0) return { allowed: true };
  // The refusal was decided above; this only finds out why, for the audit.
  const rows = await db.query<{ lease_token: string | null; status: LedgerStatus; lease_revoked_at: Date | null }>(
    `SELECT lease_token, status, lease_revoked_at FROM ${db.table('ttc_ledger')} WHERE idempotency_key = $1`,
    [key],
  );
  const row = rows[0];
  if (row === undefined || row.lease_token !== token || row.status !== 'claimed')
    return { allowed: false, reason: 'superseded' };
  return { allowed: false, reason: row.lease_revoked_at === null ? 'expired' : 'revoked' };
}

/**
 * Revokes the fenced dispatcher's lease (when it holds the key) and fences it out of the key for good, writing a
 * released tombstone row when it never claimed it; in one upsert, under the row lock the fence takes. Returns
 * whether the dispatcher had passed its fence and not recorded a result that settles the key (its request may be
 * in flight: still running, or ended unknown a moment ago) and until when: its lease's end plus grace.
 */
export async function revokeLease(
  tx: Queryable,
  idempotencyKey: string,
  tool: string,
  fence: CheckedFence,
  now: Date,
): Promise<DispatchState> {
  const rows = await tx.query<{ in_flight: boolean; quiet_at: Date | null }>(
    `INSERT INTO ${tx.table('ttc_ledger')} (idempotency_key, request_sha256, tool, workflow_id, call_id, status, claimed_at, fenced_holders)
     VALUES ($1, $2, $3, $4, $5, 'released', $6, ARRAY[$7::text])
     ON CONFLICT (idempotency_key) DO UPDATE SET
       lease_revoked_at = CASE WHEN ttc_ledger.lease_holder = $7 THEN COALESCE(ttc_ledger.lease_revoked_at, clock_timestamp()) ELSE ttc_ledger.lease_revoked_at END,
       fenced_holders = CASE WHEN $7 = ANY (ttc_ledger.fenced_holders) THEN ttc_ledger.fenced_holders ELSE array_append(ttc_ledger.fenced_holders, $7::text) END
     RETURNING lease_holder IS NOT DISTINCT FROM $7::text AND status IN ('claimed', 'unknown') AND dispatched_at IS NOT NULL AS in_flight,
               lease_expires_at + $8::double precision * interval '1 millisecond' AS quiet_at`,
    [
      idempotencyKey,
      fence.requestSha256,
      tool,
      fence.dispatcher.workflowId,
      fence.dispatcher.callId,
      now,
      fence.holder,
      fence.graceMs,
    ],
  );
  const revoked = rows[0];
  if (revoked === undefined || !revoked.in_flight) return { dispatched: false, quietAt: null };
  return { dispatched: true, quietAt: isoOrNull(revoked.quiet_at) };
}
