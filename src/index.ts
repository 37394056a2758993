// The root export surface: named explicitly, kept small. Temporal, store and adapter parts live in subpaths.
export { canonicalJson, CanonicalJsonError, type CanonicalJsonFailure } from './contract/canonical-json.js';
export { sha256Hex, digestJson, type Sha256Hex } from './contract/sha256.js';
export {
  ERROR_CATALOG,
  CATALOG_CODES,
  RECOVERIES,
  ERROR_CATEGORIES,
  isCatalogCode,
  nonRetryableCodes,
  type CatalogCode,
  type CatalogEntry,
  type Recovery,
  type ErrorCategory,
} from './contract/error-catalog.js';
export { ToolError, isToolError, type ToolErrorDetails, type ToolErrorOptions } from './contract/tool-error.js';
export {
  defineTool,
  DEFAULT_BUDGET,
  DEFAULT_MAX_ARGUMENT_BYTES,
  ToolDefinitionError,
  type ToolSpec,
  type ToolDefinition,
  type AnyToolDefinition,
  type ToolEffect,
  type ToolBudget,
  type ToolSource,
  type ToolOutput,
  type Invariant,
  type FreshnessPolicy,
  type BusinessErrorDeclaration,
  type HandlerContext,
  type Principal,
  type EvidenceInput,
  type UntrustedInput,
  type ConflictInput,
  type SideEffectReceipt,
  type RawResponse,
  type ReconcileOutcome,
  type TimeInput,
  type Authorize,
  type AuthorizationContext,
  type DataScope,
  type ToolContinuation,
  type ToolCallDefaults,
} from './contract/define-tool.js';
export type { ReceiptVisibility } from './contract/receipt-visibility.js';
export type { Precondition } from './contract/preconditions.js';
export type { ProviderRevision } from './contract/provider-revisions.js';
export { verifyExecution } from './contract/execution-check.js';
export type { ToolExample } from './contract/tool-guidance.js';
export { ToolRegistry } from './contract/tool-registry.js';
export { executeTool, type ToolExecution, type ArtifactPayload } from './contract/execute-tool.js';
export type { ExecutionContext, TemporalCoordinates } from './contract/execution-context.js';
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
  type ProviderContext,
  type ToolContractRef,
} from './contract/bindings.js';
export { principalRef, type PrincipalKey } from './contract/principal-ref.js';
export { businessIdempotencyKey } from './contract/idempotency-key.js';
export { readHttpJson, type HttpLikeResponse, type HttpJson, type HttpJsonOptions } from './contract/http-response.js';
export { readFetchJson, type FetchedResponse, type FetchBodyReader } from './contract/fetch-response.js';
export { safePath, type SafePathOptions } from './contract/safe-inputs/safe-path.js';
export { publicUrl, type PublicUrlOptions } from './contract/safe-inputs/public-url.js';
export { shellFreeString, type ShellFreeStringOptions } from './contract/safe-inputs/shell-free-string.js';
export { sqlIdentifier, type SqlIdentifierOptions } from './contract/safe-inputs/sql-identifier.js';
export {
  modelResultSchema,
  MODEL_RESULT_SCHEMA_VERSION,
  TOOL_STATUSES,
  type ModelResult,
  type ModelError,
  type ToolStatus,
  type Evidence,
  type UntrustedContent,
  type Completeness,
  type ContinueWith,
  type ItemRange,
  type Provenance,
  type Execution,
} from './contract/model-result.js';
export { auditRecordSchema, AUDIT_SCHEMA_VERSION, VALIDATION_LAYERS, type AuditRecord, type LayerOutcome, type ToolRevisions } from './contract/audit-record.js';
export { ERROR_LAYERS, type ErrorLayer, type ValidationLayer } from './contract/validation-layers.js';
export { runGoldenSet, type GoldenSetReport, type GoldenCaseResult, type GoldenSetOptions } from './contract/golden-set.js';
export { goldenCaseSchema, goldenCaseFromRecording, GoldenCaseError, type GoldenCase, type CaseOutcome } from './contract/golden-case.js';
