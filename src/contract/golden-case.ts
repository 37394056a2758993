import { z } from 'zod';
import { VALIDATION_LAYERS, type AuditRecord, type ValidationLayer } from './audit-record.js';
import { RECORDED_CALL_SCHEMA, type RecordedCall } from './funnel/recording-step.js';
import { TOOL_STATUSES, type ToolStatus } from './model-result.js';

const isoTimestamp = z.iso.datetime({ offset: true });
const jsonPointer = z.string().regex(/^(\/([^~/]|~[01])*)*$/, 'JSON Pointer');
const layer = z.enum(VALIDATION_LAYERS);

/** How one run of a case ended: what the model was told, and which layer and rule versions decided it. */
export const caseOutcomeSchema = z.strictObject({
  status: z.enum(TOOL_STATUSES),
  /** The model-visible error code, `null` when there was none. */
  code: z.string().nullable(),
  /** The layer that refused the result, `null` when none did (a thrown business or catalog code has no layer verdict). */
  failedLayer: layer.nullable(),
  /** The rule version of every layer that decided (passed, warned or failed). */
  rules: z.partialRecord(layer, z.string()),
});

/** How one run of a case ended. */
export interface CaseOutcome {
  readonly status: ToolStatus;
  readonly code: string | null;
  readonly failedLayer: ValidationLayer | null;
  readonly rules: Readonly<Partial<Record<ValidationLayer, string>>>;
}

/**
 * One case of a golden set (one line of a `cases.jsonl`): a call's arguments, what its handler did — the recorded
 * raw output of a real call, or a handler output written by hand — and, optionally, what should happen (`expect`,
 * the ground truth) and what did happen when it was recorded (`recorded`, under the rule versions of that time).
 */
export const goldenCaseSchema = z.strictObject({
  id: z.string().min(1).max(200),
  tool: z.string().min(1),
  arguments: z.json(),
  /** When the call ran: the clock its freshness is judged by on every replay. */
  at: isoTimestamp,
  /** The handler's envelope (`output`), or what it threw (`code` null: an exception that was not a ToolError). */
  handler: z.union([
    z.strictObject({ output: z.json() }),
    z.strictObject({ thrown: z.strictObject({ code: z.string().nullable(), details: z.json().optional() }) }),
  ]),
  expect: z
    .strictObject({
      status: z.enum(TOOL_STATUSES),
      code: z.string().nullable(),
      /** Values the model-visible `data` must hold, by JSON Pointer into `data`. */
      data: z.record(jsonPointer, z.json()).optional(),
    })
    .optional(),
  recorded: caseOutcomeSchema.optional(),
  note: z.string().optional(),
});

/** One case of a golden set; see {@link goldenCaseSchema}. */
export type GoldenCase = z.infer<typeof goldenCaseSchema>;

/** What the audit of one attempt says about how it ended. */
export function outcomeOfAudit(audit: AuditRecord): CaseOutcome {
  const decided = audit.validation.filter((entry) => entry.outcome !== 'skipped');
  return {
    status: audit.status,
    code: audit.error_code,
    failedLayer: decided.find((entry) => entry.outcome === 'failed')?.layer ?? null,
    rules: Object.fromEntries(decided.map((entry) => [entry.layer, entry.rule_version])),
  };
}

/** Why a recording could not become a case. */
export class GoldenCaseError extends Error {
  override readonly name = 'GoldenCaseError';
}

/**
 * Turns a recorded call (a tool with `recordRawOutput`: its audit and the body of the artifact its
 * `recorded_output` names) into a golden case. The recorded outcome becomes `recorded`; `expect` is what the caller
 * knows to be right (by default the recorded outcome, for a call someone has checked).
 */
export function goldenCaseFromRecording(
  audit: AuditRecord,
  recordingBody: string,
  options: { readonly id?: string; readonly expect?: GoldenCase['expect'] | null } = {},
): GoldenCase {
  let parsed: unknown;
  try {
    parsed = JSON.parse(recordingBody);
  } catch {
    throw new GoldenCaseError(`the recording of ${audit.audit_id} is not JSON`);
  }
  if (!isRecordedCall(parsed))
    throw new GoldenCaseError(`the artifact of ${audit.audit_id} is not a ${RECORDED_CALL_SCHEMA} recording`);
  const recording = parsed;
  const recorded = outcomeOfAudit(audit);
  const expect = options.expect === undefined ? { status: recorded.status, code: recorded.code } : options.expect;
  return goldenCaseSchema.parse({
    id: options.id ?? `${audit.tool}/${audit.call_id}/${audit.attempt}`,
    tool: audit.tool,
    arguments: recording.arguments,
    at: audit.timings.started_at,
    handler: recording.handler,
    ...(expect === null ? {} : { expect }),
    recorded,
  });
}

function isRecordedCall(value: unknown): value is RecordedCall {
  return typeof value === 'object' && value !== null && (value as { schema?: unknown }).schema === RECORDED_CALL_SCHEMA;
}
