import { jsonSafe, settleFailure, type CallFailure } from '../call-failure.js';
import { MODEL_RESULT_SCHEMA_VERSION, type ModelResult, type Warning } from '../model-result.js';
import type { Redaction } from '../redaction.js';
import type { FunnelState } from './funnel-state.js';
import { appliedArguments } from './applied-arguments.js';
import { declaredProvenance } from './declared-provenance.js';
import { failureEvidence } from './failure-evidence.js';
import { findingWarnings } from '../verification-findings.js';
import { visibleReceipt } from './visible-receipt.js';

/** The model result of a failed call, and the audit's view of the failure. */
export interface FailureProjection {
  readonly modelResult: ModelResult;
  /** What the audit records as `error_detail` (before its own redaction). */
  readonly errorDetail: unknown;
  /** Removals made while building the model result (the receipt id, the applied arguments, the evidence). */
  readonly redactions: readonly Redaction[];
  /** Source label of every evidence id in the model result (for evidence rows in the store). */
  readonly evidenceSources: Readonly<Record<string, string>>;
}

/**
 * The model result of a call that failed at any point, settled by what is known about its side effect (SPEC §4):
 * no data, the catalogued error with the evidence the tool cited for it, the receipt of a write that committed,
 * and the arguments that ran when they differ from what the model sent.
 */
export function failureResult(state: FunnelState, failure: CallFailure): FailureProjection {
  const { tool } = state;
  const settled = settleFailure(failure, tool, state.handler !== null, state.receipt);
  const redactions: Redaction[] = [];
  const applied = appliedArguments(state, redactions);
  const cited = failureEvidence(state, failure, settled.error, redactions);
  const committedWarning: Warning[] =
    settled.outcome === 'committed'
      ? [
          {
            code: 'COMMITTED_OUTPUT_UNVERIFIED',
            message: 'The operation took effect (see receipt) but its output could not be verified. Do not repeat it.',
          },
        ]
      : [];
  const findings = findingWarnings(failure.findings ?? [], state.redactor, redactions, committedWarning.length);
  const modelResult: ModelResult = {
    schema_version: MODEL_RESULT_SCHEMA_VERSION,
    tool: tool.name,
    status: settled.status,
    data: null,
    error: settled.error,
    execution: { outcome: settled.outcome, delivery: 'fresh', receipt: visibleReceipt(state, redactions) },
    completeness: { state: 'unknown', returned_items: 0, available_items: null, next: null },
    provenance: declaredProvenance(state),
    evidence: cited.evidence.map((item) => item.evidence),
    untrusted_content: [],
    conflicts: [],
    warnings: [...committedWarning, ...findings, ...cited.warnings],
    ...(applied === undefined ? {} : { applied_arguments: applied as ModelResult['applied_arguments'] }),
  };
  const errorDetail = {
    layer: failure.layer,
    code: failure.error.code,
    ...(settled.replacedCode ? { replaced_code: settled.replacedCode } : {}),
    detail: jsonSafe(failure.detail),
    // Which trusted values the audit records changed (U+FFFD for a lone surrogate), whatever the failure was.
    ...(state.unrecordableContext.length > 0 ? { unrecordable_context: state.unrecordableContext } : {}),
  };
  const evidenceSources = Object.fromEntries(cited.evidence.map((item) => [item.evidence.evidence_id, item.source]));
  return { modelResult, errorDetail, redactions, evidenceSources };
}
