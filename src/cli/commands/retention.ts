import { parseCommandArgs, requiredString, usageError } from '../command-args.js';
import type { OperatorCommandSpec } from '../command.js';
import type { RetentionOutput } from '../audit-retention.js';

/** How old the months `retention` drops must be, and where it writes the anchors first. */
export interface RetentionInput {
  /** `<n>d`, `<n>w`, `<n>m` (calendar months) or `<n>y`. */
  readonly olderThan: string;
  readonly anchorsOut: string;
}

/** A retention age: a positive count of days, weeks, calendar months or years. */
export const RETENTION_AGE = /^([1-9]\d{0,3})([dwmy])$/;

/** `retention`: drops whole months of the audit once they are older than the age, keeping the chain verifiable. */
export const retentionCommand: OperatorCommandSpec<RetentionInput, RetentionOutput> = {
  name: 'retention',
  usage: {
    synopsis: 'retention --older-than <n>d|w|m|y --anchors-out <file>',
    description: [
      'drops the months of audit, query copies, evidence and artifacts that lie wholly before the age, as',
      'DATABASE_OWNER_URL: seals first, writes every anchor to a new --anchors-out file (keep it outside the',
      'database: the chain stays verifiable across the cut), then detaches and drops the partitions. Refused while',
      'a side effect recorded there is unsettled',
    ],
  },
  parse: (args) => {
    const { values } = parseCommandArgs(args, { 'older-than': { type: 'string' }, 'anchors-out': { type: 'string' } });
    const olderThan = requiredString(values, 'older-than');
    if (!RETENTION_AGE.test(olderThan))
      throw usageError(`--older-than is a count and a unit (d, w, m or y), e.g. 400d or 13m, got '${olderThan}'`);
    return { olderThan, anchorsOut: requiredString(values, 'anchors-out') };
  },
  run: async (input, deps) => (await import('../audit-retention.js')).retainAudit(input, deps),
};
