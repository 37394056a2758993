import { sha256OfBytes } from '../byte-digest.js';
import { toCanonicalText } from '../canonical-text.js';
import { checkIdList, checkOptionalTimestamp, checkText } from '../input-checks.js';
import type { MemoryConfirmation, MemoryFilter, MemoryOutcome, MemoryProposal, MemoryRecord } from '../memory.js';
import { storedMemoryFact } from '../memory-fact.js';
import { decideMemoryWrite, type MemoryPolicy } from '../memory-policy.js';
import { StoreError } from '../store-error.js';
import { assertAllCited, trustedEvidenceCount } from '../cited-evidence.js';
import { readCitedEvidence } from './in-memory-cited-evidence.js';
import { copy, type InMemoryTables } from './in-memory-tables.js';

/** Applies the memory write policy to a proposal and keeps it unless refused; idempotent by memory id. */
export function proposeMemory(
  tables: InMemoryTables,
  input: MemoryProposal,
  policy: MemoryPolicy,
  now: string,
): MemoryOutcome {
  const evidenceIds = checkIdList(input.evidenceIds, 'evidenceIds');
  const cited = readCitedEvidence(tables, input.workflowId, evidenceIds);
  const { decision, reason } = decideMemoryWrite(
    input.kind,
    { cited: evidenceIds.length, trusted: trustedEvidenceCount(cited, policy) },
    policy,
  );
  if (decision === 'refused') return { decision, reason, memory: null };
  assertAllCited(input.workflowId, evidenceIds, cited);
  const observedAt = checkOptionalTimestamp(input.observedAt, 'observedAt')?.toISOString() ?? null;
  const fact = storedMemoryFact(checkText(input.fact, 'fact'));
  const sha256 = sha256OfBytes(toCanonicalText({ ...input, fact, evidenceIds, observedAt }, 'proposal'));
  const existing = tables.memory.get(input.memoryId);
  if (existing) {
    if (existing.sha256 !== sha256) throw new StoreError('memory_id_reused', { memoryId: input.memoryId });
    return { decision: existing.record.status, reason: existing.record.reason, memory: copy(existing.record) };
  }
  const record: MemoryRecord = {
    memoryId: input.memoryId,
    subjectRef: input.subjectRef,
    workflowId: input.workflowId,
    fact,
    kind: input.kind,
    evidenceIds,
    observedAt,
    confidence: input.confidence,
    status: decision,
    reason,
    confirmedBy: null,
    createdAt: now,
    updatedAt: now,
  };
  tables.memory.set(input.memoryId, { record, sha256 });
  return { decision, reason, memory: copy(record) };
}

/** A user confirms a candidate (of the given workflow); confirming again by the same user is a no-op, by anyone else a refusal. */
export function confirmMemoryCandidate(tables: InMemoryTables, input: MemoryConfirmation, now: string): MemoryRecord {
  const entry = tables.memory.get(input.memoryId);
  if (!entry || (input.workflowId !== undefined && entry.record.workflowId !== input.workflowId))
    throw new StoreError('memory_not_found', { memoryId: input.memoryId });
  if (entry.record.status === 'candidate') {
    entry.record = {
      ...entry.record,
      status: 'accepted',
      reason: 'user_confirmed',
      confirmedBy: input.confirmedBy,
      updatedAt: now,
    };
  } else if (entry.record.confirmedBy !== input.confirmedBy) {
    throw new StoreError('not_a_candidate', { memoryId: input.memoryId, status: entry.record.status });
  }
  return copy(entry.record);
}

/** Memory rows of one subject or one workflow (or both; optionally of one status). */
export function listMemories(tables: InMemoryTables, filter: MemoryFilter): MemoryRecord[] {
  if (filter.subjectRef === undefined && filter.workflowId === undefined)
    throw new StoreError('invalid_input', { field: 'filter', problem: 'needs subjectRef or workflowId' });
  return [...tables.memory.values()]
    .map((m) => m.record)
    .filter(
      (m) =>
        (filter.subjectRef === undefined || m.subjectRef === filter.subjectRef) &&
        (filter.workflowId === undefined || m.workflowId === filter.workflowId),
    )
    .filter((m) => filter.status === undefined || m.status === filter.status)
    .map(copy);
}
