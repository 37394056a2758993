import {
  DECISION_KEY_FORM,
  DecisionKeyError,
  parseDecisionKeyList,
  parseNamedDecisionKey,
  type DecisionKey,
} from './keys.js';

/** The environment variables that carry decision keys, as `tool-contract` and its `dev --write-env` name them. */
export const DECISION_KEY_VARIABLES = {
  /** The key an approval service (and `approve`, `reject`, `resolve`) signs with. */
  signing: 'TTC_DECISION_KEY',
  /** The keys workers verify decisions with (Ed25519 public keys, or the HMAC secret), separated by commas. */
  verifying: 'TTC_DECISION_VERIFY_KEYS',
} as const;

/** An environment to read from: the host passes `process.env` (the package reads no global itself). */
type Environment = Readonly<Record<string, string | undefined>>;

/**
 * The keys a worker verifies decisions with, from `TTC_DECISION_VERIFY_KEYS` (or `variable`):
 * `signedDecisions({ keys: verifyingKeysFromEnv(process.env) })`. An unset, empty or malformed variable is a
 * `DecisionKeyError` that names it, never a key.
 */
export function verifyingKeysFromEnv(
  env: Environment,
  variable: string = DECISION_KEY_VARIABLES.verifying,
): DecisionKey[] {
  return parseDecisionKeyList(required(env, variable, 'the keys workers verify decisions with'), variable);
}

/**
 * The key decisions are signed with, from `TTC_DECISION_KEY` (or `variable`): a private Ed25519 key or an HMAC
 * secret. Unset, empty, malformed or a public key: a `DecisionKeyError` that names the variable.
 */
export function signingKeyFromEnv(env: Environment, variable: string = DECISION_KEY_VARIABLES.signing): DecisionKey {
  const key = parseNamedDecisionKey(required(env, variable, 'the key decisions are signed with'), variable);
  if (key.algorithm === 'ed25519' && key.privateKey === null)
    throw new DecisionKeyError(`${variable} is a public key: it cannot sign (give the private key)`);
  return key;
}

function required(env: Environment, variable: string, what: string): string {
  const text = env[variable]?.trim() ?? '';
  if (text === '') {
    throw new DecisionKeyError(
      `${variable} is ${env[variable] === undefined ? 'not set' : 'empty'}: set it to ${what}, ${DECISION_KEY_FORM} (\`tool-contract dev --write-env <file>\` writes the dev stack's)`,
    );
  }
  return text;
}
