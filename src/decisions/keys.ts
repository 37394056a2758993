import {
  createPrivateKey,
  createPublicKey,
  createSecretKey,
  generateKeyPairSync,
  randomBytes,
  type KeyObject,
} from 'node:crypto';

/** Signature algorithms of decision tokens. */
export const DECISION_ALGORITHMS = ['ed25519', 'hmac-sha256'] as const;
export type DecisionAlgorithm = (typeof DECISION_ALGORITHMS)[number];

/**
 * A key for decision tokens. `ed25519` is the recommended one: the approval service holds the private key and
 * workers hold only the public key, so a worker (or anyone who reads its configuration) cannot forge a decision.
 * `hmac-sha256` is one shared secret for signer and verifiers; simpler, but every verifier can also sign.
 */
export type DecisionKey =
  | {
      readonly algorithm: 'ed25519';
      readonly id: string;
      readonly publicKey: KeyObject;
      readonly privateKey: KeyObject | null;
    }
  | { readonly algorithm: 'hmac-sha256'; readonly id: string; readonly secret: KeyObject };

/** Thrown for key text that is not a decision key; the message never contains the key material. */
export class DecisionKeyError extends Error {
  override readonly name = 'DecisionKeyError';
}

const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;
const MIN_HMAC_SECRET_BYTES = 32;
/** How a key is written, for messages. */
export const DECISION_KEY_FORM = '<algorithm>:<key id>:<base64url key>';

/**
 * Parses a key written as `<algorithm>:<key id>:<base64url DER or secret>` — the form {@link formatDecisionKey}
 * writes, used in key files and environment variables. An `ed25519` key is a private key (PKCS#8, it can sign) or a
 * public key (SPKI, it can only verify).
 */
export function parseDecisionKey(text: string): DecisionKey {
  if (text.trim() === '')
    throw new DecisionKeyError(`the decision key is empty (a decision key is written ${DECISION_KEY_FORM})`);
  const [algorithm, id, material, ...rest] = text.trim().split(':');
  if (rest.length > 0 || algorithm === undefined || id === undefined || material === undefined) {
    throw new DecisionKeyError(`a decision key is written ${DECISION_KEY_FORM}`);
  }
  if (!KEY_ID.test(id))
    throw new DecisionKeyError(
      `a decision key id is 1-64 characters of A-Z a-z 0-9 . _ - (got ${JSON.stringify(id.slice(0, 64))})`,
    );
  const bytes = Buffer.from(material, 'base64url');
  if (algorithm === 'hmac-sha256') {
    if (bytes.length < MIN_HMAC_SECRET_BYTES)
      throw new DecisionKeyError(
        `decision key '${id}': an hmac-sha256 secret has at least ${MIN_HMAC_SECRET_BYTES} bytes`,
      );
    return { algorithm, id, secret: createSecretKey(bytes) };
  }
  if (algorithm === 'ed25519') return { algorithm, id, ...ed25519Pair(bytes, id) };
  throw new DecisionKeyError(
    `decision key '${id}': unknown algorithm (expected one of ${DECISION_ALGORITHMS.join(', ')})`,
  );
}

/**
 * Parses keys separated by commas or white space (an environment variable, a key file), as {@link parseDecisionKey}
 * does each. `source` names where the text came from (`TTC_DECISION_VERIFY_KEYS`, a file): every error names it, and
 * the position of the key at fault, never key material. Text holding no key at all is an error too.
 */
export function parseDecisionKeyList(text: string, source: string): DecisionKey[] {
  const items = text.split(/[\s,]+/).filter((item) => item !== '');
  if (items.length === 0)
    throw new DecisionKeyError(
      `${source} holds no decision key (expected ${DECISION_KEY_FORM}, several separated by commas)`,
    );
  return items.map((item, index) =>
    parseNamedDecisionKey(item, items.length === 1 ? source : `${source} (key ${index + 1} of ${items.length})`),
  );
}

/** {@link parseDecisionKey}, with errors that begin with `source`. */
export function parseNamedDecisionKey(text: string, source: string): DecisionKey {
  try {
    return parseDecisionKey(text);
  } catch (error) {
    if (!(error instanceof DecisionKeyError)) throw error;
    throw new DecisionKeyError(`${source}: ${error.message}`, { cause: error });
  }
}

function ed25519Pair(der: Buffer, id: string): { publicKey: KeyObject; privateKey: KeyObject | null } {
  for (const read of [
    () => {
      const privateKey = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
      return { publicKey: createPublicKey(privateKey), privateKey };
    },
    () => ({ publicKey: createPublicKey({ key: der, format: 'der', type: 'spki' }), privateKey: null }),
  ]) {
    try {
      const pair = read();
      if (pair.publicKey.asymmetricKeyType === 'ed25519') return pair;
    } catch {
      // Not this encoding; try the next.
    }
  }
  throw new DecisionKeyError(
    `decision key '${id}': not an Ed25519 key (PKCS#8 private or SPKI public, DER, base64url)`,
  );
}

/**
 * Writes a key in the form {@link parseDecisionKey} reads. `public` gives what a worker needs (for `hmac-sha256`,
 * that is the secret itself); `signing` what the approval service needs.
 */
export function formatDecisionKey(key: DecisionKey, part: 'signing' | 'public'): string {
  if (key.algorithm === 'hmac-sha256') return `${key.algorithm}:${key.id}:${key.secret.export().toString('base64url')}`;
  if (part === 'public')
    return `${key.algorithm}:${key.id}:${key.publicKey.export({ format: 'der', type: 'spki' }).toString('base64url')}`;
  if (key.privateKey === null) throw new DecisionKeyError(`decision key '${key.id}' is a public key: it cannot sign`);
  return `${key.algorithm}:${key.id}:${key.privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64url')}`;
}

/** A new random key with the given id. */
export function generateDecisionKey(algorithm: DecisionAlgorithm, id: string): DecisionKey {
  if (!KEY_ID.test(id)) throw new DecisionKeyError('a decision key id is 1-64 characters of A-Z a-z 0-9 . _ -');
  if (algorithm === 'hmac-sha256')
    return { algorithm, id, secret: createSecretKey(randomBytes(MIN_HMAC_SECRET_BYTES)) };
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return { algorithm, id, publicKey, privateKey };
}

/** The verifying half of a key: what a worker should be given. */
export function verifyingKey(key: DecisionKey): DecisionKey {
  return key.algorithm === 'ed25519' ? { ...key, privateKey: null } : key;
}
