import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { signedDecisions, type DecisionAuthenticator } from '../decisions/authenticator.js';
import { DECISION_KEY_VARIABLES, signingKeyFromEnv } from '../decisions/env-keys.js';
import {
  DecisionKeyError,
  formatDecisionKey,
  generateDecisionKey,
  parseDecisionKeyList,
  parseNamedDecisionKey,
  verifyingKey,
  type DecisionKey,
} from '../decisions/keys.js';
import { CliError, EXIT_CODES } from './cli-error.js';

/** Environment variables of the decision keys (read here and in `cli-config`, nowhere else; named in `./decisions`). */
export const DECISION_ENV = {
  signingKey: DECISION_KEY_VARIABLES.signing,
  verifyKeys: DECISION_KEY_VARIABLES.verifying,
} as const;

/** Where `dev`, `start` and `demo` keep the project's development keys, relative to the project root. */
export const DECISION_KEY_DIR = join('.data', 'decisions');
/** The private key the operator commands sign with (mode 0600). */
export const SIGNING_KEY_FILE = join(DECISION_KEY_DIR, 'approver.key');
/** The public keys workers verify with, one per line. */
export const VERIFY_KEYS_FILE = join(DECISION_KEY_DIR, 'worker.keys');

/** The keys of this process: what it signs with (operator commands) and what its worker verifies with. */
export interface DecisionKeys {
  readonly signing: DecisionKey | null;
  readonly verifying: readonly DecisionKey[];
  /** Where they came from, for the progress output (never the keys themselves). */
  readonly source: 'environment' | 'project' | 'none';
}

/**
 * The decision keys from the environment, else from the project's key files, else none (decisions then go
 * unsigned, which only a worker taking unauthenticated decisions — development only — accepts). Never creates keys.
 */
export async function readDecisionKeys(
  env: Readonly<Record<string, string | undefined>>,
  projectRoot: string,
): Promise<DecisionKeys> {
  const fromEnv = keysFromEnv(env);
  if (fromEnv !== null) return fromEnv;
  const [signing, verifying] = await Promise.all([
    readKeyFile(projectRoot, SIGNING_KEY_FILE),
    readKeyFile(projectRoot, VERIFY_KEYS_FILE),
  ]);
  const signingKey = signing === null ? null : asUsageError(() => parseNamedDecisionKey(signing, SIGNING_KEY_FILE));
  const verifyingKeys = verifying === null ? [] : asUsageError(() => parseDecisionKeyList(verifying, VERIFY_KEYS_FILE));
  return {
    signing: signingKey,
    verifying: verifyingKeys,
    source: signingKey === null && verifyingKeys.length === 0 ? 'none' : 'project',
  };
}

/**
 * Like {@link readDecisionKeys}, but on first run — no keys in the environment, none in the project — creates the
 * project's Ed25519 pair under `.data/decisions/`: the private key for the operator commands run in this folder, the
 * public one for its workers. So `dev`, `start` and `demo` always run with signed decisions, and the `approve`
 * command they print works as printed. Concurrent first runs agree on one key (the first file written wins).
 */
export async function ensureDecisionKeys(
  env: Readonly<Record<string, string | undefined>>,
  projectRoot: string,
): Promise<DecisionKeys> {
  const existing = await readDecisionKeys(env, projectRoot);
  if (existing.source === 'environment' || (existing.signing !== null && existing.verifying.length > 0))
    return existing;
  await mkdir(join(projectRoot, DECISION_KEY_DIR), { recursive: true });
  const signing = existing.signing ?? (await createSigningKey(projectRoot));
  await writeAtomically(join(projectRoot, VERIFY_KEYS_FILE), `${formatDecisionKey(signing, 'public')}\n`, 0o644);
  return { signing, verifying: [verifyingKey(signing)], source: 'project' };
}

/** The worker's authenticator for these keys; `undefined` (no decision counts) when there are none. */
export function authenticatorFor(keys: DecisionKeys): DecisionAuthenticator | undefined {
  return keys.verifying.length === 0 ? undefined : signedDecisions({ keys: keys.verifying });
}

function keysFromEnv(env: Readonly<Record<string, string | undefined>>): DecisionKeys | null {
  const signingText = env[DECISION_ENV.signingKey]?.trim() ?? '';
  const verifyText = env[DECISION_ENV.verifyKeys]?.trim() ?? '';
  if (signingText === '' && verifyText === '') return null;
  const signing = signingText === '' ? null : asUsageError(() => signingKeyFromEnv(env));
  // A process given only the signing key verifies with its public half (the demo's own worker, for one).
  const verifying =
    verifyText === ''
      ? signing === null
        ? []
        : [verifyingKey(signing)]
      : asUsageError(() => parseDecisionKeyList(verifyText, DECISION_ENV.verifyKeys));
  return { signing, verifying, source: 'environment' };
}

/** Runs a key parse; its error, which names where the key came from and never its material, becomes a usage error. */
function asUsageError<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (!(error instanceof DecisionKeyError)) throw error;
    throw new CliError(error.message, EXIT_CODES.usage, { cause: error });
  }
}

async function readKeyFile(projectRoot: string, file: string): Promise<string | null> {
  try {
    const text = (await readFile(join(projectRoot, file), 'utf8')).trim();
    return text === '' ? null : text;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** Creates the project's signing key, unless another process just did: then that one is the key. */
async function createSigningKey(projectRoot: string): Promise<DecisionKey> {
  const key = generateDecisionKey('ed25519', `dev-${randomBytes(4).toString('hex')}`);
  const target = join(projectRoot, SIGNING_KEY_FILE);
  const temporary = `${target}.${process.pid}.${randomBytes(4).toString('hex')}`;
  await writeFile(temporary, `${formatDecisionKey(key, 'signing')}\n`, { mode: 0o600 });
  try {
    // link() fails if the target exists, so exactly one writer's key becomes the project's.
    await link(temporary, target);
    return key;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const winner = await readKeyFile(projectRoot, SIGNING_KEY_FILE);
    if (winner === null)
      throw new CliError(`${SIGNING_KEY_FILE} exists but is empty: remove it to create a new key`, EXIT_CODES.failure);
    return asUsageError(() => parseNamedDecisionKey(winner, SIGNING_KEY_FILE));
  } finally {
    await unlink(temporary).catch(() => undefined);
  }
}

async function writeAtomically(path: string, text: string, mode: number): Promise<void> {
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
  await writeFile(temporary, text, { mode });
  await rename(temporary, path);
}
