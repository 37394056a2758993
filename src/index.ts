// The root export surface: what a tool's author and a workflow's author use — declare a tool, implement it, read its
// results. Named explicitly and kept small; verification (`./audit`), Temporal (`./temporal`, `./workflows`), storage,
// adapters and the rest live in subpaths (docs/architecture.md lists them all).
export { declareTool, ToolDefinitionError } from './contract/declare-tool.js';
export { implementTool } from './contract/implement-tool.js';
export { ToolRegistry } from './contract/tool-registry.js';
export { ToolError, isToolError } from './contract/tool-error.js';
export { readHttpJson, type HttpJson } from './contract/http-response.js';
export { readFetchJson } from './contract/fetch-response.js';
export { safePath } from './contract/safe-inputs/safe-path.js';
export { publicUrl } from './contract/safe-inputs/public-url.js';
export { shellFreeString } from './contract/safe-inputs/shell-free-string.js';
export { sqlIdentifier } from './contract/safe-inputs/sql-identifier.js';
export {
  DEFAULT_BUDGET,
  type ToolDeclarationSpec,
  type ToolImplementationSpec,
  type ToolDeclaration,
  type ToolImplementation,
  type AnyToolDeclaration,
  type AnyToolImplementation,
  type ToolEffect,
  type ToolBudget,
  type ToolSource,
  type Invariant,
  type FreshnessPolicy,
  type BusinessErrorDeclaration,
  type Authorize,
  type AuthorizationContext,
  type DataScope,
  type ToolContinuation,
  type ToolCallDefaults,
} from './contract/tool-spec.js';
export type {
  ToolOutput,
  HandlerContext,
  Principal,
  EvidenceInput,
  UntrustedInput,
  ConflictInput,
  SideEffectReceipt,
  RawResponse,
  ReconcileOutcome,
} from './contract/tool-handler.js';
export type { ToolFacts } from './contract/tool-facts.js';
export type { ToolExample } from './contract/tool-guidance.js';
export type { ProviderContext } from './contract/bindings.js';
export {
  ERROR_CATALOG,
  type CatalogCode,
  type CatalogEntry,
  type Recovery,
  type ErrorCategory,
} from './contract/error-catalog.js';
export type { Precondition } from './contract/preconditions.js';
export {
  modelResultSchema,
  MODEL_RESULT_SCHEMA_VERSION,
  type ModelResult,
  type TypedModelResult,
  type ModelError,
  type ToolStatus,
  type Evidence,
  type UntrustedContent,
  type Completeness,
  type Provenance,
  type Execution,
} from './contract/model-result.js';
