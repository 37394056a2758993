import type { UntrustedContent } from '../../contract/model-result.js';
import type { EvidenceRecord, ReconciliationRecord } from '../../store/index.js';
import type { ApprovalToSign } from '../../temporal/index.js';
import type { DecideInput, DecideOutput } from '../approve.js';
import type { InspectOutput } from '../inspect.js';
import type { ResolveInput, ResolveOutput } from '../resolve.js';

/** A call waiting for approval with what the decision rests on: the workflow's evidence and untrusted text so far. */
export interface PendingCall {
  /** The request as the worker recorded it and the workflow confirms it (see `approvalToSign`). */
  readonly approval: ApprovalToSign;
  /** Evidence the workflow's earlier calls recorded in the store. */
  readonly evidence: readonly EvidenceRecord[];
  /** Untrusted text the workflow's earlier calls were shown (from their audited model results). */
  readonly untrusted: readonly UntrustedContent[];
}

/** A run whose pending calls could not be read (its worker is down, say): shown, never guessed at. */
export interface UnreadableRun {
  readonly workflowId: string;
  readonly runId: string;
  readonly error: string;
}

/** The console's front page: what waits for a person. */
export interface ConsoleInbox {
  readonly pending: readonly PendingCall[];
  readonly unreadable: readonly UnreadableRun[];
  /** Side effects whose outcome is unknown (reconciling or escalated), with their provider queries and findings. */
  readonly unsettled: readonly ReconciliationRecord[];
}

/** One audited attempt's digests, recomputed on the console's side from the stored record and model result. */
export interface AuditDigestCheck {
  readonly auditId: string;
  readonly attempt: number;
  readonly auditSha256: string;
  /** The record's canonical bytes hash to the recorded `audit_sha256`. */
  readonly auditDigestMatches: boolean;
  /** The model result's canonical bytes hash to the record's `result_sha256`. */
  readonly resultDigestMatches: boolean;
  /**
   * The `audit_sha256` the run's history carries for this audit (the reference its workflow was handed) against the
   * stored one: what catches a record rewritten in the database together with its digest column. `absent`: the
   * history names no digest for it (the run is gone, or the reference carries none).
   */
  readonly history: 'matches' | 'differs' | 'absent';
}

/** One call (or a workflow's calls) as the store knows it, with the audit digests checked. */
export interface CallView {
  readonly inspected: InspectOutput;
  readonly checks: readonly AuditDigestCheck[];
  /** The reconciliation of each call whose outcome was ever unknown, by idempotency key (its result is audited under the reconciliation's own workflow). */
  readonly reconciliations: readonly ReconciliationRecord[];
}

/**
 * What the console reads and does. Every action is the CLI's own (`approve`/`reject`, `resolve`) with the console's
 * operator as the decider: the console holds no other power. Refusals are `CliError`s whose message says why.
 */
export interface ConsoleBackend {
  inbox(): Promise<ConsoleInbox>;
  decide(input: DecideInput): Promise<DecideOutput>;
  resolve(input: ResolveInput): Promise<ResolveOutput>;
  call(filter: { readonly workflowId: string; readonly callId?: string }): Promise<CallView>;
}
