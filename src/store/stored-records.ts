import type { AuditRecord } from '../contract/audit-record.js';
import type { ModelResult } from '../contract/model-result.js';

/** One audit row: the protected record of one attempt, with the model result it is bound to. */
export interface StoredAudit {
  readonly auditId: string;
  readonly workflowId: string;
  readonly runId: string | null;
  readonly callId: string;
  readonly attempt: number;
  readonly idempotencyKey: string;
  readonly recordedAt: string;
  /** SHA-256 of the record's canonical bytes, as recorded (and as history's audit reference carries it). */
  readonly auditSha256: string;
  readonly audit: AuditRecord;
  readonly modelResult: ModelResult;
}

/** One evidence row: an evidence item of a call's model result, with the source it came from. */
export interface EvidenceRecord {
  readonly evidenceId: string;
  readonly workflowId: string;
  readonly callId: string;
  /** The audit row (attempt) that first recorded this evidence. */
  readonly auditId: string;
  readonly kind: string;
  readonly locator: string;
  /** JSON Pointers into the call's `data`. */
  readonly supports: readonly string[];
  readonly quote: string | null;
  readonly observedAt: string | null;
  readonly source: string;
}

/** An artifact read back (after its digest was verified). */
export interface StoredArtifact {
  readonly sha256: string;
  readonly contentType: string;
  readonly bytes: number;
  readonly body: string;
}

/** Filter for listing a workflow's rows, optionally narrowed to one call. */
export interface CallFilter {
  readonly workflowId: string;
  readonly callId?: string;
}
