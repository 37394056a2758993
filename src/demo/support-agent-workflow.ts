import { workflowInfo } from '@temporalio/workflow';
import {
  agentLoop,
  applyStatePatch,
  callTool,
  type AgentLoopInput,
  type AgentLoopResult,
  type StatePatchResult,
  type ToolCallResult,
} from '../../workflows/index.js';
import { orderGet } from './demo-declarations.js';

/** Input of {@link supportAgentDemo}: the agent loop's input, and the order whose state is written back afterwards. */
export interface SupportDemoInput {
  readonly agent: AgentLoopInput;
  readonly writeBack: { readonly orderId: string };
}

/** What the write-back did: the fresh order read it rests on, and the state patch (null when the read gave no facts). */
export interface SupportDemoWriteBack {
  readonly read: ToolCallResult;
  readonly patch: StatePatchResult | null;
}

/** Result of {@link supportAgentDemo}. */
export interface SupportDemoResult {
  readonly agent: AgentLoopResult;
  /** Null when the agent did not reach a final answer. */
  readonly writeBack: SupportDemoWriteBack | null;
}

/** Call id of the write-back's order read (the loop's own calls are `agent-call-<n>`). */
export const WRITE_BACK_CALL_ID = 'write-back-order-read';

/**
 * The demo support agent: the built-in agent loop (run in this workflow, so its tool calls, approvals, transcript
 * query and evidence belong to this workflow id), then the write-back. Business state is never taken from the chat:
 * the workflow reads the order again from the order system and patches its refund state citing that read's evidence.
 * The loop's input keeps `turnsPerRun` above `maxTurns`, so it never continues as new (which would restart this
 * workflow type with the loop's input).
 */
export async function supportAgentDemo(input: SupportDemoInput): Promise<SupportDemoResult> {
  const agent = await agentLoop(input.agent);
  if (agent.status !== 'final') return { agent, writeBack: null };
  const { workflowId } = workflowInfo();
  const { orderId } = input.writeBack;
  // Called by its declaration: the arguments are checked against its input schema, the data typed by its output.
  const read = await callTool(
    orderGet,
    { order_id: orderId },
    { ...input.agent.toolOptions, principal: input.agent.principal, callId: WRITE_BACK_CALL_ID },
  );
  const result = read.modelResult;
  const evidenceIds = result.evidence.map((evidence) => evidence.evidence_id);
  if (result.status !== 'succeeded' || evidenceIds.length === 0) return { agent, writeBack: { read, patch: null } };
  const order = result.data;
  const key = `order:${orderId}:refund`;
  const patch = await applyStatePatch({
    patchId: `${workflowId}:${key}`,
    key,
    value: { order_id: orderId, refunded_cents: order.refunded_cents, paid_cents: order.paid_cents },
    evidenceIds,
    source: result.provenance.source_label,
    observedAt: result.provenance.observed_at,
    retrievedAt: result.provenance.retrieved_at,
    expectedVersion: 0,
    callId: WRITE_BACK_CALL_ID,
  });
  return { agent, writeBack: { read, patch } };
}
