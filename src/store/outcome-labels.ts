import { digestJson } from '../contract/sha256.js';
import type { AuditRef } from './ledger.js';
import { checkOptionalText, checkText } from './input-checks.js';
import { StoreError } from './store-error.js';

/** Ground truth a person adds to an audited attempt later: it was accepted but wrong, or refused but right. */
export const OUTCOME_LABELS = ['false_accept', 'false_reject'] as const;
/** One of {@link OUTCOME_LABELS}. */
export type OutcomeLabelKind = (typeof OUTCOME_LABELS)[number];

/** A stored label (append-only: a label is never changed, only added). */
export interface OutcomeLabel {
  readonly labelId: string;
  readonly auditId: string;
  readonly label: OutcomeLabelKind;
  readonly labelledBy: string;
  readonly note: string | null;
  readonly labelledAt: string;
}

/** A label as checked before it is stored; its id is a digest of what it says, so labelling again is a no-op. */
export interface CheckedLabel {
  readonly labelId: string;
  readonly auditId: string;
  readonly label: OutcomeLabelKind;
  readonly labelledBy: string;
  readonly note: string | null;
}

/** Checks a label's input (the audit reference's digests are compared with the stored row by the store). */
export function checkLabel(auditRef: AuditRef, label: unknown, labelledBy: unknown, note: unknown): CheckedLabel {
  if (typeof auditRef !== 'object' || auditRef === null)
    throw new StoreError('invalid_input', { field: 'auditRef', problem: 'not_an_object' });
  const auditId = checkText(auditRef.audit_id, 'auditRef.audit_id');
  if (!OUTCOME_LABELS.includes(label as OutcomeLabelKind))
    throw new StoreError('invalid_input', { field: 'label', problem: 'unknown_label' });
  const checked = {
    auditId,
    label: label as OutcomeLabelKind,
    labelledBy: checkText(labelledBy, 'labelledBy'),
    note: checkOptionalText(note, 'note'),
  };
  return { labelId: `lbl_${digestJson(checked).slice(0, 32)}`, ...checked };
}

/**
 * A label must fit the attempt it judges: `false_accept` only an attempt that was accepted (ended without an
 * error), `false_reject` only one that was refused. Otherwise the rates per rule version would count nonsense.
 */
export function assertLabelFits(label: CheckedLabel, accepted: boolean): void {
  if ((label.label === 'false_accept') !== accepted) {
    throw new StoreError('label_mismatch', { auditId: label.auditId, label: label.label, accepted });
  }
}

/**
 * The stored audit's reference must be the one the caller holds: a label judges exactly that record. The whole-record
 * digest is compared when the caller's reference has one (references from before it existed do not).
 */
export function assertSameAudit(held: AuditRef, stored: AuditRef): void {
  const bindingsDiffer =
    held.request_sha256 !== stored.request_sha256 ||
    held.result_sha256 !== stored.result_sha256 ||
    held.call_binding_sha256 !== stored.call_binding_sha256;
  if (bindingsDiffer || (held.audit_sha256 !== undefined && held.audit_sha256 !== stored.audit_sha256)) {
    throw new StoreError('digest_mismatch', { what: 'audit_ref', auditId: stored.audit_id });
  }
}
