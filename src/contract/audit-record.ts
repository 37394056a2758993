import { z } from 'zod';
import { decisionRecordSchema } from './decision-record.js';
import { artifactRefSchema, TOOL_STATUSES } from './model-result.js';
import { VALIDATION_LAYERS } from './validation-layers.js';

export { VALIDATION_LAYERS, type ValidationLayer } from './validation-layers.js';

/**
 * `tool-result.audit.v1`: the protected projection (SPEC §2). It is stored by the host (Postgres), never put in
 * Temporal history and never sent to a model. It binds the model result to the exact call with three digests.
 */
export const AUDIT_SCHEMA_VERSION = 'tool-result.audit.v1';

const sha256 = z.string().regex(/^[0-9a-f]{64}$/);
const isoTimestamp = z.iso.datetime({ offset: true });

/** One validation layer's verdict, with the rule version that decided it. */
export const layerOutcomeSchema = z.strictObject({
  layer: z.enum(VALIDATION_LAYERS),
  outcome: z.enum(['passed', 'failed', 'warned', 'skipped']),
  /** Rule set that decided, e.g. `output@<revision>` or `invariant:total-matches-lines@2`. */
  rule_version: z.string(),
  reason: z.string().optional(),
});
export type LayerOutcome = z.infer<typeof layerOutcomeSchema>;

/** Every revision of a tool contract that the bindings commit to. */
export const revisionsSchema = z.strictObject({
  input: z.string(),
  output: z.string(),
  effect: z.string(),
  handler: z.string(),
  producer: z.string(),
  policy: z.string(),
});
export type ToolRevisions = z.infer<typeof revisionsSchema>;

/** The three binding digests of SPEC §2 (request, result, call binding). */
export const bindingsSchema = z.strictObject({
  request_sha256: sha256,
  result_sha256: sha256,
  call_binding_sha256: sha256,
});
export type Bindings = z.infer<typeof bindingsSchema>;

/** Zod schema of `tool-result.audit.v1`. */
export const auditRecordSchema = z.strictObject({
  schema_version: z.literal(AUDIT_SCHEMA_VERSION),
  audit_id: z.string(),
  /** Irreversible digest of tenant + subject; the raw identity is never stored here. */
  principal_ref: sha256,
  provider: z.strictObject({
    provider: z.string(),
    api_family: z.string(),
    response_id: z.string().nullable(),
    provider_call_id: z.string().nullable(),
    adapter_revision: z.string(),
  }),
  temporal: z
    .strictObject({
      workflow_id: z.string(),
      run_id: z.string(),
      activity_id: z.string(),
      attempt: z.number().int().positive(),
    })
    .nullable(),
  tool: z.string(),
  effect: z.enum(['read', 'write', 'destructive']),
  call_id: z.string(),
  operation_id: z.string(),
  idempotency_key: z.string(),
  attempt: z.number().int().positive(),
  revisions: revisionsSchema,
  status: z.enum(TOOL_STATUSES),
  error_code: z.string().nullable(),
  /** Internal failure detail (exception class, thrown code, validation issues). Never shown to a model. */
  error_detail: z.json().nullable(),
  downstream: z.strictObject({
    request_ref: z.string().nullable(),
    receipt_external_id: z.string().nullable(),
    committed_at: isoTimestamp.nullable(),
    status_ref: z.string().nullable(),
  }),
  validation: z.array(layerOutcomeSchema),
  raw_response_sha256: sha256.nullable(),
  raw_response_bytes: z.number().int().nonnegative().nullable(),
  /** The recorded call (arguments and handler output, redacted) of a tool with `recordRawOutput`, for golden cases. */
  recorded_output: artifactRefSchema.optional(),
  redactions: z.array(z.strictObject({ path: z.string(), reason: z.string() })),
  timings: z.strictObject({
    started_at: isoTimestamp,
    finished_at: isoTimestamp,
    handler_ms: z.number().nonnegative().nullable(),
    total_ms: z.number().nonnegative(),
  }),
  bindings: bindingsSchema,
  /**
   * The person's decision this attempt carried out or recorded: the approval an approval-required tool ran on, the
   * rejection that stopped it, or the human resolution that settled it. Absent for calls nobody decided.
   */
  decision: decisionRecordSchema.optional(),
});

/** The protected audit record of one attempt of one tool call. */
export type AuditRecord = z.infer<typeof auditRecordSchema>;
