import assert from 'node:assert/strict';
import type { FakeSecret } from '../../../testkit/security/secret-corpus.js';

/** Shortest piece of a secret that counts as showing it. */
const TELLING_PIECE = 8;

/**
 * Asserts that no telling piece of `secret` is in `shown`: not the secret, and not any run of eight of its characters
 * (so not a prefix left by a cut either). Shorter secrets (a PIN) must not appear at all.
 */
export function assertHidden(shown: string, secret: FakeSecret, where: string): void {
  const { secret: value, family } = secret;
  const pieces =
    value.length <= TELLING_PIECE
      ? [value]
      : Array.from({ length: value.length - TELLING_PIECE + 1 }, (_, i) => value.slice(i, i + TELLING_PIECE));
  const leaked = pieces.find((piece) => shown.includes(piece) || shown.includes(JSON.stringify(piece).slice(1, -1)));
  assert.equal(leaked, undefined, `${family} in ${where}: '${leaked ?? ''}' is visible in ${shown.slice(0, 300)}`);
}
