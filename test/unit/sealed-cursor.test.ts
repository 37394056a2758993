import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fromBase64Url, toBase64Url } from '../../src/contract/base64url.js';
import { parseSecretKey } from '../../src/contract/keyed-digest.js';
import { sealCursor, unsealCursor, type CursorBinding } from '../../src/contract/sealed-cursor.js';

const key = new Uint8Array(32).fill(7);
const binding: CursorBinding = {
  principal: { tenant: 't1', subject: 's1' },
  tool: 'items.scan',
  arguments: { q: 'shoes' },
};
const at = { cursor: 'upstream-page-2', skip: 0, position: 20 };
const NOW = 1_000_000;
const token = sealCursor(key, binding, at, NOW + 60_000);

describe('sealed cursors', () => {
  it('open for the binding they were sealed for, before they expire', () => {
    assert.deepEqual(unsealCursor(key, binding, token, NOW), { ok: true, at });
    assert.match(token, /^ttc1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
  });

  it('refuse another principal, tool or argument set, and another key (the MAC covers each)', () => {
    const refusals = [
      unsealCursor(key, { ...binding, principal: { tenant: 't2', subject: 's1' } }, token, NOW),
      unsealCursor(key, { ...binding, principal: { tenant: 't1', subject: 's2' } }, token, NOW),
      unsealCursor(key, { ...binding, tool: 'items.other' }, token, NOW),
      unsealCursor(key, { ...binding, arguments: { q: 'boots' } }, token, NOW),
      unsealCursor(new Uint8Array(32).fill(8), binding, token, NOW),
    ];
    for (const refusal of refusals) assert.deepEqual(refusal, { ok: false, reason: 'mismatch' });
  });

  it('refuse a payload edited to point elsewhere (another upstream cursor, position or expiry)', () => {
    const [prefix, body, mac] = token.split('.');
    const payload = JSON.parse(new TextDecoder().decode(fromBase64Url(body!))) as Record<string, unknown>;
    for (const edit of [{ c: 'upstream-page-9' }, { p: 0 }, { s: 5 }, { e: NOW + 10 ** 9 }]) {
      const forged = `${prefix!}.${toBase64Url(new TextEncoder().encode(JSON.stringify({ ...payload, ...edit })))}.${mac!}`;
      assert.deepEqual(
        unsealCursor(key, binding, forged, NOW),
        { ok: false, reason: 'mismatch' },
        JSON.stringify(edit),
      );
    }
  });

  it('refuse an expired cursor, and anything that is not a sealed cursor', () => {
    assert.deepEqual(unsealCursor(key, binding, token, NOW + 60_000), { ok: false, reason: 'expired' });
    for (const junk of [
      '',
      'upstream-page-2',
      'ttc1..',
      `${token}.x`,
      `ttc2${token.slice(4)}`,
      token.replace(/.$/, '!'),
      `ttc1.${'A'.repeat(20_000)}.x`,
    ]) {
      assert.deepEqual(unsealCursor(key, binding, junk, NOW), { ok: false, reason: 'malformed' }, junk.slice(0, 30));
    }
  });

  it('a key shorter than 32 bytes is refused at configuration time, naming no key material', () => {
    assert.throws(
      () => parseSecretKey('short secret', 'cursorKey'),
      (error: Error) => error instanceof RangeError && !error.message.includes('short secret'),
    );
    assert.equal(parseSecretKey('x'.repeat(32), 'cursorKey').byteLength, 32);
  });
});

describe('base64url', () => {
  it("round-trips every length and agrees with Node's encoder", () => {
    for (let length = 0; length < 70; length++) {
      const bytes = Uint8Array.from({ length }, (_, i) => (i * 97 + length) & 0xff);
      const text = toBase64Url(bytes);
      assert.equal(text, Buffer.from(bytes).toString('base64url'));
      assert.deepEqual(fromBase64Url(text), bytes);
    }
  });
  it('has one encoding per byte string: non-zero unused bits, padding and other alphabets are refused', () => {
    for (const text of ['AB', 'A', 'AA==', 'a+b/', 'AAA ']) assert.equal(fromBase64Url(text), null, text);
  });
});
