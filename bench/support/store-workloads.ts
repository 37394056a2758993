import type pg from 'pg';
import { sha256Hex } from '../../src/contract/sha256.js';
import { type ToolExecution } from '../../src/contract/execute-tool.js';
import type { PgToolStore } from '../../src/store/pg/pg-tool-store.js';
import { ordersGet, runCall } from '../../testkit/store-tools.js';

/**
 * One kind of store write, measured two ways on the same database: through the store (`store`) and as raw
 * parameterised statements writing the same rows with no checks (`raw`). Rows are built before timing starts.
 */
export interface Workload<Row> {
  readonly name: string;
  /** What one write is, for the printed notes. */
  readonly description: string;
  rows(this: void, label: string, count: number): Promise<Row[]>;
  store(this: void, row: Row): Promise<unknown>;
  raw(this: void, row: Row): Promise<unknown>;
}

/** Runs `work` in one transaction on one pooled client (the raw baselines' only ceremony). */
async function transaction(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<void>): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await work(client);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

interface PatchRow {
  readonly patchId: string;
  readonly workflowId: string;
  readonly key: string;
  readonly value: { readonly order: string; readonly status: string; readonly total: number };
  readonly evidenceIds: string[];
}

/** A state patch citing evidence of the same workflow (`wf-bench`), on a fresh key (version 0 → 1). */
export function statePatchWorkload(store: PgToolStore, pool: pg.Pool, evidenceIds: string[]): Workload<PatchRow> {
  return {
    name: 'state patch',
    description:
      'store = applyStatePatch (idempotency by patch id, evidence and provenance check, version lock, patch row + pointer); raw = the same two rows in one transaction',
    rows: async (label, count) =>
      Array.from({ length: count }, (_, i) => ({
        patchId: `${label}-${i}`,
        workflowId: 'wf-bench',
        key: `${label}-key-${i}`,
        value: { order: `o-${i}`, status: 'shipped', total: i * 1.5 },
        evidenceIds,
      })),
    store: (row) =>
      store.applyStatePatch({
        ...row,
        source: 'orders-db',
        observedAt: '2026-11-30T11:59:00Z',
        retrievedAt: '2026-11-30T12:00:00Z',
        expectedVersion: 0,
        callId: 'c1',
      }),
    raw: (row) =>
      transaction(pool, async (client) => {
        await client.query(
          `INSERT INTO ttc_state_patches (patch_id, workflow_id, key, value_json, evidence_ids, source, observed_at, retrieved_at, expected_version, version, call_id, patch_sha256, applied_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 0, 1, $9, $10, now())`,
          [
            row.patchId,
            row.workflowId,
            row.key,
            JSON.stringify(row.value),
            row.evidenceIds,
            'orders-db',
            '2026-11-30T11:59:00Z',
            '2026-11-30T12:00:00Z',
            'c1',
            '0'.repeat(64),
          ],
        );
        await client.query(
          'INSERT INTO ttc_state (workflow_id, key, version, patch_id, updated_at) VALUES ($1, $2, 1, $3, now())',
          [row.workflowId, row.key, row.patchId],
        );
      }),
  };
}

/** The column values of one execution's audit, evidence and ledger rows, precomputed for the raw baseline. */
interface LedgerRow {
  readonly execution: ToolExecution;
  readonly workflowId: string;
  readonly audit: readonly unknown[];
  readonly evidence: readonly (readonly unknown[])[];
  readonly modelResultJson: string;
}

/** Real executions (a read with two evidence items) from the contract funnel, each under its own key, with their raw column values. */
async function executionRows(workflowId: string, label: string, count: number): Promise<LedgerRow[]> {
  const rows: LedgerRow[] = [];
  for (let i = 0; i < count; i++) {
    const execution = await runCall(ordersGet, { orderId: `o-${i}` }, { workflowId, callId: `${label}-${i}` });
    const { audit, modelResult } = execution;
    const modelResultJson = JSON.stringify(modelResult);
    const auditJson = JSON.stringify(audit);
    const { bindings } = audit;
    rows.push({
      execution,
      workflowId,
      modelResultJson,
      audit: [
        audit.audit_id,
        workflowId,
        'run-1',
        audit.call_id,
        audit.attempt,
        audit.idempotency_key,
        audit.tool,
        audit.status,
        audit.error_code,
        bindings.request_sha256,
        bindings.result_sha256,
        bindings.call_binding_sha256,
        sha256Hex(auditJson),
        auditJson,
        modelResultJson,
        audit.principal_ref,
      ],
      evidence: modelResult.evidence.map((item) => [
        workflowId,
        audit.call_id,
        item.evidence_id,
        audit.audit_id,
        item.kind,
        item.locator,
        item.supports,
        item.quote ?? null,
        item.observed_at ?? null,
        modelResult.provenance.source_label,
        JSON.stringify(item),
      ]),
    });
  }
  return rows;
}

/** The audit row and its evidence rows, inserted on `client` inside the caller's transaction. */
async function insertAuditAndEvidence(client: pg.PoolClient, row: LedgerRow): Promise<void> {
  await client.query(
    `INSERT INTO ttc_audit (audit_id, workflow_id, run_id, call_id, attempt, idempotency_key, tool, status, error_code, request_sha256, result_sha256, call_binding_sha256, audit_sha256, audit_json, model_result_json, principal_ref, recorded_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, now())`,
    [...row.audit],
  );
  for (const evidence of row.evidence) {
    await client.query(
      `INSERT INTO ttc_evidence (workflow_id, call_id, evidence_id, audit_id, kind, locator, supports, quote, observed_at, source, record_json, recorded_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, now())`,
      [...evidence],
    );
  }
}

/**
 * What the plugin writes for a write: claim the idempotency key, then record the execution (audit row, its evidence
 * rows, ledger → completed).
 */
export function ledgerWorkload(store: PgToolStore, pool: pg.Pool): Workload<LedgerRow> {
  const workflowId = 'wf-bench-ledger';
  return {
    name: 'ledger write',
    description:
      'store = claimIdempotencyKey + recordExecution (checks, canonical JSON, digest verification, ON CONFLICT guards); raw = INSERT ledger row, then one transaction: audit row, 2 evidence rows, UPDATE ledger',
    rows: (label, count) => executionRows(workflowId, label, count),
    store: async ({ execution }) => {
      const { audit } = execution;
      const claim = await store.claimIdempotencyKey({
        idempotencyKey: audit.idempotency_key,
        requestSha256: audit.bindings.request_sha256,
        tool: audit.tool,
        callId: audit.call_id,
        workflowId,
      });
      if (claim.kind !== 'claimed')
        throw new Error(`ledger bench: key ${audit.idempotency_key} was not fresh (${claim.kind})`);
      return store.recordExecution({ execution, workflowId, runId: 'run-1', claimedAt: claim.claimedAt });
    },
    raw: async (row) => {
      const [auditId, , , callId, , key, tool, , , requestSha256] = row.audit;
      await pool.query(
        `INSERT INTO ttc_ledger (idempotency_key, request_sha256, tool, workflow_id, call_id, status, claimed_at) VALUES ($1, $2, $3, $4, $5, 'claimed', now())`,
        [key, requestSha256, tool, row.workflowId, callId],
      );
      await transaction(pool, async (client) => {
        await insertAuditAndEvidence(client, row);
        await client.query(
          `UPDATE ttc_ledger SET status = 'completed', model_result_json = $2, audit_id = $3, completed_at = now() WHERE idempotency_key = $1`,
          [key, row.modelResultJson, auditId],
        );
      });
    },
  };
}

/** What the plugin writes for a read: no claim before it runs, one record that claims and completes the key. */
export function readRecordWorkload(store: PgToolStore, pool: pg.Pool): Workload<LedgerRow> {
  const workflowId = 'wf-bench-read';
  return {
    name: 'read record',
    description:
      'store = recordExecution without a claim (the one-statement path); raw = one transaction: audit row, 2 evidence rows, INSERT completed ledger row',
    rows: (label, count) => executionRows(workflowId, label, count),
    store: ({ execution }) => store.recordExecution({ execution, workflowId, runId: 'run-1' }),
    raw: (row) =>
      transaction(pool, async (client) => {
        const [auditId, , , callId, , key, tool, , , requestSha256] = row.audit;
        await insertAuditAndEvidence(client, row);
        await client.query(
          `INSERT INTO ttc_ledger (idempotency_key, request_sha256, tool, workflow_id, call_id, status, model_result_json, audit_id, claimed_at, completed_at)
           VALUES ($1, $2, $3, $4, $5, 'completed', $6, $7, now(), now())`,
          [key, requestSha256, tool, row.workflowId, callId, row.modelResultJson, auditId],
        );
      }),
  };
}
