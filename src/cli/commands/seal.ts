import { optionalString, parseCommandArgs } from '../command-args.js';
import type { OperatorCommandSpec } from '../command.js';
import type { SealOutput } from '../audit-seal.js';

/** Where `seal` publishes the new anchors and what it signs them with. */
export interface SealInput {
  readonly publish?: string;
  readonly signWith?: string;
}

/** `seal`: seals the audit rows whose transactions have ended into chained anchors. */
export const sealCommand: OperatorCommandSpec<SealInput, SealOutput> = {
  name: 'seal',
  usage: {
    synopsis: 'seal [--publish <file>] [--sign-with <key file>]',
    description: [
      'seals the audit rows whose transactions have ended into anchors chained by digest (as DATABASE_URL; never',
      'waits for a writer); --publish appends the new anchors to a file kept outside the database, --sign-with signs',
      'them with an Ed25519 key (ed25519:<id>:<base64url PKCS#8>); run it periodically (docs/audit.md)',
    ],
  },
  parse: (args) => {
    const { values } = parseCommandArgs(args, { publish: { type: 'string' }, 'sign-with': { type: 'string' } });
    const publish = optionalString(values, 'publish');
    const signWith = optionalString(values, 'sign-with');
    return { ...(publish === undefined ? {} : { publish }), ...(signWith === undefined ? {} : { signWith }) };
  },
  run: async (input, deps) => (await import('../audit-seal.js')).sealAudit(input, deps),
};
