import { sha256OfBytes } from '../byte-digest.js';
import { fromCanonicalText, toCanonicalText } from '../canonical-text.js';
import { assertAllCited, assertEvidenceValid, resolvePatchProvenance } from '../cited-evidence.js';
import { checkCount, checkIdList, checkText } from '../input-checks.js';
import type { StateEntry, StatePatchInput, StatePatchRecord, StatePatchResult } from '../state-patch.js';
import { storedPatchKey } from '../state-patch-key.js';
import { StoreError } from '../store-error.js';
import { readCitedEvidence } from './in-memory-cited-evidence.js';
import { copy, type InMemoryTables } from './in-memory-tables.js';

/**
 * Applies a patch: a retry of the same patch id (within its workflow) returns the first result, a reused id with
 * other content is refused, the version must be the one the writer read (optimistic concurrency), and the
 * provenance is the cited evidence's (checked or taken from it).
 */
export function applyStatePatch(tables: InMemoryTables, input: StatePatchInput, now: string): StatePatchResult {
  const evidenceIds = checkIdList(input.evidenceIds, 'evidenceIds');
  if (evidenceIds.length === 0) throw new StoreError('evidence_required', { field: 'evidenceIds' });
  const expectedVersion = checkCount(input.expectedVersion, 'expectedVersion');
  const valueJson = toCanonicalText(input.value, 'value');
  const patchId = checkText(input.patchId, 'patchId');
  const workflowId = checkText(input.workflowId, 'workflowId');
  const cited = readCitedEvidence(tables, workflowId, evidenceIds);
  assertAllCited(workflowId, evidenceIds, cited);
  const provenance = resolvePatchProvenance(
    { source: input.source, observedAt: input.observedAt, retrievedAt: input.retrievedAt },
    cited,
  );
  const { source } = provenance;
  const observedAt = provenance.observedAt?.toISOString() ?? null;
  const retrievedAt = provenance.retrievedAt.toISOString();
  const identity = {
    patchId,
    workflowId,
    key: checkText(input.key, 'key', { allowEmpty: true }),
    valueJson,
    evidenceIds,
    source,
    observedAt,
    retrievedAt,
    expectedVersion,
    callId: checkText(input.callId, 'callId'),
  };
  const sha256 = sha256OfBytes(toCanonicalText(identity, 'patch'));
  const stored = storedPatchKey(workflowId, patchId);
  const existing = tables.patches.get(stored);
  if (existing) {
    if (existing.sha256 !== sha256) throw new StoreError('patch_id_reused', { patchId: input.patchId });
    return { applied: false, version: existing.record.version, patch: copy(existing.record) };
  }
  assertEvidenceValid(cited, Date.parse(now));
  const stateKey = `${input.workflowId}\u0000${input.key}`;
  const currentVersion = tables.state.get(stateKey)?.version ?? 0;
  if (currentVersion !== expectedVersion)
    throw new StoreError('version_conflict', {
      workflowId: input.workflowId,
      key: input.key,
      expectedVersion,
      currentVersion,
    });
  const value = fromCanonicalText(valueJson);
  const record: StatePatchRecord = {
    patchId: input.patchId,
    workflowId: input.workflowId,
    key: input.key,
    value,
    evidenceIds,
    source,
    observedAt,
    retrievedAt,
    version: expectedVersion + 1,
    callId: input.callId,
    appliedAt: now,
  };
  tables.patches.set(stored, { record, sha256 });
  tables.state.set(stateKey, {
    workflowId: input.workflowId,
    key: input.key,
    value,
    version: record.version,
    evidenceIds,
    source,
    observedAt,
    retrievedAt,
    callId: input.callId,
    patchId: input.patchId,
    updatedAt: now,
  });
  return { applied: true, version: record.version, patch: copy(record) };
}

/** The current value of a state key, as a copy. */
export function getState(tables: InMemoryTables, workflowId: string, key: string): StateEntry | null {
  const entry = tables.state.get(`${workflowId}\u0000${key}`);
  return entry ? copy(entry) : null;
}

/** Applied patches of a workflow (optionally one key), in the order they were applied. */
export function listStatePatches(
  tables: InMemoryTables,
  filter: { readonly workflowId: string; readonly key?: string },
): StatePatchRecord[] {
  return [...tables.patches.values()]
    .map((p) => p.record)
    .filter((p) => p.workflowId === filter.workflowId && (filter.key === undefined || p.key === filter.key))
    .map(copy);
}
