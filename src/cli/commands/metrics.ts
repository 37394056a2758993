import { optionalString, parseCommandArgs, usageError } from '../command-args.js';
import type { OperatorCommandSpec } from '../command.js';
import type { MetricsReport } from '../metrics.js';

/** The window of `metrics`: audits recorded (and reconciliations opened) since `since`, or everything. */
export interface MetricsInput {
  readonly since?: string;
}

const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/** `metrics`: seed 004's validation metrics from the audit records. */
export const metricsCommand: OperatorCommandSpec<MetricsInput, MetricsReport> = {
  name: 'metrics',
  usage: {
    synopsis: 'metrics [--since <ISO time>]',
    description: [
      'schema / invariant / stale-data / protocol failure rates, unknown side effects and',
      "time to settle, from the audit records (seed 004's metrics), with a Markdown table",
    ],
  },
  parse: (args) => {
    const since = optionalString(parseCommandArgs(args, { since: { type: 'string' } }).values, 'since');
    if (since === undefined) return {};
    if (!ISO_WITH_OFFSET.test(since) || Number.isNaN(Date.parse(since))) throw usageError(`--since must be an ISO-8601 time with an offset, e.g. 2026-11-30T12:00:00Z, got '${since}'`);
    return { since };
  },
  run: async (input, deps) => {
    const { reportMetrics } = await import('../metrics.js');
    return reportMetrics(await deps.store(), input);
  },
};
