import type { ProviderContext } from './bindings.js';
import type { Principal } from './tool-handler.js';
import type { ProviderRevision } from './provider-revisions.js';
import type { PrincipalKey } from './principal-ref.js';
import type { Sha256Hex } from './sha256.js';

/** Where a call sits in Temporal, when it runs there; recorded in the audit. */
export interface TemporalCoordinates {
  readonly workflowId: string;
  readonly runId: string;
  readonly activityId: string;
  readonly attempt: number;
}

/**
 * Everything trusted about one tool call. The host fills it from its own state (never from model output):
 * the principal, the provider call being answered, and the ids that make the call idempotent and auditable.
 */
export interface ExecutionContext {
  readonly principal: Principal;
  /** Keys the audit's `principal_ref` (HMAC-SHA256); without it the reference is a plain, guessable digest. */
  readonly principalKey?: PrincipalKey;
  readonly provider: ProviderContext;
  /** The call's id within its workflow (stable across attempts). */
  readonly callId: string;
  /** The business operation this call belongs to (stable across attempts). */
  readonly operationId: string;
  readonly idempotencyKey: string;
  /** 1-based attempt number. */
  readonly attempt: number;
  readonly temporal?: TemporalCoordinates;
  /**
   * Keys the cursors the executor seals for tools with a `cursor` continuation (HMAC-SHA256, at least 32 bytes). A
   * host secret: never in history, an audit or a model result. Such a tool refuses to run without it.
   */
  readonly cursorKey?: Uint8Array;
  /**
   * The SHA-256 the call's digests are taken with; defaults to the pure-JavaScript `sha256Hex`, which runs anywhere.
   * A Node host passes `node:crypto`'s (the plugin's activities do): same digests, several times faster on a large
   * result, whose canonical bytes are hashed once per call.
   */
  readonly sha256?: Sha256Hex;
  /** Injectable clock (epoch milliseconds); defaults to `Date.now`. */
  readonly now?: () => number;
  readonly signal?: AbortSignal;
  /** The handler's dispatch fence (see `HandlerContext.beforeDispatch`); without one the fence is open. */
  readonly beforeDispatch?: () => Promise<void>;
  /**
   * The provider bindings the host accepts (issue 27, item 6; see `provider-revisions.ts`): a call bound to any other
   * API family or adapter revision does not run. Absent: every binding is taken as given.
   */
  readonly acceptedProviders?: readonly ProviderRevision[];
}
