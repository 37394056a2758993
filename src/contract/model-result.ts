import { z } from 'zod';
import { catalogDisagreements } from './catalog-rule.js';
import { ERROR_CATEGORIES, RECOVERIES } from './error-catalog.js';
import { ERROR_LAYERS } from './validation-layers.js';
import { MODEL_RESULT_SCHEMA_VERSION } from './model-result-version.js';
import { outcomeContradictions } from './outcome-consistency.js';

/**
 * `tool-result.model.v1`: the only projection of a tool call a model ever sees (SPEC §2). Every object is strict:
 * a field that is not declared here cannot reach a model through this schema.
 */
export { MODEL_RESULT_SCHEMA_VERSION };

/**
 * Call status. `partial` = succeeded but incomplete; `unknown` = a side effect may or may not have happened;
 * `accepted` = an asynchronous job was accepted and has not finished (seed 000: "已接收，尚未完成"), see `job`.
 * Appended only, so the published enum keeps its order.
 */
export const TOOL_STATUSES = ['succeeded', 'partial', 'failed', 'needs_input', 'unknown', 'accepted'] as const;
export type ToolStatus = (typeof TOOL_STATUSES)[number];

/** What is known about the side effect. `none` = the call has no side effect (a read that ran). */
export const EXECUTION_OUTCOMES = ['not_started', 'committed', 'unknown', 'none'] as const;
export type ExecutionOutcome = (typeof EXECUTION_OUTCOMES)[number];

/**
 * How this result was obtained: `fresh` (the call ran now), `local_replay` (the ledger's recorded result for the
 * key), `receipt_reconciled` (the authoritative system, asked by key, produced the write's record), `confirmed_absent`
 * (the authoritative system, asked by key, confirmed no such write exists), `human_resolved` (a person decided).
 * Appended only: results recorded before `confirmed_absent` existed say `receipt_reconciled` for an absent write.
 */
export const DELIVERIES = [
  'fresh',
  'local_replay',
  'receipt_reconciled',
  'human_resolved',
  'confirmed_absent',
] as const;
export type Delivery = (typeof DELIVERIES)[number];

const isoTimestamp = z.iso.datetime({ offset: true });
const jsonPointer = z.string().regex(/^(\/([^~/]|~[01])*)*$/, 'JSON Pointer');

/** The model-visible error: a catalog (or declared business) code with its fixed category, recovery and safe text. */
export const modelErrorSchema = z.strictObject({
  code: z.string().regex(/^[A-Z][A-Z0-9_]{1,63}$/),
  category: z.enum(ERROR_CATEGORIES),
  message: z.string(),
  retryable: z.boolean(),
  recovery: z.enum(RECOVERIES),
  retry_after_ms: z.number().int().nonnegative().optional(),
  /** Where the error was decided (seed 003's recovery signal "at which stage"). Set on every new result; optional
   * only so that results recorded before it existed still parse. */
  layer: z.enum(ERROR_LAYERS).optional(),
});
export type ModelError = z.infer<typeof modelErrorSchema>;

/**
 * The authoritative system's confirmation of a write, as the model sees it. `external_id` is `null` when the tool
 * keeps receipt ids out of the model projection (`receiptVisibility: 'audit_only'`); the audit has it either way.
 */
export const receiptSchema = z.strictObject({
  external_id: z.string().nullable(),
  committed_at: isoTimestamp.nullable(),
});
export type Receipt = z.infer<typeof receiptSchema>;

/** What is known about the side effect, and how the data was obtained. */
export const executionSchema = z.strictObject({
  outcome: z.enum(EXECUTION_OUTCOMES),
  delivery: z.enum(DELIVERIES),
  /** The authoritative system's receipt for a committed write; kept even when the output failed validation. */
  receipt: receiptSchema.nullable(),
});
export type Execution = z.infer<typeof executionSchema>;

/** Where to continue a truncated or paginated result: the tool's cursor, or an offset into this call's full result. */
export const continuationSchema = z.strictObject({
  type: z.enum(['cursor', 'offset']),
  value: z.union([z.string(), z.number().int().nonnegative()]),
});
export type Continuation = z.infer<typeof continuationSchema>;

/** The exact call that continues a listing: this tool again, with these arguments (absolute, ready to send). */
export const continueWithSchema = z.strictObject({
  tool: z.string(),
  arguments: z.record(z.string(), z.json()),
});
export type ContinueWith = z.infer<typeof continueWithSchema>;

/** Which items of the whole listing this result shows, counted from 1 (`to` included); `of` is the total, if known. */
export const itemRangeSchema = z
  .strictObject({
    from: z.number().int().positive(),
    to: z.number().int().positive(),
    of: z.number().int().nonnegative().nullable(),
  })
  .refine((r) => r.to >= r.from && (r.of === null || r.of >= r.to), 'a range runs forwards and ends within its total');
export type ItemRange = z.infer<typeof itemRangeSchema>;

/**
 * How much of the result the model sees; a result with a continuation or missing items is never `complete`. A
 * listing also says which items it shows (`range`), the call that continues it (`continue_with`, for tools that
 * declare how they continue) and one sentence a model reads (`notice`). Those three are optional, so every result
 * recorded before they existed still parses.
 */
export const completenessSchema = z
  .strictObject({
    state: z.enum(['complete', 'truncated', 'unknown']),
    returned_items: z.number().int().nonnegative(),
    /** `null` = unknown. Never 0 as a stand-in for "unknown". */
    available_items: z.number().int().nonnegative().nullable(),
    next: continuationSchema.nullable(),
    reason: z.string().optional(),
    range: itemRangeSchema.optional(),
    continue_with: continueWithSchema.optional(),
    notice: z.string().optional(),
  })
  .refine((c) => c.state !== 'complete' || c.next === null, 'a result with a continuation cannot be complete')
  .refine(
    (c) => c.state !== 'complete' || c.available_items === null || c.available_items === c.returned_items,
    'a result missing items cannot be complete',
  )
  .refine((c) => c.continue_with === undefined || c.next !== null, 'a call to continue with needs a continuation')
  .refine(
    (c) => c.range === undefined || c.range.to - c.range.from + 1 === c.returned_items,
    'a range spans the items returned',
  );
export type Completeness = z.infer<typeof completenessSchema>;

/** Where the data came from, and when it was true (`observed_at`) versus when it was read (`retrieved_at`). */
export const provenanceSchema = z.strictObject({
  source_label: z.string(),
  source_type: z.string(),
  producer_revision: z.string(),
  resource_revision: z.string().nullable(),
  /** When the fact was true at the source. */
  observed_at: isoTimestamp.nullable(),
  /** When this call read it. */
  retrieved_at: isoTimestamp,
  trust: z.enum(['untrusted_data', 'trusted_control']),
  /** Until when the result may be relied on, when its tool declares a validity window (`validForMs`). */
  valid_until: isoTimestamp.optional(),
});
export type Provenance = z.infer<typeof provenanceSchema>;

/**
 * One piece of evidence; the id is stable for citation. `supports` are JSON Pointers that resolve in `data` — or,
 * on a result without data, in `error` (evidence a tool cited for its refusal).
 */
export const evidenceSchema = z.strictObject({
  evidence_id: z.string().regex(/^ev_[0-9a-f]{16}$/),
  kind: z.string(),
  locator: z.string(),
  supports: z.array(jsonPointer).min(1),
  quote: z.string().optional(),
  observed_at: isoTimestamp.optional(),
});
export type Evidence = z.infer<typeof evidenceSchema>;

/** Uses a model may make of untrusted text, and uses it may not. Fixed, so no tool can widen them. */
export const UNTRUSTED_ALLOWED_USES = ['quote', 'summarize', 'extract_facts'] as const;
export const UNTRUSTED_FORBIDDEN_USES = [
  'follow_instructions',
  'call_tools',
  'change_permissions',
  'override_policy',
] as const;

/** External free text isolated from the facts, with the fixed uses a model may and may not make of it. */
export const untrustedContentSchema = z.strictObject({
  content_id: z.string().regex(/^uc_[0-9a-f]{16}$/),
  text: z.string(),
  source: z.string(),
  /** True when the text reads like instructions to an agent (a prompt-injection signal, not a verdict). */
  instructional: z.boolean(),
  allowed_uses: z.array(z.enum(UNTRUSTED_ALLOWED_USES)),
  forbidden_uses: z.array(z.enum(UNTRUSTED_FORBIDDEN_USES)),
});
export type UntrustedContent = z.infer<typeof untrustedContentSchema>;

/** Sources disagreeing on one field of `data`: reported, never silently resolved. */
export const conflictSchema = z.strictObject({
  field: jsonPointer,
  values: z.array(z.strictObject({ value: z.json(), source: z.string() })).min(2),
  /**
   * `unresolved`; `calculation` when the tool declared an aggregation rule for the field (named in `rule`);
   * `authoritative` when the tool names the source that decides the field and `data` holds its value (`rule`:
   * `source:<label>`). Appended only.
   */
  resolution: z.enum(['unresolved', 'calculation', 'authoritative']),
  rule: z.string().optional(),
});
export type Conflict = z.infer<typeof conflictSchema>;

/** A non-fatal note for the model (stale data, omitted evidence, a committed write whose output was not verified). */
export const warningSchema = z.strictObject({
  code: z.string().regex(/^[A-Z][A-Z0-9_]{1,63}$/),
  message: z.string(),
});
export type Warning = z.infer<typeof warningSchema>;

/**
 * The asynchronous job an `accepted` call started: the authoritative system's handle for it, and how long to wait
 * before asking about it (`null`: the system did not say). The job's own result is not known yet.
 */
export const jobSchema = z.strictObject({
  handle: z.string().min(1),
  poll_after_ms: z.number().int().nonnegative().nullable(),
});
export type Job = z.infer<typeof jobSchema>;

/** Reference to the full result stored out of band (protected storage), named by its SHA-256. */
export const artifactRefSchema = z.strictObject({
  artifact_id: z.string().regex(/^art_[0-9a-f]{64}$/),
  content_type: z.string(),
  bytes: z.number().int().nonnegative(),
});
export type ArtifactRef = z.infer<typeof artifactRefSchema>;

/**
 * Seed 000's presentation of a result: a sentence for the model (`model_content`) that says what `data` says (its
 * figures, dates and ids are values of `data`), and whether it may be shown to the user.
 */
export const presentationSchema = z.strictObject({
  model_content: z.string(),
  user_visible: z.boolean(),
});
export type Presentation = z.infer<typeof presentationSchema>;

/**
 * The fields of `tool-result.model.v1` without the cross-field rules, for deriving per-tool variants (`.extend`
 * cannot be applied to a refined schema). Validate with {@link modelResultSchema}.
 */
export const modelResultObjectSchema = z.strictObject({
  schema_version: z.literal(MODEL_RESULT_SCHEMA_VERSION),
  tool: z.string(),
  status: z.enum(TOOL_STATUSES),
  data: z.json().nullable(),
  error: modelErrorSchema.nullable(),
  execution: executionSchema,
  completeness: completenessSchema,
  provenance: provenanceSchema,
  evidence: z.array(evidenceSchema),
  untrusted_content: z.array(untrustedContentSchema),
  conflicts: z.array(conflictSchema),
  warnings: z.array(warningSchema),
  /** Present only when the arguments that ran differ from what the model sent (parameter fidelity). */
  applied_arguments: z.json().optional(),
  /** The full result, when it was over budget; stored out of band and verified by digest. */
  artifact: artifactRefSchema.optional(),
  /** The job an `accepted` call started; present exactly when the status is `accepted`. */
  job: jobSchema.optional(),
  /** How the result may be presented (seed 000), when its handler gave a presentation its data supports. */
  presentation: presentationSchema.optional(),
});

/**
 * Zod schema of `tool-result.model.v1`. `data` is checked against the tool's own output schema separately, and so
 * is a business code against the tool's declaration; a catalog code's category, recovery, retryability and message
 * are checked here, so a result whose error was edited cannot pass.
 */
export const modelResultSchema = modelResultObjectSchema.superRefine((result, ctx) => {
  for (const problem of statusInconsistencies(result))
    ctx.addIssue({ code: 'custom', message: problem, path: ['status'] });
  for (const problem of outcomeContradictions(result))
    ctx.addIssue({ code: 'custom', message: problem, path: ['execution'] });
  if (result.error === null) return;
  for (const problem of catalogDisagreements(result.error))
    ctx.addIssue({ code: 'custom', message: problem, path: ['error'] });
});

/**
 * The rules that tie `status` to the other fields (SPEC §2): a failed or unknown call carries no data and an error;
 * a success carries no error and is complete; `partial` is either truncated or a committed write whose output
 * could not be verified; an accepted job has a job handle, no data and no error, and an unknown outcome. A receipt
 * only ever accompanies a committed side effect.
 */
function statusInconsistencies(result: {
  status: ToolStatus;
  data: unknown;
  error: unknown;
  execution: { outcome: ExecutionOutcome; receipt: unknown };
  completeness: { state: string };
  job?: unknown;
}): string[] {
  const problems: string[] = [];
  const { status, data, error, execution, completeness, job } = result;
  if ((status === 'failed' || status === 'unknown' || status === 'needs_input') && (data !== null || error === null)) {
    problems.push(`a ${status} result has no data and carries an error`);
  }
  if (status === 'succeeded' && (error !== null || completeness.state !== 'complete')) {
    problems.push('a succeeded result has no error and is complete');
  }
  if (
    status === 'partial' &&
    completeness.state === 'complete' &&
    !(error !== null && execution.outcome === 'committed')
  ) {
    problems.push('a partial result is truncated, or a committed write with an unverified output');
  }
  if (status === 'unknown' && execution.outcome !== 'unknown')
    problems.push('an unknown result has an unknown outcome');
  if ((status === 'accepted') !== (job !== undefined)) problems.push('an accepted result, and only one, names its job');
  if (status === 'accepted' && (data !== null || error !== null || execution.outcome !== 'unknown')) {
    problems.push('an accepted job has no data or error yet, and its outcome is unknown until it finishes');
  }
  if (execution.receipt !== null && execution.outcome !== 'committed')
    problems.push('a receipt means the side effect committed');
  return problems;
}

/** The model-visible projection of a tool call. */
export type ModelResult = z.infer<typeof modelResultSchema>;

/**
 * A model result whose `data` is typed by its tool's output schema: a succeeded call carries data, a partial one may
 * (a truncated listing does; a committed write whose output could not be verified does not), any other none.
 */
export type TypedModelResult<Data> = Omit<ModelResult, 'status' | 'data'> &
  (
    | { readonly status: 'succeeded'; readonly data: Data }
    | { readonly status: 'partial'; readonly data: Data | null }
    | { readonly status: Exclude<ToolStatus, 'succeeded' | 'partial'>; readonly data: null }
  );
