import { sha256OfBytes } from '../byte-digest.js';
import { fromCanonicalText, toCanonicalText } from '../canonical-text.js';
import {
  assertAllCited,
  assertEvidenceValid,
  resolvePatchProvenance,
  type CitedEvidence,
  type PatchProvenance,
  type PatchProvenanceInput,
} from '../cited-evidence.js';
import { checkCount, checkIdList, checkText } from '../input-checks.js';
import { readCitedEvidence } from './pg-evidence.js';
import { poolQueryable, type PgDatabase, type Queryable } from './sql-runner.js';
import type { StateEntry, StatePatchInput, StatePatchRecord, StatePatchResult } from '../state-patch.js';
import { patchIdOf, storedPatchKey } from '../state-patch-key.js';
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

const PATCH_COLUMNS =
  'patch_id, workflow_id, key, value_json, evidence_ids, source, observed_at, retrieved_at, version, call_id, patch_sha256, applied_at';

/**
 * A resolved patch's checks and write as one statement (one round trip, one commit), in the order of the checks. `$1`
 * is the key the patch is stored under: its id within its workflow (see `storedPatchKey`).
 *
 * - `earlier`: a patch of this workflow already stored under this id (a replay or a reused id; the caller compares
 *   digests);
 * - `pointer`: the key's current version, its row locked `FOR UPDATE` — a concurrent writer of the key waits here
 *   and then reads the version that writer left (Postgres re-reads a locked row that changed), so the version check
 *   and the write are one step; materialized, so the check and the answer read the one version it locked;
 * - `p`: the patch row, inserted only when no earlier patch has this id and the current version is the expected one;
 * - `moved`: the pointer, moved only when `p` inserted (a first version inserts it, and its primary key turns a
 *   concurrent first writer into a conflict; later versions update the locked row).
 *
 * What the statement cannot see (a patch of this id committed by a writer it waited for, or a first version raced
 * in) ends as a conflict with no row written, which the caller re-checks as a possible replay. Data-modifying CTEs
 * run to completion whether or not the outer query reads them.
 */
function applyPatchSql(db: Queryable, firstVersion: boolean): string {
  const movePointer = firstVersion
    ? `INSERT INTO ${db.table('ttc_state')} (workflow_id, key, version, patch_id, updated_at) SELECT workflow_id, key, version, patch_id, applied_at FROM p`
    : `UPDATE ${db.table('ttc_state')} s SET version = p.version, patch_id = p.patch_id, updated_at = p.applied_at FROM p WHERE s.workflow_id = p.workflow_id AND s.key = p.key`;
  return `
    WITH earlier AS (
      SELECT ${PATCH_COLUMNS} FROM ${db.table('ttc_state_patches')} WHERE patch_id = $1
    ), pointer AS MATERIALIZED (
      SELECT version FROM ${db.table('ttc_state')} WHERE workflow_id = $2 AND key = $3 FOR UPDATE
    ), p AS (
      INSERT INTO ${db.table('ttc_state_patches')} (patch_id, workflow_id, key, value_json, evidence_ids, source, observed_at, retrieved_at, expected_version, version, call_id, patch_sha256, applied_at)
      SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9::integer, $9::integer + 1, $10, $11, $12
       WHERE NOT EXISTS (SELECT 1 FROM earlier) AND COALESCE((SELECT version FROM pointer), 0) = $9::integer
      RETURNING ${PATCH_COLUMNS}
    ), moved AS (${movePointer})
    SELECT (SELECT version FROM pointer) AS current_version, found.inserted, ${PATCH_COLUMNS.split(', ')
      .map((c) => `found.${c}`)
      .join(', ')}
      FROM (SELECT 1) AS one
      LEFT JOIN (SELECT true AS inserted, ${PATCH_COLUMNS} FROM p UNION ALL SELECT false, ${PATCH_COLUMNS} FROM earlier) AS found ON true`;
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
  /** The evidence it cites (not part of its identity). */
  readonly cited: readonly CitedEvidence[];
}

/**
 * Applies a state patch. Idempotent by patch id within its workflow (same content → `applied: false`, different
 * content → `patch_id_reused`; the same id in another workflow is another patch), optimistic on version (a stale
 * expected version → `version_conflict`, the current value is never overwritten), every cited evidence id must come
 * from a call of the same workflow, and the patch's source and times must be those of its evidence
 * (`provenance_mismatch`; see `resolvePatchProvenance`).
 *
 * Two round trips and one commit, with no transaction around them: the read of the cited evidence, then the checks
 * and the write in one statement ({@link applyPatchSql}). Evidence rows are append-only and each statement of a READ
 * COMMITTED transaction reads its own snapshot anyway, so reading them before the write sees what a read inside the
 * write's transaction saw.
 */
export async function applyStatePatch(
  database: PgDatabase,
  input: StatePatchInput,
  now: Date,
): Promise<StatePatchResult> {
  const db = poolQueryable(database);
  const patch = await resolvePatch(db, checkPatch(input));
  try {
    assertEvidenceValid(patch.cited, now.getTime());
  } catch (error) {
    // A retry of a patch written while its evidence was valid replays it; only a new write is refused.
    const replay = await existingPatch(db, patch);
    if (replay) return replay;
    throw error;
  }
  try {
    return await applyResolved(db, patch, now);
  } catch (error) {
    // A concurrent writer of the same patch id may have committed where our statement could not see it: then this
    // is a retry that lost the race, not a conflict.
    if (isStoreError(error) && (error.reason === 'version_conflict' || error.reason === 'patch_id_reused')) {
      const replay = await existingPatch(db, patch);
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
async function resolvePatch(db: Queryable, patch: CheckedPatch): Promise<ResolvedPatch> {
  const cited = await readCitedEvidence(db, patch.workflowId, patch.evidenceIds);
  assertAllCited(patch.workflowId, patch.evidenceIds, cited);
  const { provenance, ...fields } = patch;
  const resolved = { ...fields, ...resolvePatchProvenance(provenance, cited) };
  const identity = toCanonicalText(
    {
      ...resolved,
      observedAt: resolved.observedAt?.toISOString() ?? null,
      retrievedAt: resolved.retrievedAt.toISOString(),
    },
    'patch',
  );
  return { ...resolved, sha256: sha256OfBytes(identity), cited };
}

/** Runs {@link applyPatchSql} and reads its answer: the inserted patch, a replay (or reused id), or a stale version. */
async function applyResolved(db: Queryable, patch: ResolvedPatch, now: Date): Promise<StatePatchResult> {
  const rows = await db.query<PatchColumns & { current_version: number | null; inserted: boolean | null }>(
    applyPatchSql(db, patch.expectedVersion === 0),
    [
      storedPatchKey(patch.workflowId, patch.patchId),
      patch.workflowId,
      patch.key,
      patch.valueJson,
      patch.evidenceIds,
      patch.source,
      patch.observedAt,
      patch.retrievedAt,
      patch.expectedVersion,
      patch.callId,
      patch.sha256,
      now,
    ],
  );
  const row = rows[0];
  if (!row) throw new StoreError('internal', { problem: 'patch statement returned nothing' });
  if (row.inserted === true)
    return { applied: true, version: patch.expectedVersion + 1, patch: patchRecordOf(row as PatchRow) };
  if (row.inserted === false) return replayOf(row as PatchRow, patch);
  const currentVersion = row.current_version ?? 0;
  throw new StoreError('version_conflict', {
    workflowId: patch.workflowId,
    key: patch.key,
    expectedVersion: patch.expectedVersion,
    currentVersion,
  });
}

async function existingPatch(db: Queryable, patch: ResolvedPatch): Promise<StatePatchResult | null> {
  const row = (
    await db.query<PatchRow>(`SELECT ${PATCH_COLUMNS} FROM ${db.table('ttc_state_patches')} WHERE patch_id = $1`, [
      storedPatchKey(patch.workflowId, patch.patchId),
    ])
  )[0];
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
    `SELECT ${PATCH_COLUMNS.split(', ')
      .map((c) => `p.${c}`)
      .join(', ')}, s.version AS current_version, s.updated_at
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
    patchId: patchIdOf(row.patch_id, row.workflow_id),
    updatedAt: isoOf(row.updated_at),
  };
}

/** Applied patches of a workflow (optionally one key), in application order. */
export async function listStatePatches(
  db: Queryable,
  filter: { readonly workflowId: string; readonly key?: string },
): Promise<StatePatchRecord[]> {
  const workflowId = checkText(filter.workflowId, 'workflowId');
  const rows =
    filter.key === undefined
      ? await db.query<PatchRow>(
          `SELECT ${PATCH_COLUMNS} FROM ${db.table('ttc_state_patches')} WHERE workflow_id = $1 ORDER BY applied_at, key, version`,
          [workflowId],
        )
      : await db.query<PatchRow>(
          `SELECT ${PATCH_COLUMNS} FROM ${db.table('ttc_state_patches')} WHERE workflow_id = $1 AND key = $2 ORDER BY version`,
          [workflowId, checkText(filter.key, 'key', { allowEmpty: true })],
        );
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
    patchId: patchIdOf(row.patch_id, row.workflow_id),
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
