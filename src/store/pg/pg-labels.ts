import type { AuditRef } from '../ledger.js';
import {
  assertLabelFits,
  assertSameAudit,
  checkLabel,
  type OutcomeLabel,
  type OutcomeLabelKind,
} from '../outcome-labels.js';
import { StoreError } from '../store-error.js';
import { isoOf } from '../timestamps.js';
import { auditRefOfRow } from './pg-audit-rows.js';
import type { Queryable } from './sql-runner.js';

interface LabelRow {
  readonly label_id: string;
  readonly audit_id: string;
  readonly label: OutcomeLabelKind;
  readonly labelled_by: string;
  readonly note: string | null;
  readonly labelled_at: Date;
}

const LABEL_COLUMNS = 'label_id, audit_id, label, labelled_by, note, labelled_at';

/**
 * Adds a label to the audited attempt `auditRef` names (its digests must match the stored row). Append-only and
 * idempotent: the same label by the same person with the same note is stored once, and returned as stored.
 */
export async function labelOutcome(
  db: Queryable,
  auditRef: AuditRef,
  label: OutcomeLabelKind,
  labelledBy: string,
  note: string | null,
  now: Date,
): Promise<OutcomeLabel> {
  const checked = checkLabel(auditRef, label, labelledBy, note);
  const audit = (
    await db.query<{
      audit_id: string;
      request_sha256: string;
      result_sha256: string;
      call_binding_sha256: string;
      audit_sha256: string;
      error_code: string | null;
    }>(
      `SELECT audit_id, request_sha256, result_sha256, call_binding_sha256, audit_sha256, error_code FROM ${db.table('ttc_audit')} WHERE audit_id = $1`,
      [checked.auditId],
    )
  )[0];
  if (audit === undefined) throw new StoreError('audit_not_found', { auditId: checked.auditId });
  assertSameAudit(auditRef, auditRefOfRow(audit));
  assertLabelFits(checked, audit.error_code === null);
  const inserted = await db.query<LabelRow>(
    `INSERT INTO ${db.table('ttc_outcome_labels')} (${LABEL_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (label_id) DO NOTHING RETURNING ${LABEL_COLUMNS}`,
    [checked.labelId, checked.auditId, checked.label, checked.labelledBy, checked.note, now],
  );
  const row =
    inserted[0] ??
    (
      await db.query<LabelRow>(`SELECT ${LABEL_COLUMNS} FROM ${db.table('ttc_outcome_labels')} WHERE label_id = $1`, [
        checked.labelId,
      ])
    )[0];
  if (row === undefined) throw new StoreError('internal', { problem: 'label row vanished' });
  return labelOf(row);
}

/** Labels of some audited attempts, oldest first. */
export async function listOutcomeLabels(db: Queryable, auditIds: readonly string[]): Promise<OutcomeLabel[]> {
  if (auditIds.length === 0) return [];
  const rows = await db.query<LabelRow>(
    `SELECT ${LABEL_COLUMNS} FROM ${db.table('ttc_outcome_labels')} WHERE audit_id = ANY($1::text[]) ORDER BY labelled_at, label_id`,
    [auditIds],
  );
  return rows.map(labelOf);
}

function labelOf(row: LabelRow): OutcomeLabel {
  return {
    labelId: row.label_id,
    auditId: row.audit_id,
    label: row.label,
    labelledBy: row.labelled_by,
    note: row.note,
    labelledAt: isoOf(row.labelled_at),
  };
}
