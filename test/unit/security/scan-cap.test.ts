// The scan cap: text longer than maxScanChars is cut after redaction, the scan reads a bounded look-ahead past the
// cut and nothing further, and a secret straddling the cut never shows any part of itself.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Redactor } from '../../../src/contract/redaction.js';
import { truncationMarker } from '../../../src/contract/truncation.js';
import { assertHidden } from './hidden.js';
import { FAKE_SECRETS } from '../../../testkit/security/secret-corpus.js';
import { cpuMs } from '../../../testkit/security/cpu-time.js';

const CAP = 2_000;
const capped = new Redactor({
  sensitiveFields: [],
  protectedSubstrings: ['idem-wf-42-call-0001'],
  protectedExact: ['tenant-acme'],
  maxScanChars: CAP,
});

/** `carrier` placed in filler so that the secret inside it starts `before` characters ahead of the cut. */
function straddling(carrier: string, secret: string, before: number): string {
  const head = CAP - before - carrier.indexOf(secret);
  return `${'w '.repeat(head).slice(0, head - 1)} ${carrier}${' w'.repeat(2_000)}`;
}

describe('scan cap', () => {
  it('never shows a part of a secret that straddles the cut, wherever the cut falls inside it', () => {
    for (const secret of FAKE_SECRETS) {
      const step = Math.max(1, Math.floor(secret.secret.length / 12));
      for (let before = 1; before <= secret.secret.length + 1; before += step) {
        const shown = capped.text(straddling(secret.carrier, secret.secret, before), '/t', []);
        assertHidden(shown, secret, `a cut ${before} characters into it`);
        assert.match(shown, /…\[truncated \d+ chars\]$/, 'cut at the cap');
      }
    }
  });

  it('never shows part of the idempotency key straddling the cut', () => {
    const key = 'idem-wf-42-call-0001';
    for (let before = 1; before < key.length; before++) {
      const shown = capped.text(straddling(`ref ${key}`, key, before), '/t', []);
      assert.ok(!shown.includes(key.slice(0, 6)), `cut ${before} into the key: ${shown.slice(-40)}`);
    }
  });

  it('keeps text up to the cap and says how much was cut, never splitting a surrogate pair', () => {
    const text = `${'a'.repeat(CAP - 1)}😀${'😀'.repeat(9)}`;
    const shown = capped.text(text, '/t', []);
    assert.equal(shown, `${'a'.repeat(CAP - 1)}${truncationMarker(20)}`, 'the count is in UTF-16 units');
    assert.equal(capped.text('short', '/t', []), 'short');
  });

  it('reads a bounded prefix only: 16 MB of text costs what its first characters cost', () => {
    // Flat, as a string from JSON.parse is (a repeated string is a rope that the first slice would flatten).
    const huge = JSON.parse(JSON.stringify('eyJ-'.repeat(4 << 20))) as string;
    let shown = '';
    const used = cpuMs(() => (shown = capped.text(huge, '/t', [])));
    assert.ok(used < 50, `${used.toFixed(1)} ms CPU`);
    assert.ok(shown.length < CAP + 40);
  });

  it('changes nothing without a cap', () => {
    const uncapped = new Redactor({ sensitiveFields: [], protectedSubstrings: [], protectedExact: [] });
    const text = 'x'.repeat(100_000);
    assert.equal(uncapped.text(text, '/t', []), text);
  });
});
