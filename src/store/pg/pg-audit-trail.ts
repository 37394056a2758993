import type { Pool } from 'pg';
import type { AuditAnchor } from '../audit-trail/anchor.js';
import type { ExportManifest } from '../audit-trail/export-format.js';
import type { AuditRetirement, ErasureRecord } from '../audit-trail/lifecycle-records.js';
import type { TrailReport, TrailScope } from '../audit-trail/trail-report.js';
import { checkText, checkTimestamp } from '../input-checks.js';
import { checkSchemaName, DEFAULT_SCHEMA } from './pg-schema.js';
import { exportAuditTrail, type ExportTrailOptions } from './pg-trail-export.js';
import { eraseScope, retireMonths, type ErasureRequest } from './pg-trail-lifecycle.js';
import { readAnchors } from './pg-trail-rows.js';
import { sealAuditTrail, type SealOptions, type SealReport } from './pg-trail-seal.js';
import { verifyAuditTrail, type VerifyTrailOptions } from './pg-trail-verify.js';
import { poolQueryable, type PgDatabase } from './sql-runner.js';

/**
 * The audit trail of a Postgres store (docs/audit.md): seal what is final into chained anchors, verify, export, and —
 * on the owner's pool — retire months and erase a principal's or a workflow's data. The pool is injected and owned by
 * the caller, like `PgToolStore`'s; `schema` is the one the store's migrations ran in.
 */
export class PgAuditTrail {
  private readonly database: PgDatabase;

  constructor(pool: Pool, options: { readonly schema?: string } = {}) {
    this.database = { pool, schema: checkSchemaName(options.schema ?? DEFAULT_SCHEMA) };
  }

  /** Appends anchors for every audit row whose transaction has ended (see `sealAuditTrail`). */
  seal(options: SealOptions = {}): Promise<SealReport> {
    return sealAuditTrail(this.database, options);
  }

  /** Verifies the trail in scope (see `verifyAuditTrail`). An invalid scope is `INVALID_ARGUMENTS`. */
  verify(options: VerifyTrailOptions = {}): Promise<TrailReport> {
    return verifyAuditTrail(this.database, { ...options, ...checkedScope(options) });
  }

  /** Writes the trail in scope as JSON Lines through `write` (see `exportAuditTrail`). */
  export(options: ExportTrailOptions, write: (text: string) => Promise<void>): Promise<ExportManifest> {
    return exportAuditTrail(this.database, { ...options, ...checkedScope(options) }, write);
  }

  /** Every anchor, oldest first (what `retention` writes out before a cut, and `seal --publish` appends). */
  anchors(): Promise<AuditAnchor[]> {
    return readAnchors(poolQueryable(this.database));
  }

  /** Retires every month before `before` (`YYYY-MM-01`); the owner's pool (see `retireMonths`). */
  retire(before: string, anchorsExportSha256: string): Promise<AuditRetirement | null> {
    return retireMonths(this.database, before, anchorsExportSha256);
  }

  /** Erases a principal's or a workflow's artifact bodies and memory; the owner's pool (see `eraseScope`). */
  erase(request: ErasureRequest): Promise<ErasureRecord> {
    return eraseScope(this.database, request);
  }
}

function checkedScope(scope: TrailScope): TrailScope {
  if (scope.since !== undefined) checkTimestamp(scope.since, 'since');
  if (scope.until !== undefined) checkTimestamp(scope.until, 'until');
  if (scope.workflowId !== undefined) checkText(scope.workflowId, 'workflowId');
  return scope;
}
