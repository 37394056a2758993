import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { tsToMs, type Payload } from '@temporalio/common';
import type { AuditRef, HistoryLookup, HistoryReference, TrailRun, TrailScope } from '../store/index.js';
import { toCliError } from './temporal-errors.js';

/**
 * Temporal's side of `verify`'s comparison. The runs: what the namespace's visibility lists in scope (one workflow, or
 * the runs open during the window). The references of a run: found wherever the package's code put them — a tool
 * activity's result, a local activity's marker, a child's or the workflow's result — by decoding every payload of every
 * event (with the client's codec, so encrypted histories are read too) and collecting each value shaped like an audit
 * reference; `null` when Temporal has no such run (never had it, or its namespace's retention removed it).
 */
export function historyLookup(client: Client): HistoryLookup {
  return { runs: (scope) => visibleRuns(client, scope), references: historyReferences(client) };
}

/** The runs visibility lists for the scope: a workflow's by id, else every run that was open at some time in the window. */
async function* visibleRuns(client: Client, scope: TrailScope): AsyncIterable<TrailRun> {
  const { workflowId } = scope;
  // A workflow id with a quote is listed with everything and matched here rather than spliced into a query.
  const query = workflowId !== undefined && !/['"\\]/.test(workflowId) ? `WorkflowId = '${workflowId}'` : undefined;
  for await (const run of client.workflow.list(query === undefined ? {} : { query })) {
    if (workflowId !== undefined && run.workflowId !== workflowId) continue;
    if (scope.until !== undefined && run.startTime >= new Date(scope.until)) continue;
    if (scope.since !== undefined && run.closeTime !== undefined && run.closeTime < new Date(scope.since)) continue;
    yield { workflow_id: run.workflowId, run_id: run.runId };
  }
}

function historyReferences(client: Client): HistoryLookup['references'] {
  const { payloadConverter, payloadCodecs } = client.options.loadedDataConverter;
  const decoded = async (payload: Payload): Promise<unknown> => {
    let payloads = [payload];
    for (const codec of [...payloadCodecs].reverse()) payloads = await codec.decode(payloads);
    try {
      return payloadConverter.fromPayload(payloads[0]!);
    } catch {
      // Not a payload the converter knows (another SDK's, a binary one): it carries no reference of ours.
      return undefined;
    }
  };
  return async (workflowId, runId) => {
    let events;
    try {
      events = (await client.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? [];
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return null;
      throw toCliError(error, workflowId);
    }
    const references: HistoryReference[] = [];
    for (const event of events) {
      const at = new Date(tsToMs(event.eventTime)).toISOString();
      for (const payload of payloadsIn(event)) {
        for (const ref of auditReferencesIn(await decoded(payload))) references.push({ ref, at });
      }
    }
    return references;
  };
}

/** Every Temporal payload (an object with `metadata` and `data` bytes) inside a history event. */
function payloadsIn(value: unknown, found: Payload[] = []): Payload[] {
  if (typeof value !== 'object' || value === null || value instanceof Uint8Array) return found;
  const candidate = value as { metadata?: unknown; data?: unknown };
  if (candidate.data instanceof Uint8Array && typeof candidate.metadata === 'object' && candidate.metadata !== null) {
    found.push(value);
    return found;
  }
  for (const child of Object.values(value)) payloadsIn(child, found);
  return found;
}

const SHA256 = /^[0-9a-f]{64}$/;
const MAX_DEPTH = 32;

/** The values shaped like an audit reference (`AuditRef`) anywhere inside a decoded payload. */
function auditReferencesIn(value: unknown, depth = 0, found: AuditRef[] = []): AuditRef[] {
  if (typeof value !== 'object' || value === null || depth > MAX_DEPTH) return found;
  const ref = value as Partial<Record<keyof AuditRef, unknown>>;
  if (
    typeof ref.audit_id === 'string' &&
    [ref.request_sha256, ref.result_sha256, ref.call_binding_sha256].every(
      (digest) => typeof digest === 'string' && SHA256.test(digest),
    ) &&
    (ref.audit_sha256 === undefined || (typeof ref.audit_sha256 === 'string' && SHA256.test(ref.audit_sha256)))
  ) {
    found.push(value as AuditRef);
    return found;
  }
  for (const child of Object.values(value)) auditReferencesIn(child, depth + 1, found);
  return found;
}
