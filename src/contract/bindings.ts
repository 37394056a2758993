import { auditRecordSchema, type AuditRecord, type Bindings, type ToolRevisions } from './audit-record.js';
import type { Principal } from './tool-handler.js';
import type { ModelResult } from './model-result.js';
import { principalRef, type PrincipalKey } from './principal-ref.js';
import { isAcceptedProvider, type ProviderRevision } from './provider-revisions.js';
import { digestJson, type Sha256Hex } from './sha256.js';

/** The model call a tool call answers: which provider, which response, which function call. */
export interface ProviderContext {
  readonly provider: string;
  readonly apiFamily: string;
  readonly responseId: string | null;
  readonly providerCallId: string | null;
  readonly adapterRevision: string;
}

/** The tool contract a digest is bound to: name and every revision. */
export interface ToolContractRef {
  readonly name: string;
  readonly revisions: ToolRevisions;
}

/**
 * `request_sha256`: the business intent. It leaves out call id and idempotency key on purpose, so the same intent
 * is recognisable across retries and new call ids.
 */
export function requestDigest(principal: Principal, tool: ToolContractRef, args: unknown, hash?: Sha256Hex): string {
  return digestJson(
    {
      domain: 'ttc.request.v1',
      tenant: principal.tenant,
      subject: principal.subject,
      tool: tool.name,
      arguments: args,
      input_rev: tool.revisions.input,
      output_rev: tool.revisions.output,
      effect_rev: tool.revisions.effect,
    },
    hash,
  );
}

/** `result_sha256`: exactly the bytes of the model result the model saw (canonical JSON). */
export function resultDigest(modelResult: ModelResult, hash?: Sha256Hex): string {
  return digestJson(modelResult, hash);
}

/**
 * `audit_sha256`: the whole audit record (canonical JSON, exactly the bytes the store keeps). The three bindings
 * cover request, result and call; this digest covers every other field too (downstream receipt, validation
 * outcomes, timings, redactions), and travels to Temporal history in the audit reference.
 */
export function auditDigest(audit: AuditRecord): string {
  return digestJson(audit);
}

/** Everything `call_binding_sha256` commits to. */
export interface CallBindingInput {
  readonly provider: ProviderContext;
  readonly callId: string;
  readonly operationId: string;
  readonly idempotencyKey: string;
  readonly tool: ToolContractRef;
  readonly requestSha256: string;
  readonly resultSha256: string;
}

/** `call_binding_sha256`: ties the result to this provider call, this operation and this idempotency key. */
export function callBindingDigest(input: CallBindingInput, hash?: Sha256Hex): string {
  return digestJson(
    {
      domain: 'ttc.call-binding.v1',
      provider: input.provider.provider,
      api_family: input.provider.apiFamily,
      response_id: input.provider.responseId,
      provider_call_id: input.provider.providerCallId,
      call_id: input.callId,
      operation_id: input.operationId,
      idempotency_key: input.idempotencyKey,
      adapter_rev: input.provider.adapterRevision,
      tool_contract: { name: input.tool.name, revisions: input.tool.revisions },
      request_sha256: input.requestSha256,
      result_sha256: input.resultSha256,
    },
    hash,
  );
}

/** Computes all three bindings from trusted inputs and the model result (with `hash`, the same digests faster). */
export function computeBindings(trusted: TrustedCallInputs, modelResult: ModelResult, hash?: Sha256Hex): Bindings {
  const request_sha256 = requestDigest(trusted.principal, trusted.tool, trusted.arguments, hash);
  const result_sha256 = resultDigest(modelResult, hash);
  const call_binding_sha256 = callBindingDigest(
    { ...trusted, requestSha256: request_sha256, resultSha256: result_sha256 },
    hash,
  );
  return { request_sha256, result_sha256, call_binding_sha256 };
}

/** What the verifier knows independently of the audit record under test. */
export interface TrustedCallInputs {
  readonly principal: Principal;
  readonly tool: ToolContractRef;
  /** The arguments as the tool validated them (the audit's request digest is over these). */
  readonly arguments: unknown;
  readonly provider: ProviderContext;
  readonly callId: string;
  readonly operationId: string;
  readonly idempotencyKey: string;
  /** The host's principal key, when the audit was recorded with one (its `principal_ref` is then an HMAC). */
  readonly principalKey?: PrincipalKey;
}

/**
 * A check {@link verifyAudit} can fail. `identity`: the audit's plain call fields differ from the trusted ones;
 * `audit`: the record is not the one whose `audit_sha256` was recorded (some field changed since).
 */
export type AuditCheck =
  'audit_schema' | 'audit' | 'principal' | 'identity' | 'request' | 'result' | 'call_binding' | 'provider_revision';

/** What {@link verifyAudit} checks: a stored audit and model result against what the verifier trusts. */
export interface AuditVerificationInput {
  readonly modelResult: ModelResult;
  readonly audit: AuditRecord;
  readonly trusted: TrustedCallInputs;
  /**
   * `audit_sha256` as recorded where the audit cannot be rewritten with it (the audit reference in Temporal
   * history). When given, the whole record must still hash to it; when absent, that check is not made.
   */
  readonly auditSha256?: string;
  /**
   * The provider bindings the verifier accepts (seed 001): when given, an audit bound to another API family or adapter
   * revision fails `provider_revision`, whatever its digests say.
   */
  readonly acceptedProviders?: readonly ProviderRevision[];
}

/** Outcome of {@link verifyAudit}: `failed` names every check that did not hold. */
export interface AuditVerification {
  readonly ok: boolean;
  readonly failed: readonly AuditCheck[];
}

/**
 * Recomputes the three bindings from trusted inputs and the model result and compares them with the audit, and —
 * given the recorded `audit_sha256` — the digest of the whole record. A digest that merely looks right proves
 * nothing: every value is recomputed, none is taken from the audit.
 */
export function verifyAudit(input: AuditVerificationInput): AuditVerification {
  const failed: AuditCheck[] = [];
  if (!auditRecordSchema.safeParse(input.audit).success) failed.push('audit_schema');
  if (input.auditSha256 !== undefined && !wholeRecordMatches(input.audit, input.auditSha256)) failed.push('audit');
  let expected: Bindings;
  try {
    expected = computeBindings(input.trusted, input.modelResult);
  } catch {
    // Inputs that cannot be canonicalized cannot match anything that was recorded.
    return { ok: false, failed: [...failed, 'request', 'result', 'call_binding'] };
  }
  const recorded: Partial<Bindings> = input.audit.bindings ?? {};
  if (input.audit.principal_ref !== principalRef(input.trusted.principal, input.trusted.principalKey))
    failed.push('principal');
  if (!plainFieldsMatch(input.audit, input.trusted, input.modelResult)) failed.push('identity');
  if (recorded.request_sha256 !== expected.request_sha256) failed.push('request');
  if (recorded.result_sha256 !== expected.result_sha256) failed.push('result');
  if (recorded.call_binding_sha256 !== expected.call_binding_sha256) failed.push('call_binding');
  const bound = input.audit.provider ?? { api_family: '', adapter_revision: '' };
  if (
    input.acceptedProviders !== undefined &&
    !isAcceptedProvider(
      { apiFamily: bound.api_family, adapterRevision: bound.adapter_revision },
      input.acceptedProviders,
    )
  )
    failed.push('provider_revision');
  return { ok: failed.length === 0, failed };
}

function wholeRecordMatches(audit: AuditRecord, recorded: string): boolean {
  try {
    return auditDigest(audit) === recorded;
  } catch {
    // A record that cannot be canonicalized is not the record that was hashed.
    return false;
  }
}

/**
 * The audit's readable fields must say what the digests say: which tool, call, operation, key and provider call,
 * and the status the model saw. Otherwise a record could be relabelled without touching a digest.
 */
function plainFieldsMatch(audit: AuditRecord, trusted: TrustedCallInputs, modelResult: ModelResult): boolean {
  const provider = audit.provider ?? {};
  return (
    audit.tool === trusted.tool.name &&
    audit.call_id === trusted.callId &&
    audit.operation_id === trusted.operationId &&
    audit.idempotency_key === trusted.idempotencyKey &&
    provider.provider === trusted.provider.provider &&
    provider.api_family === trusted.provider.apiFamily &&
    provider.response_id === trusted.provider.responseId &&
    provider.provider_call_id === trusted.provider.providerCallId &&
    provider.adapter_revision === trusted.provider.adapterRevision &&
    audit.status === modelResult.status
  );
}
