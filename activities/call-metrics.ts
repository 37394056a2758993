import type { MetricMeter } from '@temporalio/common';
import type { ReconciliationStep, SettledToolCall } from './call-telemetry.js';

/**
 * Metric names the worker emits through the Temporal runtime's meter (so they reach whatever exporter the host gave
 * `Runtime.install` — Prometheus, OTLP — next to Temporal's own, with no setup of their own). Public API: dashboards
 * and alerts name them. The exporter may add a suffix (Prometheus: `_total` on counters, `_bucket`/`_sum`/`_count`).
 */
export const TOOL_RESULTS_METRIC = 'ttc_tool_results';
export const FUNNEL_DURATION_METRIC = 'ttc_funnel_duration';
export const RECONCILIATION_STEPS_METRIC = 'ttc_reconciliation_steps';

/**
 * The package's meter in the running activity: the runtime's own meter (`Runtime.instance().metricMeter`), labelled
 * as Temporal Core labels its `temporal_activity_*` series — `namespace`, `task_queue`, `activity_type` and, for an
 * activity of a workflow, `workflow_type` — so a dashboard joins `ttc_*` and `temporal_*` on the same label names
 * without relabelling. Not the activity context's meter: the TypeScript SDK labels that one `taskQueue` and
 * `activityType`, and no tag can be taken off a meter.
 */
export function activityMeter(
  runtimeMeter: MetricMeter,
  activity: {
    readonly namespace: string;
    readonly taskQueue: string;
    readonly activityType: string;
    readonly workflowType?: string | undefined;
  },
): MetricMeter {
  const { namespace, taskQueue, activityType, workflowType } = activity;
  return runtimeMeter.withTags({
    namespace,
    task_queue: taskQueue,
    activity_type: activityType,
    ...(workflowType === undefined ? {} : { workflow_type: workflowType }),
  });
}

/** Label value of a result without an error code (Prometheus has no "absent" label). */
export const NO_ERROR_CODE = 'none';

/**
 * Counts the attempt's result by tool, status and code, and records how long the worker spent on it (ledger,
 * approval check, funnel with the handler, audit) in milliseconds. Labels are names and codes only: bounded sets,
 * never ids or data.
 */
export function recordToolCallMetrics(meter: MetricMeter, call: SettledToolCall): void {
  const labels = { tool: call.tool, status: call.status, code: call.errorCode ?? NO_ERROR_CODE };
  meter
    .createCounter(TOOL_RESULTS_METRIC, 'results', 'Tool call results by tool, status and error code')
    .add(1, labels);
  meter
    .createHistogram(
      FUNNEL_DURATION_METRIC,
      'int',
      'ms',
      'Time the worker spent on one tool call attempt, handler included',
    )
    .record(Math.max(0, Math.round(call.endedAtMs - call.startedAtMs)), { tool: call.tool, status: call.status });
}

/** Counts reconciliation steps by tool, kind (query or resolution) and what they found. */
export function recordReconciliationMetrics(meter: MetricMeter, step: ReconciliationStep): void {
  meter
    .createCounter(RECONCILIATION_STEPS_METRIC, 'steps', 'Reconciliation queries and human resolutions by finding')
    .add(1, { tool: step.tool, kind: step.kind, finding: step.finding });
}
