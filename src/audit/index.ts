// `temporal-tool-contract/audit`: what an auditor (or a host's own checks) needs to verify what a call recorded — the
// canonical JSON and digests the bindings are made of, the bindings themselves, the audit record's schema — and to
// replay recorded calls under changed rules (golden sets). Pure: it runs anywhere. Named explicitly.
export { canonicalJson, CanonicalJsonError, type CanonicalJsonFailure } from '../contract/canonical-json.js';
export { sha256Hex, digestJson, type Sha256Hex } from '../contract/sha256.js';
export {
  verifyAudit,
  computeBindings,
  requestDigest,
  resultDigest,
  callBindingDigest,
  auditDigest,
  type AuditVerification,
  type AuditVerificationInput,
  type AuditCheck,
  type TrustedCallInputs,
  type ToolContractRef,
} from '../contract/bindings.js';
export { principalRef, type PrincipalKey } from '../contract/principal-ref.js';
export { businessIdempotencyKey } from '../contract/idempotency-key.js';
export { verifyExecution } from '../contract/execution-check.js';
export {
  auditRecordSchema,
  AUDIT_SCHEMA_VERSION,
  VALIDATION_LAYERS,
  type AuditRecord,
  type LayerOutcome,
  type ToolRevisions,
} from '../contract/audit-record.js';
export { ERROR_LAYERS, type ErrorLayer, type ValidationLayer } from '../contract/validation-layers.js';
export {
  runGoldenSet,
  type GoldenSetReport,
  type GoldenCaseResult,
  type GoldenSetOptions,
} from '../contract/golden-set.js';
export {
  goldenCaseSchema,
  goldenCaseFromRecording,
  GoldenCaseError,
  type GoldenCase,
  type CaseOutcome,
} from '../contract/golden-case.js';
