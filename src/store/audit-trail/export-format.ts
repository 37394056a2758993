// `tool-contract export`: JSON Lines, one object per line, `type` first. A header, every anchor of the chain, the
// records (grouped by the anchor that seals them, unsealed ones last), what the lifecycle removed (retirements,
// erasures, purged artifacts), and a manifest with the counts and the SHA-256 of every line before it.
import { z } from 'zod';
import type { JsonValue } from '../../contract/json-value.js';
import type { AuditAnchor } from './anchor.js';
import type { ArtifactPurge, AuditRetirement, ErasureRecord } from './lifecycle-records.js';
import type { TrailScope } from './trail-report.js';
import type { TrailRow } from './trail-row.js';

/** The export format; the header names it. */
export const AUDIT_EXPORT_FORMAT = 'ttc.audit-export.v1';

/** The first line. */
export interface ExportHeader {
  readonly type: 'header';
  readonly format: typeof AUDIT_EXPORT_FORMAT;
  readonly exported_at: string;
  readonly scope: TrailScope;
  /** Whether records carry their protected fields (the record itself, idempotency key, principal reference). */
  readonly protected: boolean;
}

/**
 * An anchor. `leaves` (base64, 32 bytes each) come with every anchor that seals an exported record, and `complete`
 * says whether all of its records follow (a one-workflow export carries only some).
 */
export type ExportAnchor = {
  readonly type: 'anchor';
  readonly leaves: string | null;
  readonly complete: boolean;
} & AuditAnchor;

/** A record: the audit row's columns, its model result as JSON, and — with `protected` — the record itself. */
export type ExportRecord = {
  readonly type: 'record';
  /** The anchor that seals it, or `null` when it was recorded after the last seal. */
  readonly anchor_no: number | null;
  readonly model_result: JsonValue;
  readonly protected: {
    readonly audit: JsonValue;
    readonly idempotency_key: string;
    readonly principal_ref: string;
  } | null;
} & Omit<TrailRow, 'model_result' | 'protected'>;

/** The last line. `lines_sha256`: SHA-256 of every line before it, each with its newline. */
export interface ExportManifest {
  readonly type: 'manifest';
  readonly records: number;
  readonly sealed_records: number;
  readonly unsealed_records: number;
  readonly anchors: number;
  readonly head: { readonly anchor_no: number; readonly anchor_sha256: string } | null;
  readonly lines_sha256: string;
}

/** Any line of an export. */
export type ExportLine =
  | ExportHeader
  | ExportAnchor
  | ExportRecord
  | ({ readonly type: 'retirement' } & AuditRetirement)
  | ({ readonly type: 'erasure' } & ErasureRecord)
  | ({ readonly type: 'purge' } & ArtifactPurge)
  | ExportManifest;

const hex64 = z.string().regex(/^[0-9a-f]{64}$/);
const decimal = z.string().regex(/^\d{1,20}$/);
const time = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
const day = z.string().regex(/^\d{4}-\d{2}-01$/);

const anchorLine = z.strictObject({
  type: z.literal('anchor'),
  anchor_no: z.number().int().positive(),
  period: day,
  xact_from: decimal,
  xact_to: decimal,
  row_count: z.number().int().positive(),
  merkle_root: hex64,
  prev_anchor_sha256: hex64,
  anchor_sha256: hex64,
  sealed_at: time,
  sealed_by: z.string(),
  key_id: z.string().nullable(),
  signature: z.string().nullable(),
  leaves: z.base64().nullable(),
  complete: z.boolean(),
});

const recordLine = z.strictObject({
  type: z.literal('record'),
  anchor_no: z.number().int().positive().nullable(),
  audit_id: z.string(),
  audit_sha256: hex64,
  xact: decimal,
  seq: decimal,
  recorded_at: time,
  workflow_id: z.string(),
  run_id: z.string().nullable(),
  call_id: z.string(),
  attempt: z.number().int().positive(),
  tool: z.string(),
  status: z.string(),
  error_code: z.string().nullable(),
  request_sha256: hex64,
  result_sha256: hex64,
  call_binding_sha256: hex64,
  model_result: z.json(),
  protected: z.strictObject({ audit: z.json(), idempotency_key: z.string(), principal_ref: z.string() }).nullable(),
});

/** A published anchor (`seal --publish`), or an anchor line of an export: the anchor and nothing it may not carry. */
export const publishedAnchorSchema = anchorLine.extend({
  leaves: z.base64().nullable().optional(),
  complete: z.boolean().optional(),
});

/** Every line of an export, checked: the file is outside input. */
export const exportLineSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('header'),
    format: z.literal(AUDIT_EXPORT_FORMAT),
    exported_at: z.string(),
    scope: z.strictObject({
      since: z.string().optional(),
      until: z.string().optional(),
      workflowId: z.string().optional(),
    }),
    protected: z.boolean(),
  }),
  anchorLine,
  recordLine,
  z.strictObject({
    type: z.literal('retirement'),
    retired_before: day,
    retired_at: time,
    retired_by: z.string(),
    periods: z.array(day),
    anchors: z.number().int().nonnegative(),
    last_anchor_no: z.number().int().positive().nullable(),
    audit_rows: z.number().int().nonnegative(),
    evidence_rows: z.number().int().nonnegative(),
    artifact_rows: z.number().int().nonnegative(),
    ledger_rows: z.number().int().nonnegative(),
    label_rows: z.number().int().nonnegative(),
    anchors_export_sha256: hex64,
  }),
  z.strictObject({
    type: z.literal('erasure'),
    erasure_id: z.string(),
    erased_at: time,
    erased_by: z.string(),
    erased_as: z.string(),
    scope: z.enum(['principal', 'workflow']),
    scope_ref: z.string(),
    reason: z.string().nullable(),
    audit_ids: z.array(z.string()),
    artifacts: z.array(hex64),
    memory_ids: z.array(z.string()),
  }),
  z.strictObject({ type: z.literal('purge'), sha256: hex64, purged_at: time, purged_by: z.string() }),
  z.strictObject({
    type: z.literal('manifest'),
    records: z.number().int().nonnegative(),
    sealed_records: z.number().int().nonnegative(),
    unsealed_records: z.number().int().nonnegative(),
    anchors: z.number().int().nonnegative(),
    head: z.strictObject({ anchor_no: z.number().int().positive(), anchor_sha256: hex64 }).nullable(),
    lines_sha256: hex64,
  }),
]);

/** An export record from a row (the stored JSON texts become JSON values again). */
export function exportRecordOf(row: TrailRow, anchorNo: number | null): ExportRecord {
  const { model_result, protected: hidden, ...columns } = row;
  return {
    type: 'record',
    anchor_no: anchorNo,
    ...columns,
    model_result: JSON.parse(model_result) as JsonValue,
    protected:
      hidden === null
        ? null
        : {
            audit: JSON.parse(hidden.audit) as JsonValue,
            idempotency_key: hidden.idempotency_key,
            principal_ref: hidden.principal_ref,
          },
  };
}
