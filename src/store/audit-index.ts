import type { AuditRecord, LayerOutcome, ValidationLayer } from '../contract/audit-record.js';
import type { ModelResult } from '../contract/model-result.js';

/**
 * What the store copies out of one audited attempt for metrics and provenance checks (table `ttc_audit_facts`):
 * how it ended, the warnings the model saw, and where its data came from and when.
 */
export interface AuditFacts {
  readonly auditId: string;
  readonly tool: string;
  readonly status: ModelResult['status'];
  readonly outcome: ModelResult['execution']['outcome'];
  readonly errorCode: string | null;
  /** The attempt ended without an error (succeeded, or partial because cut): the counterpart of a refusal. */
  readonly accepted: boolean;
  /** Each warning code the model result carried, once, sorted. */
  readonly warnings: readonly string[];
  readonly trust: ModelResult['provenance']['trust'];
  readonly sourceLabel: string;
  readonly observedAt: string | null;
  readonly retrievedAt: string;
}

/** One layer that decided an attempt (table `ttc_audit_layers`); skipped layers decided nothing and are not kept. */
export interface DecidedLayer {
  readonly layer: ValidationLayer;
  readonly outcome: Exclude<LayerOutcome['outcome'], 'skipped'>;
  readonly ruleVersion: string;
}

/** The facts of one attempt, from its audit and the model result it is bound to. */
export function auditFactsOf(audit: AuditRecord, modelResult: ModelResult): AuditFacts {
  return {
    auditId: audit.audit_id,
    tool: audit.tool,
    status: modelResult.status,
    outcome: modelResult.execution.outcome,
    errorCode: audit.error_code,
    accepted: audit.error_code === null,
    warnings: [...new Set(modelResult.warnings.map((warning) => warning.code))].sort(),
    trust: modelResult.provenance.trust,
    sourceLabel: modelResult.provenance.source_label,
    observedAt: modelResult.provenance.observed_at,
    retrievedAt: modelResult.provenance.retrieved_at,
  };
}

/** The layers that decided an attempt, in funnel order. */
export function decidedLayersOf(audit: AuditRecord): DecidedLayer[] {
  return audit.validation.flatMap((entry) => (entry.outcome === 'skipped' ? [] : [{ layer: entry.layer, outcome: entry.outcome, ruleVersion: entry.rule_version }]));
}
