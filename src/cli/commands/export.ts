import type { TrailScope } from '../../store/index.js';
import { scopeOfArgs, SCOPE_OPTIONS } from '../audit-scope-args.js';
import type { ExportOutput } from '../audit-export.js';
import { parseCommandArgs, requiredString } from '../command-args.js';
import type { OperatorCommandSpec } from '../command.js';

/** Which part of the audit `export` writes, where, and whether with the protected fields. */
export interface ExportInput extends TrailScope {
  readonly out: string;
  readonly protectedFields: boolean;
}

/** `export`: the audit as JSON Lines with a manifest that `verify --file` checks offline. */
export const exportCommand: OperatorCommandSpec<ExportInput, ExportOutput> = {
  name: 'export',
  usage: {
    synopsis: 'export --out <file> [--since <ISO time>] [--until <ISO time>] [--workflow <id>] [--protected]',
    description: [
      'writes the audit records (model results and digests; --protected: also the records themselves, idempotency',
      'keys and principal references), every anchor and a manifest as JSON Lines to a new file; `verify --file`',
      'checks it without the database. --since/--until select months, --workflow one workflow',
    ],
  },
  parse: (args) => {
    const { values } = parseCommandArgs(args, {
      ...SCOPE_OPTIONS,
      out: { type: 'string' },
      protected: { type: 'boolean' },
    });
    return {
      ...scopeOfArgs(values),
      out: requiredString(values, 'out'),
      protectedFields: values['protected'] === true,
    };
  },
  run: async (input, deps) => (await import('../audit-export.js')).exportAudit(input, deps),
  // A protected export names the file, not its content: what is printed is never the protected data.
};
