import { auditRefOf, type AuditRef } from '../ledger.js';
import {
  assertLabelFits,
  assertSameAudit,
  checkLabel,
  type OutcomeLabel,
  type OutcomeLabelKind,
} from '../outcome-labels.js';
import { StoreError } from '../store-error.js';
import { copy, type InMemoryTables } from './in-memory-tables.js';

/** Adds a label to an audited attempt; the same label again is a no-op that returns the stored one. */
export function labelOutcome(
  tables: InMemoryTables,
  auditRef: AuditRef,
  label: OutcomeLabelKind,
  labelledBy: string,
  note: string | null,
  now: string,
): OutcomeLabel {
  const checked = checkLabel(auditRef, label, labelledBy, note);
  const stored = tables.audits.get(checked.auditId);
  if (stored === undefined) throw new StoreError('audit_not_found', { auditId: checked.auditId });
  assertSameAudit(auditRef, auditRefOf(stored.audit, stored.auditSha256));
  assertLabelFits(checked, stored.audit.error_code === null);
  const existing = tables.labels.get(checked.labelId);
  if (existing !== undefined) return copy(existing);
  const record: OutcomeLabel = { ...checked, labelledAt: now };
  tables.labels.set(checked.labelId, record);
  return copy(record);
}

/** Labels of some audited attempts, oldest first. */
export function listOutcomeLabels(tables: InMemoryTables, auditIds: readonly string[]): OutcomeLabel[] {
  const wanted = new Set(auditIds);
  return [...tables.labels.values()].filter((label) => wanted.has(label.auditId)).map(copy);
}
