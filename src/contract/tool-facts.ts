// What workflow code needs to know about a tool to make a call of it without asking the worker: plain data, so it can
// come from a declaration imported into workflow code or travel as JSON (a catalog the worker describes).
import type { BusinessKeyFields } from './business-key.js';
import type { ToolCallDefaults, ToolEffect } from './tool-spec.js';

/** A tool's facts, as its declaration fixes them. */
export interface ToolFacts {
  readonly name: string;
  readonly effect: ToolEffect;
  /** A person decides each call before it runs (see `ToolDeclarationSpec.requiresApproval`). */
  readonly requiresApproval: boolean;
  /** Where the business key is in the arguments; `null`: each call has its own key. */
  readonly businessKey: BusinessKeyFields | null;
  /** The name business keys are scoped by: the tool's `idempotencyScope`, else its name. */
  readonly keyScope: string;
  readonly callLimit: number | null;
  readonly callDefaults: ToolCallDefaults | null;
  /**
   * A digest of the whole declaration (schemas, effect, approval, policy and the rest). Each call carries it, and a
   * worker runs the call only if it serves the tool under the same revision: a worker deployed with another version
   * of the tool refuses it (`TOOL_REVISION_UNSERVED`) instead of running it under rules the workflow did not decide by.
   */
  readonly revision: string;
}
