import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkCitations } from '../../workflows/citations.js';

const A = 'ev_aaaaaaaaaaaaaaaa';
const B = 'ev_bbbbbbbbbbbbbbbb';

test('citations are sorted into valid, unknown and uncited; each id counts once', () => {
  const report = checkCitations(`x [${A}] y [${A}] z [ev_ffffffffffffffff] [ev_not-hex]`, [A, B, A]);
  assert.deepEqual(report, { valid: [A], unknown: ['ev_ffffffffffffffff', 'ev_not-hex'], uncited: [B], missing: false });
});

test('no citation while evidence was returned is missing; no evidence and no citation is not', () => {
  assert.equal(checkCitations('plain answer', [A]).missing, true);
  assert.deepEqual(checkCitations('plain answer', []), { valid: [], unknown: [], uncited: [], missing: false });
});

test('only bracketed ev_ ids are citations', () => {
  assert.deepEqual(checkCitations(`${A} (ev_x) [evidence] [ ${B} ]`, [A, B]).valid, []);
});
