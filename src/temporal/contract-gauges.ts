import type { WorkflowClient } from '@temporalio/client';
import type { Logger, MetricGauge, MetricMeter } from '@temporalio/common';
import { Runtime } from '@temporalio/worker';
import type { ToolStore } from '../store/tool-store.js';
import { APPROVAL_PENDING_VISIBILITY_QUERY } from '../wire/search-attributes.js';

/**
 * Gauge names (public API, like the counters in `call-metrics.ts`). Each value is sampled from its source of truth —
 * Temporal visibility, the store's reconciliation rounds — never kept as a running count in a worker's memory,
 * which would drift when a worker dies between adding and taking away.
 */
export const PENDING_APPROVALS_METRIC = 'ttc_pending_approvals';
export const UNSETTLED_CALLS_METRIC = 'ttc_unsettled_calls';

/** How often the gauges are sampled when {@link ContractGaugesOptions.intervalMs} is not given. */
export const DEFAULT_GAUGE_INTERVAL_MS = 30_000;

/** Options of {@link startContractGauges}. */
export interface ContractGaugesOptions {
  /** A Temporal client (its namespace labels both gauges, and its visibility is counted). */
  readonly client: {
    readonly options: { readonly namespace: string };
    readonly workflow: Pick<WorkflowClient, 'count'>;
  };
  readonly store: Pick<ToolStore, 'countUnsettledByTool'>;
  /** Milliseconds between samples; the first is taken at start. */
  readonly intervalMs?: number;
  /** Where the gauges go; the Temporal runtime's meter (and so its exporter) by default. */
  readonly meter?: MetricMeter;
  /** Where a failed sample is reported; the Temporal runtime's logger by default. */
  readonly logger?: Logger;
}

/** Running gauges. */
export interface ContractGauges {
  /** Stops sampling and waits for a sample in progress; the gauges keep their last values. */
  stop(): Promise<void>;
}

/**
 * Samples `ttc_pending_approvals` (running workflows whose `TtcApprovalPending` is true) and `ttc_unsettled_calls`
 * (open or escalated reconciliation rounds, by tool) now and every `intervalMs`. Several workers may each run one:
 * they report the same value. A failed sample is logged and leaves that gauge at its previous value; the timer is
 * unref'd, so it never keeps a process alive, but the caller stops it on shutdown.
 */
export function startContractGauges(options: ContractGaugesOptions): ContractGauges {
  const intervalMs = options.intervalMs ?? DEFAULT_GAUGE_INTERVAL_MS;
  if (!Number.isSafeInteger(intervalMs) || intervalMs < 1)
    throw new RangeError(`intervalMs must be a positive integer of milliseconds, got ${String(intervalMs)}`);
  const namespace = options.client.options.namespace;
  const meter = (options.meter ?? Runtime.instance().metricMeter).withTags({ namespace });
  const logger = options.logger ?? Runtime.instance().logger;
  const pending = meter.createGauge(
    PENDING_APPROVALS_METRIC,
    'int',
    'workflows',
    'Running workflows waiting for at least one approval decision (Temporal visibility)',
  );
  const unsettled = unsettledCallsGauge(
    meter.createGauge(
      UNSETTLED_CALLS_METRIC,
      'int',
      'calls',
      'Side effects whose outcome is unknown: open or escalated reconciliation rounds, by tool',
    ),
  );

  const sampled = async (gauge: string, sample: () => Promise<void>): Promise<void> => {
    try {
      await sample();
    } catch (error) {
      logger.warn('a contract gauge sample failed; the gauge keeps its previous value', {
        gauge,
        namespace,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  };
  const sampleBoth = async (): Promise<void> => {
    await Promise.all([
      sampled(PENDING_APPROVALS_METRIC, async () =>
        pending.set((await options.client.workflow.count(APPROVAL_PENDING_VISIBILITY_QUERY)).count),
      ),
      sampled(UNSETTLED_CALLS_METRIC, async () => unsettled.set(await options.store.countUnsettledByTool())),
    ]);
  };

  // At most one sample in flight: a slow store or server skips ticks instead of piling up queries.
  let inFlight: Promise<void> | null = null;
  const tick = () => {
    inFlight ??= sampleBoth().finally(() => {
      inFlight = null;
    });
  };
  tick();
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await inFlight;
    },
  };
}

/**
 * The unsettled-calls gauge by tool. The store lists only tools with unsettled rounds, so a tool reported before
 * and absent now is set to 0 — otherwise its last non-zero value would stay on the exporter forever.
 */
function unsettledCallsGauge(gauge: MetricGauge): { set(byTool: Readonly<Record<string, number>>): void } {
  const reported = new Set<string>();
  return {
    set(byTool) {
      for (const tool of reported) if (!Object.hasOwn(byTool, tool)) gauge.set(0, { tool });
      for (const [tool, count] of Object.entries(byTool)) {
        gauge.set(count, { tool });
        reported.add(tool);
      }
    },
  };
}
