import { Context } from '@temporalio/activity';
import type { ApplicationFailure, MetricMeter } from '@temporalio/common';
import { Runtime } from '@temporalio/worker';
import type { ToolEffect } from '../src/contract/tool-spec.js';
import { activityMeter, recordReconciliationMetrics, recordToolCallMetrics } from './call-metrics.js';
import type { CallSpanRef, ReconciliationStep, SettledToolCall, ToolCallTelemetry } from './call-telemetry.js';
import type { ToolCallResult } from './tool-activity.js';

/**
 * Reports a settled attempt: metrics through the runtime's meter, and a span through the host's telemetry when it
 * has one. Telemetry is an observer: a fault in it is logged and never changes or fails the call.
 */
export function reportToolCall(telemetry: ToolCallTelemetry | null, call: SettledToolCall): CallSpanRef | null {
  return observed(() => {
    recordToolCallMetrics(currentActivityMeter(), call);
    return telemetry?.toolCallSettled(call) ?? null;
  }, null);
}

/** Reports a reconciliation step like {@link reportToolCall}. */
export function reportReconciliationStep(telemetry: ToolCallTelemetry | null, step: ReconciliationStep): void {
  observed(() => {
    recordReconciliationMetrics(currentActivityMeter(), step);
    telemetry?.reconciliationStep(step);
  }, undefined);
}

/** The package's meter for the activity running now (see `activityMeter`): the worker's runtime is the installed one. */
function currentActivityMeter(): MetricMeter {
  return activityMeter(Runtime.instance().metricMeter, Context.current().info);
}

function observed<T>(report: () => T, otherwise: T): T {
  try {
    return report();
  } catch (error) {
    Context.current().log.warn('tool call telemetry failed; the call is unaffected', {
      error: error instanceof Error ? error.name : typeof error,
    });
    return otherwise;
  }
}

/** How an attempt ended: with a result, or with the failure it threw to Temporal. */
export type AttemptEnd = { readonly result: ToolCallResult } | { readonly failure: ApplicationFailure };

/** The settled attempt as telemetry sees it: the result's status, code, delivery and outcome, or the failure's type. */
export function settledToolCall(
  tool: { readonly name: string; readonly effect: ToolEffect },
  callId: string,
  attempt: number,
  startedAtMs: number,
  end: AttemptEnd,
): SettledToolCall {
  const base = { tool: tool.name, effect: tool.effect, callId, attempt, startedAtMs, endedAtMs: Date.now() };
  if ('failure' in end)
    return { ...base, status: 'failed', errorCode: end.failure.type ?? null, delivery: null, outcome: null };
  const { status, error, execution } = end.result.modelResult;
  return { ...base, status, errorCode: error?.code ?? null, delivery: execution.delivery, outcome: execution.outcome };
}
