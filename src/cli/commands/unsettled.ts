import type { ReconciliationMetrics, ReconciliationRecord } from '../../store/index.js';
import { parseCommandArgs, usageError } from '../command-args.js';
import type { OperatorCommandSpec } from '../command.js';

/** How many unsettled records to list (oldest first); all when absent. */
export interface UnsettledInput {
  readonly limit?: number;
}

/** Side effects whose outcome is still unknown, and how settling has gone so far. */
export interface UnsettledOutput {
  readonly unsettled: readonly ReconciliationRecord[];
  readonly metrics: ReconciliationMetrics;
}

/** `unsettled`: side effects whose outcome is still unknown. */
export const unsettledCommand: OperatorCommandSpec<UnsettledInput, UnsettledOutput> = {
  name: 'unsettled',
  usage: {
    synopsis: 'unsettled [--limit <n>]',
    description: ['side effects whose outcome is unknown, with reconciliation metrics'],
  },
  parse: (args) => {
    const { values } = parseCommandArgs(args, { limit: { type: 'string' } });
    if (values['limit'] === undefined) return {};
    const limit = Number(values['limit']);
    if (!Number.isInteger(limit) || limit < 1)
      throw usageError(`--limit must be a positive integer, got '${String(values['limit'])}'`);
    return { limit };
  },
  run: async (input, deps) => {
    const store = await deps.store();
    const [unsettled, metrics] = await Promise.all([store.listUnsettled(input), store.reconciliationMetrics()]);
    return { unsettled, metrics };
  },
};
