import type { Client, WorkflowHandle } from '@temporalio/client';
import type { ModelResult } from '../index.js';
import type { ToolStore } from '../store/index.js';
import { APPROVAL_DECISIONS_QUERY, RECONCILE_STATE_SA, type ApprovalDecisions } from '../temporal/index.js';
import { RECONCILE_WORKFLOW_ID_PREFIX } from '../wire/ids.js';
import type { CitationReport, ModelMessage } from '../../workflows/index.js';
import { compactJson, describeResult } from './describe-result.js';
import { readHistoryFacts } from './demo-history.js';
import { DEMO_TOOLS } from './demo-names.js';
import type { DemoServices } from './services.js';
import type { DemoCase } from './shop-data.js';
import { WRITE_BACK_CALL_ID, type SupportDemoResult } from './support-agent-workflow.js';

/** One tool call of the run, as the model saw its result. */
export interface DemoToolCall {
  readonly tool: string;
  /** The model's call id (`call_<turn>_<n>`), or the write-back's own call id. */
  readonly callId: string;
  readonly status: ModelResult['status'];
  readonly code: string | null;
  readonly outcome: ModelResult['execution']['outcome'];
  readonly delivery: ModelResult['execution']['delivery'];
  readonly completeness: ModelResult['completeness'];
  readonly evidenceIds: readonly string[];
  /** Untrusted texts isolated from the facts, and whether each reads like instructions. */
  readonly untrusted: readonly {
    readonly contentId: string;
    readonly source: string;
    readonly instructional: boolean;
  }[];
  /** One readable line (as the progress output prints it). */
  readonly line: string;
}

/** How the refund was settled: at the provider, in history, and by the reconciliation child. */
export interface DemoRefund {
  readonly idempotencyKey: string;
  /** Refunds the provider committed for this key: exactly one when everything works. */
  readonly committed: number;
  readonly refundIds: readonly string[];
  /** Refund requests that reached the provider for this key (one: the write was never re-sent). */
  readonly providerRequests: number;
  /** Attempts of the refund activity that timed out in the demo workflow's history. */
  readonly timedOutAttempts: number;
}

/** The reconciliation child that settled the refund's unknown outcome. */
export interface DemoReconciliation {
  readonly workflowId: string;
  /** Temporal status of the child (e.g. `COMPLETED`) and its `TtcReconcileState` search attribute. */
  readonly status: string;
  readonly searchAttributeState: string | null;
  /** From the store's reconciliation record. */
  readonly outcome: 'committed' | 'not_committed' | null;
  readonly via: 'receipt' | 'human' | null;
  readonly queries: number;
}

/** Everything the demo shows at the end. */
export interface DemoSummary {
  readonly workflowId: string;
  readonly runId: string;
  readonly namespace: string;
  /** Temporal execution status of the demo workflow, e.g. `COMPLETED`. */
  readonly status: string;
  readonly durationMs: number;
  readonly demoCase: DemoCase;
  readonly approvalMode: 'auto' | 'manual';
  readonly agentStatus: SupportDemoResult['agent']['status'];
  readonly finalAnswer: string | null;
  readonly citations: CitationReport | null;
  /** The answer cites evidence, and every citation is evidence this run's tools returned. */
  readonly citationsValid: boolean;
  /** The agent's calls in order, then the write-back's order read. */
  readonly toolCalls: readonly DemoToolCall[];
  /** The approved call, and who approved it as the workflow verified it (`approvers` has one entry: the decider). */
  readonly approval: {
    readonly callId: string;
    readonly requestSha256: string;
    readonly approvers: readonly string[];
    readonly method: string | null;
  } | null;
  readonly refund: DemoRefund | null;
  /** Refunds committed at the provider for this run (the refund's key). */
  readonly refundsCommitted: number;
  readonly reconciliation: DemoReconciliation | null;
  readonly statePatch: {
    readonly key: string;
    readonly version: number;
    readonly value: unknown;
    readonly evidenceIds: readonly string[];
    /** Every cited evidence id has a stored evidence row of this workflow. */
    readonly evidenceStored: boolean;
  } | null;
}

/** What {@link buildDemoSummary} needs from the finished run. */
export interface SummaryInput {
  readonly client: Client;
  readonly store: ToolStore;
  readonly services: DemoServices;
  readonly handle: WorkflowHandle;
  readonly result: SupportDemoResult;
  readonly transcript: readonly ModelMessage[];
  readonly demoCase: DemoCase;
  readonly approvalMode: 'auto' | 'manual';
  readonly approval: { readonly callId: string; readonly requestSha256: string } | null;
  readonly startedAt: number;
}

/** Gathers the summary from authoritative sources: Temporal (status, history, child), the store, and the provider. */
export async function buildDemoSummary(input: SummaryInput): Promise<DemoSummary> {
  const { client, store, services, handle, result } = input;
  const [description, facts, patches, evidence, decisions] = await Promise.all([
    handle.describe(),
    readHistoryFacts(handle),
    store.listStatePatches({ workflowId: handle.workflowId }),
    store.listEvidence({ workflowId: handle.workflowId }),
    handle.query<ApprovalDecisions>(APPROVAL_DECISIONS_QUERY),
  ]);
  const decided = decisions.decided.find((entry) => entry.callId === input.approval?.callId)?.decision;
  const toolCalls = [
    ...input.transcript.flatMap((message) =>
      message.role === 'tool' ? [toolCall(message.name, message.callId, message.result)] : [],
    ),
    ...(result.writeBack === null
      ? []
      : [toolCall(DEMO_TOOLS.orderGet, WRITE_BACK_CALL_ID, result.writeBack.read.modelResult)]),
  ];
  const childId = facts.reconciliationChildren[0] ?? null;
  const reconciliation = childId === null ? null : await readReconciliation(client, store, childId);
  const refund = reconciliation === null ? null : refundAt(services, reconciliation.key, facts.timedOutActivities);
  const stored = new Set(evidence.map((row) => row.evidenceId));
  const patch = patches[0];
  const citations = result.agent.citations;
  return {
    workflowId: handle.workflowId,
    runId: description.runId,
    namespace: client.options.namespace,
    status: description.status.name,
    durationMs: Date.now() - input.startedAt,
    demoCase: input.demoCase,
    approvalMode: input.approvalMode,
    agentStatus: result.agent.status,
    finalAnswer: result.agent.answer,
    citations,
    citationsValid:
      citations !== null && citations.valid.length > 0 && citations.unknown.length === 0 && !citations.missing,
    toolCalls,
    approval:
      input.approval === null
        ? null
        : {
            ...input.approval,
            approvers: decided?.decision === 'approve' ? [decided.decided_by] : [],
            method: decided?.method ?? null,
          },
    refund,
    refundsCommitted: refund?.committed ?? 0,
    reconciliation: reconciliation?.summary ?? null,
    statePatch:
      patch === undefined
        ? null
        : {
            key: patch.key,
            version: patch.version,
            value: patch.value,
            evidenceIds: patch.evidenceIds,
            evidenceStored: patch.evidenceIds.every((id) => stored.has(id)),
          },
  };
}

function toolCall(tool: string, callId: string, result: ModelResult): DemoToolCall {
  return {
    tool,
    callId,
    status: result.status,
    code: result.error?.code ?? null,
    outcome: result.execution.outcome,
    delivery: result.execution.delivery,
    completeness: result.completeness,
    evidenceIds: result.evidence.map((item) => item.evidence_id),
    untrusted: result.untrusted_content.map((item) => ({
      contentId: item.content_id,
      source: item.source,
      instructional: item.instructional,
    })),
    line: describeResult(result),
  };
}

async function readReconciliation(
  client: Client,
  store: ToolStore,
  workflowId: string,
): Promise<{ key: string; summary: DemoReconciliation }> {
  const key = workflowId.startsWith(RECONCILE_WORKFLOW_ID_PREFIX)
    ? workflowId.slice(RECONCILE_WORKFLOW_ID_PREFIX.length)
    : workflowId;
  const [child, record] = await Promise.all([
    client.workflow.getHandle(workflowId).describe(),
    store.getReconciliation(key),
  ]);
  const state = child.typedSearchAttributes.get(RECONCILE_STATE_SA);
  return {
    key,
    summary: {
      workflowId,
      status: child.status.name,
      searchAttributeState: state ?? null,
      outcome: record?.outcome ?? null,
      via: record?.via ?? null,
      queries: record?.attempts.length ?? 0,
    },
  };
}

function refundAt(services: DemoServices, key: string, timedOut: readonly string[]): DemoRefund {
  const refunds = services.committedRefunds().filter((refund) => refund.idempotency_key === key);
  return {
    idempotencyKey: key,
    committed: refunds.length,
    refundIds: refunds.map((refund) => refund.refund_id),
    providerRequests: services.refundRequests(key),
    timedOutAttempts: timedOut.filter((type) => type === DEMO_TOOLS.refundCreate).length,
  };
}

/**
 * The summary as text for a terminal; `uiUrl` (the dev server's Web UI) adds a link to the workflow, `cli` (how the
 * CLI runs there) prefixes the commands it suggests.
 */
export function formatDemoSummary(summary: DemoSummary, uiUrl: string | null, cli: string): string {
  const lines = [
    `Support agent demo: workflow ${summary.workflowId} ${summary.status} in ${(summary.durationMs / 1000).toFixed(1)} s (agent: ${summary.agentStatus}, approval: ${summary.approvalMode})`,
    uiUrl === null
      ? '  Temporal UI: not running (headless server)'
      : `  Temporal UI: ${uiUrl}/namespaces/${encodeURIComponent(summary.namespace)}/workflows/${encodeURIComponent(summary.workflowId)}`,
    `  Case: customer ${summary.demoCase.customerId}, order ${summary.demoCase.orderId}`,
    'Tool calls (what the model saw):',
    ...summary.toolCalls.map((call) => `  ${call.tool.padEnd(15)} ${call.line}`),
  ];
  if (summary.approval !== null) {
    const by = summary.approval.approvers.length > 0 ? summary.approval.approvers.join(', ') : 'nobody';
    const how = summary.approval.method === null ? '' : ` (${summary.approval.method})`;
    lines.push(
      `Approval: ${summary.approval.callId} approved by ${by}${how}, bound to request digest ${summary.approval.requestSha256.slice(0, 16)}…`,
    );
  }
  if (summary.refund !== null) {
    const r = summary.refund;
    lines.push(
      `Refund: ${r.committed} committed at the provider (${r.refundIds.join(', ') || 'none'}) for idempotency key ${r.idempotencyKey}; ` +
        `${r.providerRequests} request(s) sent, ${r.timedOutAttempts} attempt(s) timed out without an answer`,
    );
  }
  if (summary.reconciliation !== null) {
    const c = summary.reconciliation;
    lines.push(
      `Reconciliation: ${c.workflowId} ${c.status}, ${c.outcome ?? 'unsettled'} via ${c.via ?? '-'} after ${c.queries} provider quer${c.queries === 1 ? 'y' : 'ies'} (TtcReconcileState=${c.searchAttributeState ?? '-'})`,
    );
  }
  if (summary.statePatch !== null) {
    const p = summary.statePatch;
    lines.push(
      `State patch: ${p.key} v${p.version} = ${compactJson(p.value)} citing ${p.evidenceIds.join(', ')}${p.evidenceStored ? ' (evidence stored)' : ' (EVIDENCE MISSING)'}`,
    );
  }
  lines.push(`Final answer: ${summary.finalAnswer ?? '(none)'}`);
  if (summary.citations !== null) {
    const c = summary.citations;
    lines.push(
      `Citations: ${summary.citationsValid ? 'checked' : 'NOT VALID'} — ${c.valid.length} valid, ${c.unknown.length} unknown, ${c.uncited.length} returned but not cited`,
    );
  }
  lines.push(
    `Inspect: ${cli} inspect ${summary.workflowId}   ·   pending: ${cli} pending   ·   unsettled: ${cli} unsettled`,
  );
  return lines.join('\n');
}
