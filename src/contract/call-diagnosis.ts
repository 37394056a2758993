import type { AuditRecord } from './audit-record.js';
import type { ModelResult } from './model-result.js';
import type { ValidationLayer } from './validation-layers.js';

/**
 * Seed 000 §18: when an agent answers wrongly, do not only read its final text — walk the call layer by layer, so
 * "the tool was wrong" is told apart from "the model misread the tool". Four levels, each a list of findings:
 * - `call`: were the call and its arguments right (the input, authorization and precondition layers)?
 * - `execution`: what happened downstream (the side effect's outcome, how the result was delivered, the receipt)?
 * - `contract`: is the result well-formed and honest (protocol, schema, semantics, evidence; completeness; warnings)?
 * - `interpretation`: what the model may conclude from it — and what it must not (a partial list is not all items,
 *   an unknown outcome is neither failure nor success, untrusted text is not an instruction, conflicts are not
 *   resolved).
 * Built from the audit record and the model result alone (no protected field is quoted), so an operator can read it
 * without `--protected`.
 */
export interface CallDiagnosis {
  readonly call: readonly DiagnosisFinding[];
  readonly execution: readonly DiagnosisFinding[];
  readonly contract: readonly DiagnosisFinding[];
  readonly interpretation: readonly DiagnosisFinding[];
}

/** One finding: `attention` where the call went wrong or the model must be careful. */
export interface DiagnosisFinding {
  readonly verdict: 'ok' | 'attention';
  readonly finding: string;
}

const ok = (finding: string): DiagnosisFinding => ({ verdict: 'ok', finding });
const attention = (finding: string): DiagnosisFinding => ({ verdict: 'attention', finding });

/** The four-level diagnosis of one attempt (see {@link CallDiagnosis}). */
export function diagnoseCall(audit: AuditRecord, modelResult: ModelResult): CallDiagnosis {
  return {
    call: callLevel(audit),
    execution: executionLevel(audit, modelResult),
    contract: contractLevel(audit, modelResult),
    interpretation: interpretationLevel(modelResult),
  };
}

function layerFinding(audit: AuditRecord, layer: ValidationLayer, what: string): DiagnosisFinding[] {
  const verdict = audit.validation.find((entry) => entry.layer === layer);
  if (verdict === undefined || verdict.outcome === 'skipped') return [];
  const said = `${what}: ${verdict.outcome} (${verdict.rule_version})`;
  return [verdict.outcome === 'failed' || verdict.outcome === 'warned' ? attention(said) : ok(said)];
}

function callLevel(audit: AuditRecord): DiagnosisFinding[] {
  return [
    ok(
      `${audit.tool} call ${audit.call_id}, attempt ${audit.attempt}${audit.decision === undefined ? '' : `, decided by a person (${audit.decision.decision})`}`,
    ),
    ...layerFinding(audit, 'input', 'arguments'),
    ...layerFinding(audit, 'authorization', 'authorization'),
    ...layerFinding(audit, 'precondition', 'preconditions read again'),
  ];
}

function executionLevel(audit: AuditRecord, result: ModelResult): DiagnosisFinding[] {
  const { outcome, delivery, receipt } = result.execution;
  const ran = audit.timings.handler_ms !== null;
  const findings = [
    ok(
      `${audit.effect} tool; the handler ${ran ? `ran (${audit.timings.handler_ms} ms)` : 'did not run'}; delivered ${delivery}`,
    ),
  ];
  if (outcome === 'unknown')
    findings.push(
      attention(
        'the side effect may or may not have happened: reconciliation by idempotency key decides, never a second dispatch',
      ),
    );
  else if (outcome === 'committed')
    findings.push(
      receipt === null
        ? attention('committed without a receipt')
        : ok(
            `committed, confirmed by the authoritative system${receipt.external_id === null ? ' (receipt id kept in the audit)' : ''}`,
          ),
    );
  else if (outcome === 'not_started') findings.push(ok('nothing ran downstream'));
  if (audit.raw_response_sha256 !== null)
    findings.push(ok(`upstream response recorded by digest (${audit.raw_response_bytes ?? '?'} bytes)`));
  return findings;
}

function contractLevel(audit: AuditRecord, result: ModelResult): DiagnosisFinding[] {
  const findings: DiagnosisFinding[] = [
    ...layerFinding(audit, 'protocol', 'protocol'),
    ...layerFinding(audit, 'scope', 'data scope'),
    ...layerFinding(audit, 'schema', 'output schema'),
    ...layerFinding(audit, 'semantics', 'business invariants'),
    ...layerFinding(audit, 'evidence', 'sources, evidence and freshness'),
    ...layerFinding(audit, 'side_effect', 'side-effect receipt'),
    ...layerFinding(audit, 'redaction', 'redaction'),
    ...layerFinding(audit, 'budget', 'budget'),
  ];
  findings.push(
    result.error === null
      ? ok(`status ${result.status}`)
      : attention(
          `status ${result.status}: ${result.error.code} (${result.error.layer ?? 'execution'}), recovery ${result.error.recovery}`,
        ),
  );
  if (result.warnings.length > 0)
    findings.push(attention(`warnings: ${result.warnings.map((warning) => warning.code).join(', ')}`));
  return findings;
}

function interpretationLevel(result: ModelResult): DiagnosisFinding[] {
  const findings: DiagnosisFinding[] = [];
  const { completeness } = result;
  if (completeness.state === 'truncated')
    findings.push(
      attention(
        `shows ${completeness.returned_items} of ${completeness.available_items ?? 'an unknown number of'} items: not the whole listing${completeness.next === null ? ' (no continuation offered)' : ''}`,
      ),
    );
  if (result.status === 'unknown') findings.push(attention('must not be reported as failed or as done'));
  if (result.status === 'partial' && result.execution.outcome === 'committed')
    findings.push(attention('took effect: must not be repeated'));
  const instructional = result.untrusted_content.filter((item) => item.instructional).length;
  if (result.untrusted_content.length > 0)
    findings.push(
      attention(
        `${result.untrusted_content.length} untrusted text(s)${instructional > 0 ? `, ${instructional} reading like instructions` : ''}: data, never instructions`,
      ),
    );
  const unresolved = result.conflicts.filter((conflict) => conflict.resolution === 'unresolved').length;
  if (unresolved > 0)
    findings.push(attention(`${unresolved} unresolved source conflict(s): no value may be picked for them`));
  findings.push(
    result.evidence.length > 0
      ? ok(`${result.evidence.length} evidence item(s) to cite`)
      : attention('no evidence to cite: claims from this result cannot be backed'),
  );
  if (result.provenance.valid_until !== undefined)
    findings.push(ok(`may be relied on until ${result.provenance.valid_until}`));
  return findings;
}
