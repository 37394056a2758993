import type { KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { DecisionKeyError, parseDecisionKey, type DecisionKey } from '../decisions/keys.js';
import type { AnchorSigningKey } from '../store/index.js';
import { CliError, EXIT_CODES } from './cli-error.js';

/**
 * Anchor keys are Ed25519 keys in the decision keys' text form, `ed25519:<key id>:<base64url DER>`, one per line (blank
 * lines and `#` comments skipped): the sealer's private key (`seal --sign-with`), the verifiers' public keys
 * (`verify --verify-keys`). The key material is never printed, not even in an error.
 */
async function readKeys(file: string, option: string): Promise<Extract<DecisionKey, { algorithm: 'ed25519' }>[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new CliError(`${option}: cannot read ${file}`, EXIT_CODES.usage, { cause: error });
  }
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line, index) => {
      let key: DecisionKey;
      try {
        key = parseDecisionKey(line);
      } catch (error) {
        throw new CliError(
          `${option}: key ${index + 1} of ${file}: ${error instanceof DecisionKeyError ? error.message : 'not a key'}`,
          EXIT_CODES.usage,
          { cause: error },
        );
      }
      if (key.algorithm !== 'ed25519')
        throw new CliError(
          `${option}: key '${key.id}' of ${file} is not an Ed25519 key (anchors are signed with Ed25519 only)`,
          EXIT_CODES.usage,
        );
      return key;
    });
}

/** The sealer's signing key: the first key of the file, which must be private. */
export async function readAnchorSigningKey(file: string): Promise<AnchorSigningKey> {
  const [key] = await readKeys(file, '--sign-with');
  if (key?.privateKey == null)
    throw new CliError(`--sign-with: ${file} holds no Ed25519 private key`, EXIT_CODES.usage);
  return { keyId: key.id, privateKey: key.privateKey };
}

/** The public keys anchors are verified with, by key id (a private key counts as its public half). */
export async function readAnchorVerifyKeys(file: string): Promise<Map<string, KeyObject>> {
  const keys = await readKeys(file, '--verify-keys');
  if (keys.length === 0) throw new CliError(`--verify-keys: ${file} holds no key`, EXIT_CODES.usage);
  return new Map(keys.map((key) => [key.id, key.publicKey]));
}
