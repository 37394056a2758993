import type { AuditRecord, LayerOutcome, ValidationLayer } from '../contract/audit-record.js';
import type { ModelResult } from '../contract/model-result.js';

/** What the store copies out of one audited attempt for the metrics (table `ttc_audit_facts`): how it ended, and the warnings the model saw. */
export interface AuditFacts {
  readonly auditId: string;
  readonly tool: string;
  readonly errorCode: string | null;
  /** The attempt ended without an error (succeeded, or partial because cut): the counterpart of a refusal. */
  readonly accepted: boolean;
  /** Each warning code the model result carried, once, sorted. */
  readonly warnings: readonly string[];
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
    errorCode: audit.error_code,
    accepted: audit.error_code === null,
    warnings: [...new Set(modelResult.warnings.map((warning) => warning.code))].sort(),
  };
}

/** The layers that decided an attempt, in funnel order. */
export function decidedLayersOf(audit: AuditRecord): DecidedLayer[] {
  return audit.validation.flatMap((entry) =>
    entry.outcome === 'skipped'
      ? []
      : [{ layer: entry.layer, outcome: entry.outcome, ruleVersion: entry.rule_version }],
  );
}
