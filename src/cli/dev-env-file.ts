import { randomBytes } from 'node:crypto';
import { rename, rm, writeFile } from 'node:fs/promises';
import { formatDecisionKey } from '../decisions/keys.js';
import { CLI_ENV } from './cli-config.js';
import { CliError, EXIT_CODES } from './cli-error.js';
import { DECISION_ENV, type DecisionKeys } from './decision-keys.js';
import type { DevStack } from './dev-stack.js';

/** One variable of the dev environment, with the comment line above it (or none). */
interface EnvEntry {
  readonly name: string;
  readonly value: string;
  readonly comment?: string;
}

/**
 * The environment a worker of your own (and your approval service) needs to use a running dev stack: the Temporal
 * address and namespace, the database URLs of the application role and of the owner with their passwords (for the
 * embedded Postgres, the ones it keeps under `.data/postgres/`), the schema when one is set, and the decision keys —
 * the public ones workers verify with, the private one the approval service signs with.
 */
export function devEnvironment(stack: DevStack, keys: DecisionKeys, schema: string | undefined): EnvEntry[] {
  const { database, temporal } = stack;
  const entries: EnvEntry[] = [
    { name: CLI_ENV.temporalAddress, value: temporal.address, comment: 'The Temporal dev server' },
    { name: CLI_ENV.temporalNamespace, value: temporal.namespace },
    {
      name: CLI_ENV.databaseUrl,
      value: database.connectionString,
      comment:
        'Postgres as the application role (what the store connects as) and as the role that owns the tables and migrates',
    },
  ];
  if (database.ownerConnectionString !== null)
    entries.push({ name: CLI_ENV.databaseOwnerUrl, value: database.ownerConnectionString });
  if (schema !== undefined) entries.push({ name: CLI_ENV.databaseSchema, value: schema });
  if (keys.verifying.length > 0) {
    const verifying = keys.verifying.map((key) => formatDecisionKey(key, 'public')).join(',');
    entries.push({
      name: DECISION_ENV.verifyKeys,
      value: verifying,
      comment:
        'Workers verify decisions with the public key(s); an approval service (and `tool-contract approve`) signs with the private one',
    });
  }
  if (keys.signing !== null)
    entries.push({ name: DECISION_ENV.signingKey, value: formatDecisionKey(keys.signing, 'signing') });
  return entries;
}

/**
 * Writes `entries` as a dotenv file that `node --env-file` (and `tsx --env-file`, and a shell's `set -a; . file`)
 * reads: private (mode 0600, written whole under another name first, so no reader sees it half-written or with
 * wider rights). It holds passwords and a signing key, so it is never printed.
 */
export async function writeDevEnvFile(path: string, entries: readonly EnvEntry[], cli: string): Promise<void> {
  const text = [
    `# The environment of a running \`${cli} dev\`, for a worker of your own and your approval service: load it with`,
    '# `node --env-file=<this file> worker.js` (or `npx tsx --env-file=<this file> worker.ts`). Rewritten on every start',
    '# of `dev` (the embedded Postgres port changes). It holds passwords and a signing key: keep it private and out of',
    '# version control.',
    ...entries.flatMap((entry) => [
      ...(entry.comment === undefined ? [] : [`# ${entry.comment}`]),
      `${entry.name}=${dotenvValue(entry.name, entry.value)}`,
    ]),
    '',
  ].join('\n');
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
  try {
    await writeFile(temporary, text, { mode: 0o600, flag: 'wx' });
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw new CliError(
      `cannot write --write-env ${path}: ${error instanceof Error ? error.message : String(error)}`,
      EXIT_CODES.usage,
      { cause: error },
    );
  }
}

/** A value as dotenv readers take it literally: bare when plain, else in single quotes (which they do not expand). */
function dotenvValue(name: string, value: string): string {
  if (/^[\w.:/@%+=,~-]*$/.test(value)) return value;
  if (/['\n\r]/.test(value))
    throw new CliError(`${name} cannot be written to an env file: it holds a quote or a line break`, EXIT_CODES.usage);
  return `'${value}'`;
}
