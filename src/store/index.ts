// The `./store` entry point: the ToolStore contract, its Postgres and in-memory implementations, and migrations
// (the embedded Postgres and database resolution are in `./testing`). Named explicitly; nothing here is re-exported
// from the package root.
export type {
  ToolStore,
  ToolStoreOptions,
  WorkerStore,
  LedgerStore,
  AuditReader,
  ArtifactStore,
  StateStore,
  MemoryStore,
  ReconciliationStore,
  ApprovalRequestStore,
  MetricsStore,
} from './tool-store.js';
export type {
  ApprovalRequest,
  ApprovalRequestFilter,
  ApprovalRequestInput,
  ApprovalRequestRef,
} from './approval-requests.js';
export { auditRefOf, ledgerStatusFor } from './ledger.js';
export type { AuditRef, ClaimInput, ClaimResult, LedgerEntry, LedgerStatus, RecordExecutionInput } from './ledger.js';
export { LATE_RESULT_ESCALATION, leaseHolder } from './lease.js';
export type {
  Dispatcher,
  DispatchFence,
  DispatchState,
  FenceDecision,
  FenceDispatchInput,
  Lease,
  LeaseRequest,
  LeaseState,
} from './lease.js';
export type { JsonValue } from '../contract/json-value.js';
export type { StateEntry, StatePatchInput, StatePatchRecord, StatePatchResult } from './state-patch.js';
export type { CallFilter, EvidenceRecord, StoredArtifact, StoredAudit } from './stored-records.js';
export type {
  MemoryConfirmation,
  MemoryFilter,
  MemoryOutcome,
  MemoryProposal,
  MemoryRecord,
  MemoryStatus,
} from './memory.js';
export { decideMemoryWrite, DEFAULT_MEMORY_POLICY, MEMORY_SOURCE_KINDS } from './memory-policy.js';
export type { MemoryDecision, MemoryDecisionReason, MemoryPolicy, MemorySourceKind } from './memory-policy.js';
export type {
  EscalationInput,
  OpenReconciliationInput,
  ReconcileFinding,
  ReconciliationAttempt,
  ReconciliationAttemptInput,
  ReconciliationMetrics,
  ReconciliationRecord,
  ReconciliationState,
  SettleReconciliationInput,
} from './reconciliation.js';
export type {
  ContractMetrics,
  LayerMetrics,
  MetricCounts,
  MetricRate,
  MetricsWindow,
  RuleCounts,
  RuleMetrics,
  ToolCounts,
  ToolMetrics,
} from './contract-metrics.js';
export { OUTCOME_LABELS, type OutcomeLabel, type OutcomeLabelKind } from './outcome-labels.js';
export { StoreError, isStoreError, STORE_FAILURE_CODES, type StoreFailure } from './store-error.js';
export { PgToolStore, type PgToolStoreOptions } from './pg/pg-tool-store.js';
export { checkSchemaName, DEFAULT_SCHEMA } from './pg/pg-schema.js';
export { InMemoryToolStore } from './in-memory/in-memory-tool-store.js';
export { PgAuditTrail } from './pg/pg-audit-trail.js';
export type { SealOptions, SealReport } from './pg/pg-trail-seal.js';
export type { VerifyTrailOptions } from './pg/pg-trail-verify.js';
export type { ExportTrailOptions } from './pg/pg-trail-export.js';
export type { ErasureRequest } from './pg/pg-trail-lifecycle.js';
export {
  AUDIT_ANCHOR_VERSION,
  GENESIS_ANCHOR_SHA256,
  type AnchorSigningKey,
  type AuditAnchor,
} from './audit-trail/anchor.js';
export { AUDIT_EXPORT_FORMAT, type ExportLine, type ExportManifest } from './audit-trail/export-format.js';
export type { ArtifactPurge, AuditRetirement, ErasureRecord } from './audit-trail/lifecycle-records.js';
export { parsePublishedAnchors, publishedAnchorLine, PublishedAnchorsError } from './audit-trail/published-anchors.js';
export type { TrailFinding, TrailNote } from './audit-trail/trail-findings.js';
export type {
  HistoryLookup,
  HistoryReference,
  TrailCounts,
  TrailReport,
  TrailRun,
  TrailScope,
} from './audit-trail/trail-report.js';
export { verifyExportLines, type VerifyFileOptions } from './audit-trail/verify-file.js';
export {
  migrate,
  loadMigrations,
  MIGRATIONS_DIR,
  MIGRATIONS_TABLE,
  type MigrateOptions,
  type Migration,
  type MigrationReport,
} from './pg/migrate.js';
export { APPEND_ONLY_SQLSTATE, toStoreError } from './pg/pg-errors.js';
export type { StoreClock } from './timestamps.js';
