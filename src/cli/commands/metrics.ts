import { optionalIsoTime, optionalString, parseCommandArgs, usageError } from '../command-args.js';
import type { OperatorCommandSpec } from '../command.js';
import type { MetricsReport } from '../metrics.js';

/** The window of `metrics` (audits recorded and reconciliations opened since `since`, of `tool`), and the output. */
export interface MetricsInput {
  readonly since?: string;
  readonly tool?: string;
  readonly json: boolean;
}

/** `metrics`: seed 004's validation metrics from the audit records. */
export const metricsCommand: OperatorCommandSpec<MetricsInput, MetricsReport> = {
  name: 'metrics',
  usage: {
    synopsis: 'metrics [--since <ISO time>] [--tool <name>]',
    description: [
      "seed 004's metrics from the audit records: failure and warning rates of every layer,",
      'stale warnings, conflicts, omitted evidence, unknown side effects, time to settle and',
      'labelled false acceptances/rejections, overall, per tool and per rule version (Markdown',
      'tables; --json: the figures)',
    ],
  },
  parse: (args) => {
    const { values, json } = parseCommandArgs(args, { since: { type: 'string' }, tool: { type: 'string' } });
    const since = optionalIsoTime(values, 'since');
    const tool = optionalString(values, 'tool');
    if (tool !== undefined && tool.trim() === '') throw usageError('--tool needs a tool name');
    return { ...(since === undefined ? {} : { since }), ...(tool === undefined ? {} : { tool }), json };
  },
  run: async ({ json: _json, ...window }, deps) => {
    const { reportMetrics } = await import('../metrics.js');
    return reportMetrics(await deps.store(), window);
  },
  present: (report, input) => (input.json ? report.metrics : report.text),
};
