import type { AuditRecord, LayerOutcome, ToolRevisions } from '../audit-record.js';
import { canonicalJson } from '../canonical-json.js';
import { cutWithDigest } from '../digest-cut.js';
import type { Redaction } from '../redaction.js';
import { utf8ByteLength } from '../truncation.js';

/**
 * Hard bound on one audit record (canonical JSON, UTF-8). Every part a call controls is capped below it (the
 * redaction records here, failure reasons, receipt and downstream references, host values); a record still over it
 * is made compact, and a successful call whose audit cannot fit is refused (see `finish-execution.ts`).
 */
export const MAX_AUDIT_BYTES = 64 * 1024;

/** Redaction records an audit keeps one by one; the rest are counted in one summary record. */
export const MAX_AUDIT_REDACTIONS = 64;

/** Longest redaction path recorded; a longer one keeps its start and a digest of the whole. */
export const MAX_REDACTION_PATH_CHARS = 128;

/**
 * Longest string of an audit's error detail (exception messages, error details, reasons). It is cut after
 * redaction, so a secret the cut would split is hidden whole, never shown in part.
 */
export const MAX_DETAIL_TEXT_CHARS = 2000;

/** Longest rule version, failure reason or revision in a compact record. */
const COMPACT_TEXT_CHARS = 256;

/** Longest preview of an error detail a compact record keeps (its canonical JSON, cut with a digest). */
const COMPACT_DETAIL_PREVIEW_CHARS = 1024;

/** Size of an audit record as a store keeps it; infinite when canonical JSON cannot express it (nesting too deep). */
export function auditBytes(audit: AuditRecord): number {
  const text = canonicalText(audit);
  return text === null ? Number.POSITIVE_INFINITY : utf8ByteLength(text);
}

/**
 * The first {@link MAX_AUDIT_REDACTIONS} records with bounded paths, then `{ path: '…', reason: 'more:<count>' }`
 * for the rest: one small result can otherwise make thousands of records, each with a path as long as its keys.
 */
export function boundedRedactions(all: readonly Redaction[]): Redaction[] {
  const kept = all
    .slice(0, MAX_AUDIT_REDACTIONS)
    .map((record) => ({ path: cutWithDigest(record.path, MAX_REDACTION_PATH_CHARS), reason: record.reason }));
  return all.length > MAX_AUDIT_REDACTIONS ? [...kept, moreRedactions(all.length - MAX_AUDIT_REDACTIONS)] : kept;
}

/** All redactions of a compact record: their count only. */
export function countedRedactions(all: readonly Redaction[]): Redaction[] {
  return all.length > 0 ? [moreRedactions(all.length)] : [];
}

/** A compact record's layer log: rule versions and reasons cut (with a digest) to a few hundred characters. */
export function compactLayerLog(log: readonly LayerOutcome[]): LayerOutcome[] {
  return log.map((entry) => ({
    ...entry,
    rule_version: cutWithDigest(entry.rule_version, COMPACT_TEXT_CHARS),
    ...(entry.reason === undefined ? {} : { reason: cutWithDigest(entry.reason, COMPACT_TEXT_CHARS) }),
  }));
}

/** A compact record's revisions (the tool definition's own strings), each cut with a digest. */
export function compactRevisions(revisions: ToolRevisions): ToolRevisions {
  const cut = (value: string) => cutWithDigest(value, COMPACT_TEXT_CHARS);
  return {
    input: cut(revisions.input),
    output: cut(revisions.output),
    effect: cut(revisions.effect),
    handler: cut(revisions.handler),
    producer: cut(revisions.producer),
    policy: cut(revisions.policy),
  };
}

/** A compact record's error detail: what the failure was and, of a detail longer than a preview, the preview and size. */
export function compactErrorDetail(errorDetail: AuditRecord['error_detail']): AuditRecord['error_detail'] {
  if (errorDetail === null || typeof errorDetail !== 'object' || Array.isArray(errorDetail)) return errorDetail;
  const { detail, ...failure } = errorDetail;
  const canonical = canonicalText(detail ?? null);
  if (canonical !== null && canonical.length <= COMPACT_DETAIL_PREVIEW_CHARS) return errorDetail;
  // Error details are JSON already (see jsonSafe): when too deep for canonical JSON, plain JSON text still previews them.
  const text = canonical ?? JSON.stringify(detail ?? null);
  return {
    ...failure,
    detail: {
      omitted: 'audit_too_large',
      detail_bytes: utf8ByteLength(text),
      preview: cutWithDigest(text, COMPACT_DETAIL_PREVIEW_CHARS),
    },
  };
}

function canonicalText(value: unknown): string | null {
  try {
    return canonicalJson(value);
  } catch {
    return null;
  }
}

function moreRedactions(count: number): Redaction {
  return { path: '…', reason: `more:${count}` };
}
