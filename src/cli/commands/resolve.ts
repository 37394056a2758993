import { optionalString, parseCommandArgs, requiredString, usageError } from '../command-args.js';
import type { OperatorCommandSpec } from '../command.js';
import type { ResolveInput, ResolveOutput } from '../resolve.js';

/** `resolve`: a human's answer to a side effect whose outcome stayed unknown. */
export const resolveCommand: OperatorCommandSpec<ResolveInput, ResolveOutput> = {
  name: 'resolve',
  usage: {
    synopsis: 'resolve <idempotencyKey> (--committed <externalId> | --not-committed) --resolver <name> [--note <text>]',
    description: [
      'settles an escalated side effect (see `unsettled`) with what a human found out, signed like approve;',
      'refused (exit 5) while the reconciliation is still asking the authoritative system',
    ],
  },
  parse: (args) => {
    const options = {
      committed: { type: 'string' },
      'not-committed': { type: 'boolean' },
      resolver: { type: 'string' },
      note: { type: 'string' },
    } as const;
    const { values, positionals } = parseCommandArgs(args, options, { min: 1, max: 1 });
    const [idempotencyKey = ''] = positionals;
    const note = optionalString(values, 'note');
    const base = {
      idempotencyKey,
      resolvedBy: requiredString(values, 'resolver'),
      ...(note === undefined ? {} : { note }),
    };
    const committed = values['committed'];
    const notCommitted = values['not-committed'] === true;
    if ((committed !== undefined) === notCommitted)
      throw usageError('give exactly one of --committed <externalId> or --not-committed');
    if (notCommitted) return { ...base, outcome: 'not_committed' };
    if (typeof committed !== 'string' || committed.trim() === '')
      throw usageError('--committed needs the external id of the committed write');
    return { ...base, outcome: 'committed', externalId: committed };
  },
  run: async (input, deps) => {
    const { resolveOutcome } = await import('../resolve.js');
    return resolveOutcome(await deps.client(), input, await deps.signingKey());
  },
};
