import { sha256OfBytes } from '../byte-digest.js';
import { toCanonicalText } from '../canonical-text.js';
import { checkIdList, checkOptionalTimestamp, checkText } from '../input-checks.js';
import type {
  MemoryConfirmation,
  MemoryFilter,
  MemoryOutcome,
  MemoryProposal,
  MemoryRecord,
  MemoryStatus,
} from '../memory.js';
import { storedMemoryFact } from '../memory-fact.js';
import {
  decideMemoryWrite,
  MEMORY_SOURCE_KINDS,
  type MemoryDecisionReason,
  type MemoryPolicy,
  type MemorySourceKind,
} from '../memory-policy.js';
import { assertAllCited, trustedEvidenceCount } from '../cited-evidence.js';
import { readCitedEvidence } from './pg-evidence.js';
import type { Queryable } from './sql-runner.js';
import { StoreError } from '../store-error.js';
import { isoOf, isoOrNull } from '../timestamps.js';

interface MemoryRow {
  readonly memory_id: string;
  readonly subject_ref: string;
  readonly workflow_id: string;
  readonly fact: string;
  readonly kind: MemorySourceKind;
  readonly evidence_ids: string[];
  readonly observed_at: Date | null;
  readonly confidence: 'high' | 'medium' | 'low' | null;
  readonly status: MemoryStatus;
  readonly reason: MemoryDecisionReason;
  readonly confirmed_by: string | null;
  readonly proposal_sha256: string;
  readonly created_at: Date;
  readonly updated_at: Date;
}

const MEMORY_COLUMNS =
  'memory_id, subject_ref, workflow_id, fact, kind, evidence_ids, observed_at, confidence, status, reason, confirmed_by, proposal_sha256, created_at, updated_at';
const CONFIDENCES = new Set(['high', 'medium', 'low']);

/**
 * Applies the write policy to a proposal. Refused proposals are not stored (a guess must not become a stored
 * fact, not even a rejected one that a later query could pick up); cited evidence must exist in the workflow, and
 * its provenance decides whether a confirmed fact is trusted enough to be written (else it stays a candidate).
 */
export async function proposeMemory(
  db: Queryable,
  input: MemoryProposal,
  policy: MemoryPolicy,
  now: Date,
): Promise<MemoryOutcome> {
  if (!MEMORY_SOURCE_KINDS.includes(input.kind))
    throw new StoreError('invalid_input', { field: 'kind', problem: 'unknown_kind' });
  if (input.confidence !== null && !CONFIDENCES.has(input.confidence))
    throw new StoreError('invalid_input', { field: 'confidence', problem: 'unknown_confidence' });
  const proposal = {
    memoryId: checkText(input.memoryId, 'memoryId'),
    subjectRef: checkText(input.subjectRef, 'subjectRef'),
    workflowId: checkText(input.workflowId, 'workflowId'),
    fact: storedMemoryFact(checkText(input.fact, 'fact')),
    kind: input.kind,
    evidenceIds: checkIdList(input.evidenceIds, 'evidenceIds'),
    observedAt: checkOptionalTimestamp(input.observedAt, 'observedAt'),
    confidence: input.confidence,
  };
  const cited = await readCitedEvidence(db, proposal.workflowId, proposal.evidenceIds);
  const { decision, reason } = decideMemoryWrite(
    proposal.kind,
    { cited: proposal.evidenceIds.length, trusted: trustedEvidenceCount(cited, policy) },
    policy,
  );
  if (decision === 'refused') return { decision, reason, memory: null };
  assertAllCited(proposal.workflowId, proposal.evidenceIds, cited);
  const sha256 = sha256OfBytes(
    toCanonicalText({ ...proposal, observedAt: proposal.observedAt?.toISOString() ?? null }, 'proposal'),
  );
  const inserted = await db.query<MemoryRow>(
    `INSERT INTO ${db.table('ttc_memory')} (memory_id, subject_ref, workflow_id, fact, kind, evidence_ids, observed_at, confidence, status, reason, proposal_sha256, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12)
     ON CONFLICT (memory_id) DO NOTHING RETURNING ${MEMORY_COLUMNS}`,
    [
      proposal.memoryId,
      proposal.subjectRef,
      proposal.workflowId,
      proposal.fact,
      proposal.kind,
      proposal.evidenceIds,
      proposal.observedAt,
      proposal.confidence,
      decision,
      reason,
      sha256,
      now,
    ],
  );
  const row = inserted[0] ?? (await selectMemory(db, proposal.memoryId));
  if (!row) throw new StoreError('internal', { problem: 'memory row vanished' });
  if (row.proposal_sha256 !== sha256) throw new StoreError('memory_id_reused', { memoryId: proposal.memoryId });
  // A retried proposal reports the row as it is now (a candidate may have been confirmed since).
  return { decision: row.status, reason: row.reason, memory: memoryRecordOf(row) };
}

/** Promotes a candidate (of the given workflow) to accepted memory, recording who confirmed it; confirming again is a no-op. */
export async function confirmMemoryCandidate(
  db: Queryable,
  input: MemoryConfirmation,
  now: Date,
): Promise<MemoryRecord> {
  const memoryId = checkText(input.memoryId, 'memoryId');
  const confirmedBy = checkText(input.confirmedBy, 'confirmedBy');
  const workflowId = input.workflowId === undefined ? null : checkText(input.workflowId, 'workflowId');
  const updated = await db.query<MemoryRow>(
    `UPDATE ${db.table('ttc_memory')} SET status = 'accepted', reason = 'user_confirmed', confirmed_by = $2, updated_at = $3
      WHERE memory_id = $1 AND status = 'candidate' AND ($4::text IS NULL OR workflow_id = $4) RETURNING ${MEMORY_COLUMNS}`,
    [memoryId, confirmedBy, now, workflowId],
  );
  const row = updated[0] ?? (await selectMemory(db, memoryId));
  if (!row || (workflowId !== null && row.workflow_id !== workflowId))
    throw new StoreError('memory_not_found', { memoryId });
  if (updated.length === 0 && row.confirmed_by !== confirmedBy)
    throw new StoreError('not_a_candidate', { memoryId, status: row.status });
  return memoryRecordOf(row);
}

/** Memory of one subject or one workflow (or both), oldest first. */
export async function listMemories(db: Queryable, filter: MemoryFilter): Promise<MemoryRecord[]> {
  const conditions: string[] = [];
  const params: unknown[] = [];
  if (filter.subjectRef !== undefined)
    conditions.push(`subject_ref = $${params.push(checkText(filter.subjectRef, 'subjectRef'))}`);
  if (filter.workflowId !== undefined)
    conditions.push(`workflow_id = $${params.push(checkText(filter.workflowId, 'workflowId'))}`);
  if (conditions.length === 0)
    throw new StoreError('invalid_input', { field: 'filter', problem: 'needs subjectRef or workflowId' });
  if (filter.status !== undefined) conditions.push(`status = $${params.push(filter.status)}`);
  const rows = await db.query<MemoryRow>(
    `SELECT ${MEMORY_COLUMNS} FROM ${db.table('ttc_memory')} WHERE ${conditions.join(' AND ')} ORDER BY created_at, memory_id`,
    params,
  );
  return rows.map(memoryRecordOf);
}

async function selectMemory(db: Queryable, memoryId: string): Promise<MemoryRow | undefined> {
  return (
    await db.query<MemoryRow>(`SELECT ${MEMORY_COLUMNS} FROM ${db.table('ttc_memory')} WHERE memory_id = $1`, [
      memoryId,
    ])
  )[0];
}

function memoryRecordOf(row: MemoryRow): MemoryRecord {
  return {
    memoryId: row.memory_id,
    subjectRef: row.subject_ref,
    workflowId: row.workflow_id,
    fact: row.fact,
    kind: row.kind,
    evidenceIds: row.evidence_ids,
    observedAt: isoOrNull(row.observed_at),
    confidence: row.confidence,
    status: row.status,
    reason: row.reason,
    confirmedBy: row.confirmed_by,
    createdAt: isoOf(row.created_at),
    updatedAt: isoOf(row.updated_at),
  };
}
