// The workflows module of the integration tests' worker: the package's workflows (as a user re-exports them) plus
// small workflows that drive them. Sandbox-only, like any workflows module.
import { scheduleActivity, workflowInfo } from '@temporalio/workflow';
import type { ToolActivityInput } from '../../activities/tool-activity.js';
import type { ToolCallResult } from '../../workflows/index.js';
import type { Principal } from '../../src/index.js';
import {
  applyStatePatch,
  callTool,
  callTools,
  confirmMemory,
  installApprovalHandlers,
  proposeMemory,
  type BatchCallRequest,
  type CallToolOptions,
  type CallToolsOptions,
  type CorrelatedResult,
  type MemoryOutcome,
  type MemoryRecord,
  type StatePatchResult,
} from '../../workflows/index.js';

export * from '../../workflows/index.js';

/** One tool call. */
export async function runToolCall(name: string, args: unknown, options: CallToolOptions): Promise<ToolCallResult> {
  installApprovalHandlers();
  return callTool(name, args, options);
}

/** A batch of tool calls (one model turn). */
export async function runToolCalls(calls: BatchCallRequest[], options: CallToolsOptions): Promise<CorrelatedResult[]> {
  installApprovalHandlers();
  return callTools(calls, options);
}

/** Calls a listing tool, then each call its result says continues it, until one does not (at most 10 calls). */
export async function followListing(name: string, args: unknown, options: Omit<CallToolOptions, 'callId'>): Promise<ToolCallResult[]> {
  const results = [await callTool(name, args, options)];
  for (let next = results[0]!.modelResult.completeness.continue_with; next !== undefined && results.length < 10; ) {
    const result = await callTool(next.tool, next.arguments, options);
    results.push(result);
    next = result.modelResult.completeness.continue_with;
  }
  return results;
}

/** A read, then a state patch citing the evidence it returned (its id `patchId`, else one made from the workflow id). */
export async function readThenPatch(
  name: string,
  args: unknown,
  options: CallToolOptions & { callId: string; key: string; pointer: string; expectedVersion?: number; claimedSource?: string; patchId?: string },
): Promise<{ read: ToolCallResult; patch: StatePatchResult | null }> {
  const read = await callTool(name, args, options);
  const evidenceIds = read.modelResult.evidence.map((e) => e.evidence_id);
  const data = read.modelResult.data;
  if (evidenceIds.length === 0 || data === null || typeof data !== 'object') return { read, patch: null };
  const value = (data as Record<string, unknown>)[options.pointer.slice(1)];
  const patch = await applyStatePatch({
    patchId: options.patchId ?? `${workflowInfo().workflowId}:${options.key}:${options.callId}`,
    workflowId: workflowInfo().workflowId,
    key: options.key,
    value,
    evidenceIds,
    source: options.claimedSource ?? read.modelResult.provenance.source_label,
    observedAt: read.modelResult.provenance.observed_at,
    retrievedAt: read.modelResult.provenance.retrieved_at,
    expectedVersion: options.expectedVersion ?? 0,
    callId: options.callId,
  });
  return { read, patch };
}

/**
 * A read, then memory from it: the fact it supports (resting on the read's evidence alone), a guess the default
 * policy refuses, and the user's confirmation of the fact.
 */
export async function rememberFromRead(customerId: string, principal: Principal): Promise<{ fact: MemoryOutcome; guess: MemoryOutcome; confirmed: MemoryRecord | null }> {
  const read = await callTool('customers.get', { customer_id: customerId }, { principal, callId: 'call-remember' });
  const evidenceIds = read.modelResult.evidence.map((e) => e.evidence_id);
  const fact = await proposeMemory({ principal, fact: `${customerId} is a gold customer`, kind: 'confirmed_fact', evidenceIds, observedAt: read.modelResult.provenance.observed_at, confidence: 'high' });
  const guess = await proposeMemory({ principal, fact: `${customerId} likes expensive things`, kind: 'model_inference', evidenceIds: [], observedAt: null, confidence: 'low' });
  const confirmed = fact.memory === null ? null : await confirmMemory({ memoryId: fact.memory.memoryId, confirmedBy: principal.subject });
  return { fact, guess, confirmed };
}

/**
 * Schedules a tool's activity directly, without `callTool`, as any workflow on the task queue could (with any input
 * it likes): the tool activity itself must hold the contract, approvals included.
 */
export async function scheduleToolActivity(tool: string, input: ToolActivityInput): Promise<ToolCallResult> {
  return scheduleActivity<ToolCallResult>(tool, [input], { startToCloseTimeout: '30s', retry: { maximumAttempts: 1 } });
}

/** Calls made one after another, each through `callTool` (as an agent that reads again and again does). */
export async function sequentialCalls(calls: readonly { readonly name: string; readonly args: unknown }[], options: CallToolOptions): Promise<ToolCallResult[]> {
  const results: ToolCallResult[] = [];
  for (const call of calls) results.push(await callTool(call.name, call.args, options));
  return results;
}
