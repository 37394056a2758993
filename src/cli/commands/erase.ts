import { optionalString, parseCommandArgs, requiredString, usageError } from '../command-args.js';
import type { OperatorCommandSpec } from '../command.js';
import type { ErasureRecord } from '../../store/index.js';

/** Whose data `erase` removes, who asks, and why. */
export type EraseInput = (
  { readonly principal: { readonly tenant: string; readonly subject: string } } | { readonly workflowId: string }
) & {
  readonly by: string;
  readonly reason: string | null;
};

/** `erase`: removes a principal's or a workflow's artifact bodies and memory, keeping the audit's digests. */
export const eraseCommand: OperatorCommandSpec<EraseInput, ErasureRecord> = {
  name: 'erase',
  usage: {
    synopsis: 'erase (--principal <tenant>/<subject> | --workflow <id>) --by <name> [--reason <text>]',
    description: [
      'removes the raw artifact bodies and memory rows of a principal (found by its principal reference, keyed with',
      'TTC_PRINCIPAL_KEY like the worker) or of a workflow, as DATABASE_OWNER_URL; the audit rows and their digests',
      'stay and verify; prints the tombstone (what was erased, when, by whom)',
    ],
  },
  parse: (args) => {
    const { values } = parseCommandArgs(args, {
      principal: { type: 'string' },
      workflow: { type: 'string' },
      by: { type: 'string' },
      reason: { type: 'string' },
    });
    const principal = optionalString(values, 'principal');
    const workflowId = optionalString(values, 'workflow');
    if ((principal === undefined) === (workflowId === undefined))
      throw usageError('name exactly one of --principal <tenant>/<subject> and --workflow <id>');
    const common = { by: requiredString(values, 'by'), reason: optionalString(values, 'reason') ?? null };
    if (workflowId !== undefined) return { workflowId, ...common };
    const slash = principal!.indexOf('/');
    if (slash <= 0 || slash === principal!.length - 1)
      throw usageError(`--principal is <tenant>/<subject>, got '${principal}'`);
    return { principal: { tenant: principal!.slice(0, slash), subject: principal!.slice(slash + 1) }, ...common };
  },
  run: async (input, deps) => (await import('../audit-erase.js')).eraseAudit(input, deps),
};
