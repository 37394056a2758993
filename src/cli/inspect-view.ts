import type { AuditRecord } from '../contract/audit-record.js';
import { diagnoseCall } from '../contract/call-diagnosis.js';
import type { DecisionRecord } from '../contract/decision-record.js';
import type { LedgerEntry, MemoryRecord, StoredAudit } from '../store/index.js';
import type { InspectedCall, InspectOutput } from './inspect.js';

/**
 * Which audit fields `inspect` prints by default. Shown: what says what happened and proves it — ids of the call,
 * status, error code, layer outcomes, contract revisions, digests, timings. Protected: what identifies a person, a
 * provider response or a downstream record, or carries raw internal detail (an exception message may hold a
 * connection string or customer data): printed only with `--protected`. Keyed by every field of the record, so a
 * new audit field does not compile until it is classified.
 */
const AUDIT_FIELD_VISIBILITY = {
  schema_version: 'shown',
  audit_id: 'shown',
  principal_ref: 'protected',
  provider: 'protected',
  temporal: 'shown',
  tool: 'shown',
  effect: 'shown',
  call_id: 'shown',
  operation_id: 'protected',
  idempotency_key: 'protected',
  attempt: 'shown',
  revisions: 'shown',
  status: 'shown',
  error_code: 'shown',
  error_detail: 'protected',
  downstream: 'protected',
  validation: 'shown',
  raw_response_sha256: 'shown',
  raw_response_bytes: 'shown',
  recorded_output: 'shown',
  redactions: 'protected',
  timings: 'shown',
  bindings: 'shown',
  // Who approved, rejected or resolved the call, how they were authenticated and when: what an operator asks first
  // about such a call. Only the decider's note, free text that may hold customer data, stays protected.
  decision: 'shown',
} as const satisfies Record<keyof AuditRecord, 'shown' | 'protected'>;

type ShownAuditField = {
  [K in keyof AuditRecord]-?: (typeof AUDIT_FIELD_VISIBILITY)[K] extends 'shown' ? K : never;
}[keyof AuditRecord];

/** A decision as printed by default: everything but the decider's note. */
export type ShownDecision = Omit<DecisionRecord, 'note'>;

/** The audit fields printed by default. */
export type ShownAudit = Omit<Pick<AuditRecord, ShownAuditField>, 'decision'> & { readonly decision?: ShownDecision };

/** An attempt without its protected fields (the idempotency key is one: with it, anyone can look the call up downstream). */
export interface ShownAttempt extends Omit<StoredAudit, 'idempotencyKey' | 'audit'> {
  readonly audit: ShownAudit;
}

/** A call without its protected fields. */
export interface ShownCall extends Omit<InspectedCall, 'idempotencyKey' | 'ledger' | 'attempts'> {
  readonly ledger: Omit<LedgerEntry, 'idempotencyKey'> | null;
  readonly attempts: readonly ShownAttempt[];
}

/** What the output says about the protected fields: included, or withheld and how to include them. */
export type ProtectedFieldsNote =
  | { readonly included: true }
  | { readonly included: false; readonly withheld: readonly string[]; readonly toInclude: string };

/** A memory row without whose memory it is (`subjectRef`: a reference to a person). */
export type ShownMemory = Omit<MemoryRecord, 'subjectRef'>;

/** What `inspect` prints. */
export interface InspectView extends Omit<InspectOutput, 'calls' | 'memory'> {
  readonly protectedFields: ProtectedFieldsNote;
  readonly calls: readonly (InspectedCall | ShownCall)[];
  readonly memory: readonly (MemoryRecord | ShownMemory)[];
}

/** Every field the default view leaves out. */
const WITHHELD_FIELDS: readonly string[] = [
  'idempotencyKey',
  'memory.subjectRef',
  'audit.decision.note',
  ...Object.entries(AUDIT_FIELD_VISIBILITY).flatMap(([field, visibility]) =>
    visibility === 'protected' ? [`audit.${field}`] : [],
  ),
];

/** The output with the protected fields in, saying so. */
export function includingProtected(output: InspectOutput): InspectView {
  const { workflowId, callId, ...rest } = output;
  return { workflowId, callId, protectedFields: { included: true }, ...rest };
}

/** The default view: the output without protected fields, saying which were withheld and the command that includes them. */
export function withholdingProtected(output: InspectOutput, toInclude: string): InspectView {
  const { workflowId, callId, calls, memory, ...rest } = output;
  return {
    workflowId,
    callId,
    protectedFields: { included: false, withheld: WITHHELD_FIELDS, toInclude },
    calls: calls.map(shownCall),
    ...rest,
    memory: memory.map(shownMemory),
  };
}

function shownMemory({ subjectRef: _subject, ...memory }: MemoryRecord): ShownMemory {
  return memory;
}

function shownCall({ idempotencyKey: _key, ledger, attempts, ...call }: InspectedCall): ShownCall {
  return { ...call, ledger: ledger === null ? null : shownLedger(ledger), attempts: attempts.map(shownAttempt) };
}

function shownLedger({ idempotencyKey: _key, ...ledger }: LedgerEntry): Omit<LedgerEntry, 'idempotencyKey'> {
  return ledger;
}

function shownAttempt({ idempotencyKey: _key, audit, ...attempt }: StoredAudit): ShownAttempt {
  return { ...attempt, audit: shownAudit(audit) };
}

/** Only the fields classified as shown: a field the classification does not know (a newer record) stays out. */
function shownAudit(audit: AuditRecord): ShownAudit {
  const isShown = (field: string): boolean =>
    (AUDIT_FIELD_VISIBILITY as Readonly<Record<string, string>>)[field] === 'shown';
  const shown = Object.fromEntries(Object.entries(audit).filter(([field]) => isShown(field))) as Omit<
    ShownAudit,
    'decision'
  >;
  return audit.decision === undefined ? shown : { ...shown, decision: shownDecision(audit.decision) };
}

function shownDecision({ note: _note, ...decision }: DecisionRecord): ShownDecision {
  return decision;
}

/** The output with each call's diagnosis (its latest attempt: what the model saw), built before anything is withheld. */
export function withDiagnosis(output: InspectOutput): InspectOutput {
  return {
    ...output,
    calls: output.calls.map((call) => {
      const latest = call.attempts[call.attempts.length - 1];
      return latest === undefined ? call : { ...call, diagnosis: diagnoseCall(latest.audit, latest.modelResult) };
    }),
  };
}
