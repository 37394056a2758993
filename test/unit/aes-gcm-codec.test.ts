import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { AesGcmPayloadCodec, ENCRYPTED_ENCODING, KEY_ID_METADATA, parseCodecKeys } from '../../src/codec/index.js';

const SECRET_ARGUMENT = { card_holder: 'Ada Lovelace', note: 'refund ord_0101 in full' };
const key = (id: string) => ({ id, key: new Uint8Array(randomBytes(32)) });
const text = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? new Uint8Array()).toString('utf8');

test('encode seals the whole payload (metadata too) under the current key id; decode restores it exactly', async () => {
  const codec = new AesGcmPayloadCodec([key('k1')]);
  const plain = defaultPayloadConverter.toPayload(SECRET_ARGUMENT);
  const [sealed] = await codec.encode([plain]);
  assert.equal(text(sealed?.metadata?.['encoding']), ENCRYPTED_ENCODING);
  assert.equal(text(sealed?.metadata?.[KEY_ID_METADATA]), 'k1');
  assert.ok(
    !text(sealed?.data).includes('Lovelace') && !text(sealed?.data).includes('json/plain'),
    'nothing of the payload shows',
  );
  const [opened] = await codec.decode([sealed!]);
  assert.deepEqual(defaultPayloadConverter.fromPayload(opened!), SECRET_ARGUMENT);
  const [again] = await codec.encode([plain]);
  assert.notDeepEqual(again?.data, sealed?.data, 'a fresh IV per payload');
});

test('rotation: the first key seals, every listed key opens what it sealed; an unknown key or altered bytes are errors', async () => {
  const [k1, k2] = [key('k1'), key('k2')];
  const [old] = await new AesGcmPayloadCodec([k1]).encode([defaultPayloadConverter.toPayload('before rotation')]);
  const rotated = new AesGcmPayloadCodec([k2, k1]);
  const [opened] = await rotated.decode([old!]);
  assert.equal(defaultPayloadConverter.fromPayload(opened!), 'before rotation');
  const [fresh] = await rotated.encode([defaultPayloadConverter.toPayload('after')]);
  assert.equal(text(fresh?.metadata?.[KEY_ID_METADATA]), 'k2');
  await assert.rejects(new AesGcmPayloadCodec([k1]).decode([fresh!]), 'a key id it does not hold');

  const tampered: Payload = {
    ...fresh!,
    data: Uint8Array.from(fresh!.data!, (byte, index) => (index === 20 ? byte ^ 1 : byte)),
  };
  await assert.rejects(rotated.decode([tampered]));
  const relabelled: Payload = {
    ...fresh!,
    metadata: { ...fresh!.metadata, [KEY_ID_METADATA]: new TextEncoder().encode('k1') },
  };
  await assert.rejects(rotated.decode([relabelled]), 'the key id is authenticated');
});

test('payloads that were never encrypted pass through decode unchanged', async () => {
  const plain = defaultPayloadConverter.toPayload({ from: 'before encryption' });
  assert.deepEqual(await new AesGcmPayloadCodec([key('k1')]).decode([plain]), [plain]);
});

test('keys: 32 bytes, unique ids; the text form id:base64 with the first one current; errors never show a key', () => {
  assert.throws(() => new AesGcmPayloadCodec([]), RangeError);
  assert.throws(() => new AesGcmPayloadCodec([{ id: 'k1', key: new Uint8Array(16) }]), RangeError);
  assert.throws(() => new AesGcmPayloadCodec([key('k1'), key('k1')]), RangeError);
  const raw = [randomBytes(32).toString('base64'), randomBytes(32).toString('base64')];
  const parsed = parseCodecKeys(`k2:${raw[0]!}, k1:${raw[1]!}`);
  assert.deepEqual(
    parsed.map((entry) => entry.id),
    ['k2', 'k1'],
  );
  assert.equal(Buffer.from(parsed[1]!.key).toString('base64'), raw[1]);
  const short = randomBytes(16).toString('base64');
  assert.throws(
    () => parseCodecKeys(`k1:${short}`),
    (error: unknown) => error instanceof RangeError && !error.message.includes(short),
  );
  assert.throws(() => parseCodecKeys(raw[0]!), RangeError);
});
