import { sha256OfBytes } from '../byte-digest.js';
import { fromCanonicalText, toCanonicalText } from '../canonical-text.js';
import { assertAllCited, resolvePatchProvenance, type PatchProvenance, type PatchProvenanceInput } from '../cited-evidence.js';
import { checkCount, checkIdList, checkText } from '../input-checks.js';
import { readCitedEvidence } from './pg-evidence.js';
import { inTransaction, type PgDatabase, type Queryable } from './sql-runner.js';
import type { StateEntry, StatePatchInput, StatePatchRecord, StatePatchResult } from '../state-patch.js';
import { StoreError, isStoreError } from '../store-error.js';
import { isoOf, isoOrNull } from '../timestamps.js';

/** A patch row's columns, all nullable (as from a LEFT JOIN that found nothing). */
type PatchColumns = { readonly [K in keyof PatchRow]: PatchRow[K] | null };

interface PatchRow {
  readonly patch_id: string;
  readonly workflow_id: string;
  readonly key: string;
  readonly value_json: string;
  readonly evidence_ids: string[];
  readonly source: string;
  readonly observed_at: Date | null;
  readonly retrieved_at: Date;
  readonly version: number;
  readonly call_id: string;
  readonly patch_sha256: string;
  readonly applied_at: Date;
}

const PATCH_COLUMNS = 'patch_id, workflow_id, key, value_json, evidence_ids, source, observed_at, retrieved_at, version, call_id, patch_sha256, applied_at';

/** The locking read of {@link applyChecked}: earlier patch with this id, current version. */
const checkPatchSql = (db: Queryable): string => `
  SELECT (SELECT version FROM ${db.table('ttc_state')} WHERE workflow_id = $1 AND key = $2 FOR UPDATE) AS current_version,
         ${PATCH_COLUMNS.split(', ').map((c) => `p.${c}`).join(', ')}
    FROM (SELECT 1) AS one LEFT JOIN ${db.table('ttc_state_patches')} p ON p.patch_id = $3`;

/** The write of {@link applyChecked}: the patch row and the pointer move, as one statement. */
function writePatchSql(db: Queryable, firstVersion: boolean): string {
  // A first version inserts the pointer (its primary key turns a concurrent first writer into a conflict); later
  // versions move it. Both statements of the CTE run to completion whether or not the outer query reads them.
  const movePointer = firstVersion
    ? `INSERT INTO ${db.table('ttc_state')} (workflow_id, key, version, patch_id, updated_at) SELECT workflow_id, key, version, patch_id, applied_at FROM p`
    : `UPDATE ${db.table('ttc_state')} s SET version = p.version, patch_id = p.patch_id, updated_at = p.applied_at FROM p WHERE s.workflow_id = p.workflow_id AND s.key = p.key`;
  return `
    WITH p AS (
      INSERT INTO ${db.table('ttc_state_patches')} (patch_id, workflow_id, key, value_json, evidence_ids, source, observed_at, retrieved_at, expected_version, version, call_id, patch_sha256, applied_at)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING ${PATCH_COLUMNS}
    ), moved AS (${movePointer})
    SELECT ${PATCH_COLUMNS} FROM p`;
}

/** A patch after validation, with its canonical value text; its provenance is resolved against its evidence. */
interface CheckedPatch {
  readonly patchId: string;
  readonly workflowId: string;
  readonly key: string;
  readonly valueJson: string;
  readonly evidenceIds: string[];
  readonly expectedVersion: number;
  readonly callId: string;
  readonly provenance: PatchProvenanceInput;
}

/** A patch whose provenance the cited evidence confirmed, with the digest that identifies its content. */
interface ResolvedPatch extends Omit<CheckedPatch, 'provenance'>, PatchProvenance {
  readonly sha256: string;
}

/**
 * Applies a state patch. Idempotent by patch id (same content → `applied: false`, different content →
 * `patch_id_reused`), optimistic on version (a stale expected version → `version_conflict`, the current value is
 * never overwritten), every cited evidence id must come from a call of the same workflow, and the patch's source and
 * times must be those of its evidence (`provenance_mismatch`; see `resolvePatchProvenance`).
 */
export async function applyStatePatch(database: PgDatabase, input: StatePatchInput, now: Date): Promise<StatePatchResult> {
  const patch = checkPatch(input);
  try {
    return await inTransaction(database, (tx) => applyChecked(tx, patch, now));
  } catch (error) {
    // A concurrent writer of the same patch id may have committed between our check and our write: then this
    // is a retry that lost the race, not a conflict.
    if (isStoreError(error) && (error.reason === 'version_conflict' || error.reason === 'patch_id_reused')) {
      const replay = await inTransaction(database, async (tx) => existingPatch(tx, await resolvePatch(tx, patch)));
      if (replay) return replay;
    }
    throw error;
  }
}

/**
 * Reads the cited evidence (each id must come from a call of the patch's workflow, and each row is verified against
 * the audit that recorded it) and checks the patch's source and times against it, or takes them from it; the
 * patch's identity digest covers the resolved values.
 */
async function resolvePatch(tx: Queryable, patch: CheckedPatch): Promise<ResolvedPatch> {
  const cited = await readCitedEvidence(tx, patch.workflowId, patch.evidenceIds);
  assertAllCited(patch.workflowId, patch.evidenceIds, cited);
  const { provenance, ...fields } = patch;
  const resolved = { ...fields, ...resolvePatchProvenance(provenance, cited) };
  const identity = toCanonicalText(
    { ...resolved, observedAt: resolved.observedAt?.toISOString() ?? null, retrievedAt: resolved.retrievedAt.toISOString() },
    'patch',
  );
  return { ...resolved, sha256: sha256OfBytes(identity) };
}

/**
 * Two reads and one write per patch (plus BEGIN/COMMIT), so the store stays close to raw inserts: the first read
 * finds an earlier patch with this id and the current version (locking the state row, so the check and the write are
 * one step for concurrent writers of the key); the second reads the cited evidence with the audits that recorded it,
 * to verify each row (a row moved from another workflow is refused) and to learn the provenance of the calls that
 * returned it; the write inserts the patch and moves the pointer.
 */
async function applyChecked(tx: Queryable, checkedPatch: CheckedPatch, now: Date): Promise<StatePatchResult> {
  const checked = (await tx.query<PatchColumns & { current_version: number | null }>(checkPatchSql(tx), [checkedPatch.workflowId, checkedPatch.key, checkedPatch.patchId]))[0];
  if (!checked) throw new StoreError('internal', { problem: 'patch check returned nothing' });
  const patch = await resolvePatch(tx, checkedPatch);
  if (checked.patch_id !== null) return replayOf(checked as PatchRow, patch);
  const currentVersion = checked.current_version ?? 0;
  if (currentVersion !== patch.expectedVersion) {
    throw new StoreError('version_conflict', { workflowId: patch.workflowId, key: patch.key, expectedVersion: patch.expectedVersion, currentVersion });
  }
  const version = patch.expectedVersion + 1;
  const first = patch.expectedVersion === 0;
  const rows = await tx.query<PatchRow>(
    writePatchSql(tx, first),
    [patch.patchId, patch.workflowId, patch.key, patch.valueJson, patch.evidenceIds, patch.source, patch.observedAt, patch.retrievedAt, patch.expectedVersion, version, patch.callId, patch.sha256, now],
  );
  const inserted = rows[0];
  if (!inserted) throw new StoreError('internal', { problem: 'patch insert returned nothing' });
  return { applied: true, version, patch: patchRecordOf(inserted) };
}

async function existingPatch(tx: Queryable, patch: ResolvedPatch): Promise<StatePatchResult | null> {
  const row = (await tx.query<PatchRow>(`SELECT ${PATCH_COLUMNS} FROM ${tx.table('ttc_state_patches')} WHERE patch_id = $1`, [patch.patchId]))[0];
  return row ? replayOf(row, patch) : null;
}

/** An earlier patch with this id: a replay when it carries exactly this content, otherwise a reused id. */
function replayOf(row: PatchRow, patch: ResolvedPatch): StatePatchResult {
  if (row.patch_sha256 !== patch.sha256) throw new StoreError('patch_id_reused', { patchId: patch.patchId });
  return { applied: false, version: row.version, patch: patchRecordOf(row) };
}

/** The current value of a key, joined with the patch that set it. */
export async function getState(db: Queryable, workflowId: string, key: string): Promise<StateEntry | null> {
  const rows = await db.query<PatchRow & { current_version: number; updated_at: Date }>(
    `SELECT ${PATCH_COLUMNS.split(', ').map((c) => `p.${c}`).join(', ')}, s.version AS current_version, s.updated_at
       FROM ${db.table('ttc_state')} s JOIN ${db.table('ttc_state_patches')} p ON p.patch_id = s.patch_id
      WHERE s.workflow_id = $1 AND s.key = $2`,
    [checkText(workflowId, 'workflowId'), checkText(key, 'key', { allowEmpty: true })],
  );
  const row = rows[0];
  if (!row) return null;
  return {
    workflowId: row.workflow_id,
    key: row.key,
    value: fromCanonicalText(row.value_json),
    version: row.current_version,
    evidenceIds: row.evidence_ids,
    source: row.source,
    observedAt: isoOrNull(row.observed_at),
    retrievedAt: isoOf(row.retrieved_at),
    callId: row.call_id,
    patchId: row.patch_id,
    updatedAt: isoOf(row.updated_at),
  };
}

/** Applied patches of a workflow (optionally one key), in application order. */
export async function listStatePatches(db: Queryable, filter: { readonly workflowId: string; readonly key?: string }): Promise<StatePatchRecord[]> {
  const workflowId = checkText(filter.workflowId, 'workflowId');
  const rows =
    filter.key === undefined
      ? await db.query<PatchRow>(`SELECT ${PATCH_COLUMNS} FROM ${db.table('ttc_state_patches')} WHERE workflow_id = $1 ORDER BY applied_at, key, version`, [workflowId])
      : await db.query<PatchRow>(`SELECT ${PATCH_COLUMNS} FROM ${db.table('ttc_state_patches')} WHERE workflow_id = $1 AND key = $2 ORDER BY version`, [
          workflowId,
          checkText(filter.key, 'key', { allowEmpty: true }),
        ]);
  return rows.map(patchRecordOf);
}

function checkPatch(input: StatePatchInput): CheckedPatch {
  const evidenceIds = checkIdList(input.evidenceIds, 'evidenceIds');
  if (evidenceIds.length === 0) throw new StoreError('evidence_required', { field: 'evidenceIds' });
  return {
    patchId: checkText(input.patchId, 'patchId'),
    workflowId: checkText(input.workflowId, 'workflowId'),
    // The empty string is a legitimate (if odd) key; only unstorable text is refused.
    key: checkText(input.key, 'key', { allowEmpty: true }),
    valueJson: toCanonicalText(input.value, 'value'),
    evidenceIds,
    expectedVersion: checkCount(input.expectedVersion, 'expectedVersion'),
    callId: checkText(input.callId, 'callId'),
    provenance: { source: input.source, observedAt: input.observedAt, retrievedAt: input.retrievedAt },
  };
}

function patchRecordOf(row: PatchRow): StatePatchRecord {
  return {
    patchId: row.patch_id,
    workflowId: row.workflow_id,
    key: row.key,
    value: fromCanonicalText(row.value_json),
    evidenceIds: row.evidence_ids,
    source: row.source,
    observedAt: isoOrNull(row.observed_at),
    retrievedAt: isoOf(row.retrieved_at),
    version: row.version,
    callId: row.call_id,
    appliedAt: isoOf(row.applied_at),
  };
}
