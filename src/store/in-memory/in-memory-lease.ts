import { checkText } from '../input-checks.js';
import type { CheckedFence, DispatchState, FenceDecision, FenceDispatchInput } from '../lease.js';
import type { InMemoryTables } from './in-memory-tables.js';

/** The dispatch fence: passes only while the claim holds the row with its lease unrevoked and unexpired, and marks it. */
export function fenceDispatch(tables: InMemoryTables, input: FenceDispatchInput, now: string): FenceDecision {
  const row = tables.ledger.get(checkText(input.idempotencyKey, 'idempotencyKey'));
  const token = checkText(input.leaseToken, 'leaseToken');
  const lease = row?.lease;
  if (row === undefined || lease === null || lease === undefined || lease.token !== token || row.status !== 'claimed')
    return { allowed: false, reason: 'superseded' };
  if (lease.revokedAt !== null) return { allowed: false, reason: 'revoked' };
  if (Date.parse(lease.expiresAt) <= Date.parse(now)) return { allowed: false, reason: 'expired' };
  lease.dispatchedAt ??= now;
  return { allowed: true };
}

/**
 * Revokes the fenced dispatcher's lease (when it holds the key) and fences it out of the key, writing a released
 * tombstone row when it never claimed it. Returns whether it had passed its fence and not recorded a result that
 * settles the key (its request may be in flight), and until when.
 */
export function revokeLease(
  tables: InMemoryTables,
  idempotencyKey: string,
  tool: string,
  fence: CheckedFence,
  now: string,
): DispatchState {
  const row = tables.ledger.get(idempotencyKey);
  if (row === undefined) {
    tables.ledger.set(idempotencyKey, {
      requestSha256: fence.requestSha256,
      tool,
      workflowId: fence.dispatcher.workflowId,
      callId: fence.dispatcher.callId,
      status: 'released',
      modelResult: null,
      auditRef: null,
      claimedAt: now,
      completedAt: null,
      lease: null,
      fencedHolders: [fence.holder],
      lateCommitAuditId: null,
    });
    return { dispatched: false, quietAt: null };
  }
  if (!row.fencedHolders.includes(fence.holder)) row.fencedHolders.push(fence.holder);
  const lease = row.lease;
  if (lease === null || lease.holder !== fence.holder) return { dispatched: false, quietAt: null };
  lease.revokedAt ??= now;
  if ((row.status !== 'claimed' && row.status !== 'unknown') || lease.dispatchedAt === null)
    return { dispatched: false, quietAt: null };
  return { dispatched: true, quietAt: new Date(Date.parse(lease.expiresAt) + fence.graceMs).toISOString() };
}
