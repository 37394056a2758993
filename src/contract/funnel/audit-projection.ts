import { auditIdOf } from '../audit-id.js';
import { AUDIT_SCHEMA_VERSION, type AuditRecord } from '../audit-record.js';
import { computeBindings, type TrustedCallInputs } from '../bindings.js';
import { jsonSafe } from '../call-failure.js';
import type { ModelResult } from '../model-result.js';
import { principalRef } from '../principal-ref.js';
import type { Redaction } from '../redaction.js';
import { callRedactor } from '../call-redactor.js';
import {
  boundedRedactions,
  compactErrorDetail,
  compactLayerLog,
  compactRevisions,
  countedRedactions,
  MAX_DETAIL_TEXT_CHARS,
} from './audit-bounds.js';
import { layerLog, type FunnelState } from './funnel-state.js';

/**
 * How much an audit record may say: `full` (redaction records capped, everything else as found), or `compact` for a
 * record that did not fit `MAX_AUDIT_BYTES` that way (redactions counted, the error detail previewed, definition
 * strings cut). The digests are the same either way: they bind the model result, not the audit's wording.
 */
export type AuditDetail = 'full' | 'compact';

/**
 * The protected audit record of one attempt: who called, which provider call it answers, every layer's verdict,
 * the raw digest, redactions and timings, bound to `modelResult` by the three digests of SPEC §2.
 */
export function auditProjection(
  state: FunnelState,
  modelResult: ModelResult,
  errorDetail: unknown,
  detail: AuditDetail = 'full',
): AuditRecord {
  const compact = detail === 'compact';
  const { ctx, tool } = state;
  const trusted: TrustedCallInputs = {
    principal: ctx.principal,
    tool: { name: tool.name, revisions: tool.revisions },
    arguments: state.digestArguments,
    provider: ctx.provider,
    callId: ctx.callId,
    operationId: ctx.operationId,
    idempotencyKey: ctx.idempotencyKey,
  };
  const finishedAt = state.now();
  const auditRedactions: Redaction[] = [];
  // Exception text can carry credentials too; the audit is protected, but secrets still do not belong in it.
  const redactedDetail =
    errorDetail === null
      ? null
      : (callRedactor(tool, ctx, MAX_DETAIL_TEXT_CHARS).value(
          jsonSafe(errorDetail),
          '/audit/error_detail',
          auditRedactions,
        ) as AuditRecord['error_detail']);
  const redactions = [...state.redactions, ...auditRedactions];
  const record: AuditRecord = {
    schema_version: AUDIT_SCHEMA_VERSION,
    audit_id: auditIdOf({
      operationId: ctx.operationId,
      callId: ctx.callId,
      attempt: ctx.attempt,
      sha256: state.sha256,
    }),
    principal_ref: principalRef(ctx.principal, ctx.principalKey, state.sha256),
    provider: {
      provider: ctx.provider.provider,
      api_family: ctx.provider.apiFamily,
      response_id: ctx.provider.responseId,
      provider_call_id: ctx.provider.providerCallId,
      adapter_revision: ctx.provider.adapterRevision,
    },
    temporal: ctx.temporal
      ? {
          workflow_id: ctx.temporal.workflowId,
          run_id: ctx.temporal.runId,
          activity_id: ctx.temporal.activityId,
          attempt: ctx.temporal.attempt,
        }
      : null,
    tool: tool.name,
    effect: tool.effect,
    call_id: ctx.callId,
    operation_id: ctx.operationId,
    idempotency_key: ctx.idempotencyKey,
    attempt: ctx.attempt,
    revisions: compact ? compactRevisions(tool.revisions) : tool.revisions,
    status: modelResult.status,
    error_code: modelResult.error?.code ?? null,
    error_detail: redactedDetail,
    downstream: {
      request_ref: state.downstream.requestRef,
      receipt_external_id: state.receipt?.external_id ?? null,
      committed_at: state.receipt?.committed_at ?? null,
      status_ref: state.downstream.statusRef,
    },
    validation: compact ? compactLayerLog(layerLog(state.verdicts)) : layerLog(state.verdicts),
    raw_response_sha256: state.rawResponse?.sha256 ?? null,
    raw_response_bytes: state.rawResponse?.bytes ?? null,
    ...(state.recording === null
      ? {}
      : {
          recorded_output: {
            artifact_id: `art_${state.recording.sha256}`,
            content_type: state.recording.contentType,
            bytes: state.recording.bytes,
          },
        }),
    redactions: compact ? countedRedactions(redactions) : boundedRedactions(redactions),
    timings: {
      started_at: new Date(state.startedAt).toISOString(),
      finished_at: new Date(finishedAt).toISOString(),
      handler_ms: state.handler?.ms ?? null,
      total_ms: Math.max(0, finishedAt - state.startedAt),
    },
    bindings: computeBindings(trusted, modelResult, state.sha256),
  };
  return compact ? { ...record, error_detail: compactErrorDetail(redactedDetail) } : record;
}
