import {
  isStoreError,
  type EvidenceRecord,
  type LedgerEntry,
  type MemoryRecord,
  type StatePatchRecord,
  type StoredAudit,
  type ToolStore,
} from '../store/index.js';
import type { CallDiagnosis } from '../contract/call-diagnosis.js';
import { CliError, EXIT_CODES } from './cli-error.js';

/** One call as the store knows it: the ledger row of its key and every audited attempt (with its model result). */
export interface InspectedCall {
  readonly callId: string;
  readonly idempotencyKey: string;
  readonly ledger: LedgerEntry | null;
  /** The model result of the latest attempt: what the model saw. */
  readonly modelResult: StoredAudit['modelResult'];
  readonly attempts: readonly StoredAudit[];
  /** With `--diagnose`: the latest attempt walked from call to interpretation (seed 000 §18). */
  readonly diagnosis?: CallDiagnosis;
}

/** Everything `inspect` prints. */
export interface InspectOutput {
  readonly workflowId: string;
  readonly callId: string | null;
  readonly calls: readonly InspectedCall[];
  readonly evidence: readonly EvidenceRecord[];
  readonly statePatches: readonly StatePatchRecord[];
  /** Memory the workflow proposed (for one call: memory citing its evidence), with the policy's decision. */
  readonly memory: readonly MemoryRecord[];
}

/**
 * Reads a workflow's calls (or one call) from the store: model results, audit records, evidence, state patches and
 * memory (for one call, the patches it applied and the memory citing its evidence). A workflow or call with no
 * audit row is reported as not found; a row that no longer matches its digest (changed in the database after it was
 * written) is reported, never shown.
 */
export async function inspectCalls(
  store: ToolStore,
  filter: { readonly workflowId: string; readonly callId?: string },
): Promise<InspectOutput> {
  try {
    return await inspectStored(store, filter);
  } catch (error) {
    if (!isStoreError(error) || error.reason !== 'digest_mismatch') throw error;
    const { what, auditId, field } = error.details;
    const text = (value: unknown, fallback: string) => (typeof value === 'string' ? value : fallback);
    throw new CliError(
      `integrity check failed: the ${text(what, 'record')} of audit ${text(auditId, '?')} was changed in the database after it was written (${text(field, 'digest')} does not match); nothing is shown`,
      EXIT_CODES.failure,
      { cause: error },
    );
  }
}

async function inspectStored(
  store: ToolStore,
  filter: { readonly workflowId: string; readonly callId?: string },
): Promise<InspectOutput> {
  const [audits, evidence, patches, memories] = await Promise.all([
    store.listAudits(filter),
    store.listEvidence(filter),
    store.listStatePatches({ workflowId: filter.workflowId }),
    store.listMemories({ workflowId: filter.workflowId }),
  ]);
  if (audits.length === 0) {
    const what =
      filter.callId === undefined
        ? `workflow '${filter.workflowId}'`
        : `call '${filter.callId}' of workflow '${filter.workflowId}'`;
    throw new CliError(`no audited tool call for ${what}`, EXIT_CODES.notFound);
  }
  const byCall = new Map<string, StoredAudit[]>();
  for (const audit of audits) byCall.set(audit.callId, [...(byCall.get(audit.callId) ?? []), audit]);
  const calls = await Promise.all(
    [...byCall].map(async ([callId, attempts]): Promise<InspectedCall> => {
      // listAudits is oldest first, so the last attempt is the one whose result the model saw.
      const latest = attempts[attempts.length - 1]!;
      return {
        callId,
        idempotencyKey: latest.idempotencyKey,
        ledger: await store.getLedgerEntry(latest.idempotencyKey),
        modelResult: latest.modelResult,
        attempts,
      };
    }),
  );
  const statePatches =
    filter.callId === undefined ? patches : patches.filter((patch) => patch.callId === filter.callId);
  const callEvidence = new Set(evidence.map((item) => item.evidenceId));
  const memory =
    filter.callId === undefined
      ? memories
      : memories.filter((item) => item.evidenceIds.some((id) => callEvidence.has(id)));
  return { workflowId: filter.workflowId, callId: filter.callId ?? null, calls, evidence, statePatches, memory };
}
