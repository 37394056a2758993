import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';

/** The `encoding` of an encrypted payload; its `encryption-key-id` names the key that sealed it. */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const KEY_ID_METADATA = 'encryption-key-id';

const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

/** An AES-256 key and the id stored beside what it sealed (so a rotated key still opens old history). */
export interface CodecKey {
  readonly id: string;
  readonly key: Uint8Array;
}

/**
 * A payload codec that seals every payload with AES-256-GCM: the server (history, visibility of memos, the UI
 * without a codec server) sees only ciphertext. Rotation: `keys[0]` seals; every key in `keys` opens what it sealed,
 * found by the id in the payload's metadata. Payloads that were never encrypted pass through `decode` unchanged (history
 * from before encryption was turned on); one sealed by a key not in `keys`, or altered, is an error, never garbage.
 */
export class AesGcmPayloadCodec implements PayloadCodec {
  private readonly byId: ReadonlyMap<string, Uint8Array>;
  private readonly current: CodecKey;

  constructor(keys: readonly CodecKey[]) {
    const [current] = keys;
    if (current === undefined)
      throw new RangeError('AesGcmPayloadCodec needs at least one key (the first one encrypts)');
    for (const { id, key } of keys) {
      if (id.trim() === '' || id.includes(':') || id.includes(','))
        throw new RangeError(`a codec key id must be non-empty, without ':' or ',' (got '${id}')`);
      if (key.byteLength !== KEY_BYTES)
        throw new RangeError(`codec key '${id}' must be ${KEY_BYTES} bytes (AES-256), got ${key.byteLength}`);
    }
    if (new Set(keys.map((key) => key.id)).size !== keys.length) throw new RangeError('codec key ids must be unique');
    this.current = current;
    this.byId = new Map(keys.map(({ id, key }) => [id, key]));
  }

  // The work is synchronous; a payload that cannot be opened is still a rejection, never a synchronous throw.
  encode(payloads: Payload[]): Promise<Payload[]> {
    return settle(() => payloads.map((payload) => this.seal(payload)));
  }

  decode(payloads: Payload[]): Promise<Payload[]> {
    return settle(() => payloads.map((payload) => this.open(payload)));
  }

  private seal(payload: Payload): Payload {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.current.key, iv);
    // The key id is authenticated too: moving a payload under another id fails to open.
    cipher.setAAD(utf8.encode(this.current.id));
    const sealed = Buffer.concat([iv, cipher.update(serialise(payload)), cipher.final(), cipher.getAuthTag()]);
    return {
      metadata: { encoding: utf8.encode(ENCRYPTED_ENCODING), [KEY_ID_METADATA]: utf8.encode(this.current.id) },
      data: sealed,
    };
  }

  private open(payload: Payload): Payload {
    const encoding = payload.metadata?.['encoding'];
    if (encoding === undefined || encoding === null || fromUtf8.decode(encoding) !== ENCRYPTED_ENCODING) return payload;
    const idBytes = payload.metadata?.[KEY_ID_METADATA];
    const id = idBytes === undefined || idBytes === null ? '' : fromUtf8.decode(idBytes);
    const key = this.byId.get(id);
    if (key === undefined)
      throw new Error(`payload encrypted with unknown codec key '${id}' (keys: ${[...this.byId.keys()].join(', ')})`);
    const data = Buffer.from(payload.data ?? new Uint8Array());
    if (data.byteLength < IV_BYTES + TAG_BYTES)
      throw new Error(`encrypted payload too short (${data.byteLength} bytes)`);
    const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, IV_BYTES));
    decipher.setAAD(utf8.encode(id));
    decipher.setAuthTag(data.subarray(data.byteLength - TAG_BYTES));
    const plain = Buffer.concat([
      decipher.update(data.subarray(IV_BYTES, data.byteLength - TAG_BYTES)),
      decipher.final(),
    ]);
    return deserialise(plain);
  }
}

function settle<T>(work: () => T): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}

/** A payload as bytes: JSON of its metadata and data, base64-encoded (the codec's own format, sealed whole). */
function serialise(payload: Payload): Buffer {
  const metadata = Object.fromEntries(
    Object.entries(payload.metadata ?? {}).flatMap(([name, value]) =>
      value === null || value === undefined ? [] : [[name, Buffer.from(value).toString('base64')]],
    ),
  );
  return Buffer.from(
    JSON.stringify({ metadata, data: Buffer.from(payload.data ?? new Uint8Array()).toString('base64') }),
    'utf8',
  );
}

function deserialise(bytes: Buffer): Payload {
  const { metadata, data } = JSON.parse(bytes.toString('utf8')) as { metadata: Record<string, string>; data: string };
  return {
    metadata: Object.fromEntries(
      Object.entries(metadata).map(([name, value]) => [name, new Uint8Array(Buffer.from(value, 'base64'))]),
    ),
    data: new Uint8Array(Buffer.from(data, 'base64')),
  };
}

/**
 * Keys from their text form `id:base64key[,id:base64key...]` (the first encrypts), as an environment variable holds
 * them; a malformed entry is a RangeError that names the entry's position, never the key.
 */
export function parseCodecKeys(text: string): CodecKey[] {
  return text.split(',').map((entry, index) => {
    const separator = entry.indexOf(':');
    const id = entry.slice(0, separator).trim();
    const key = Buffer.from(entry.slice(separator + 1).trim(), 'base64');
    if (separator < 1 || key.byteLength !== KEY_BYTES)
      throw new RangeError(
        `codec key ${index + 1} must be 'id:<${KEY_BYTES} bytes in base64>' (e.g. k1:$(openssl rand -base64 32))`,
      );
    return { id, key: new Uint8Array(key) };
  });
}
