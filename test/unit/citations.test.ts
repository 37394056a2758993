import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { answerSentences } from '../../src/contract/answer-claims.js';
import type { Evidence } from '../../src/contract/model-result.js';
import { unquotedPointers } from '../../src/contract/quote-match.js';
import { checkCitations, type CitableResult } from '../../workflows/citations.js';

const A = 'ev_aaaaaaaaaaaaaaaa';
const B = 'ev_bbbbbbbbbbbbbbbb';
const C = 'ev_cccccccccccccccc';

const order = { id: 'ord_1001', status: 'shipped', total_cents: 3500, shipped_at: '2026-08-31T10:20:00Z', lines: [{ sku: 'book', cents: 2000 }] };
const evidence = (id: string, supports: string[], quote?: string): Evidence => ({ evidence_id: id, kind: 'db_row', locator: 'orders/ord_1001', supports, ...(quote === undefined ? {} : { quote }) });
const result = (...items: Evidence[]): CitableResult => ({ data: order, evidence: items });
const ids = (...items: string[]): CitableResult[] => [result(...items.map((id) => evidence(id, ['/status'])))];

describe('checkCitations: which citations are real', () => {
  test('citations are sorted into valid, unknown and uncited; each id counts once', () => {
    const report = checkCitations(`x [${A}] y [${A}] z [ev_ffffffffffffffff] [ev_not-hex]`, ids(A, B, A));
    assert.deepEqual([report.valid, report.unknown, report.uncited, report.missing], [[A], ['ev_ffffffffffffffff', 'ev_not-hex'], [B], false]);
    assert.equal(report.clean, false, 'an unknown citation is not clean');
  });

  test('no citation while evidence was returned is missing; no evidence and no citation is not', () => {
    assert.equal(checkCitations('plain answer', ids(A)).missing, true);
    assert.deepEqual(checkCitations('plain answer', []), { valid: [], unknown: [], uncited: [], missing: false, uncitedClaims: [], quoteMismatches: [], wholeResult: [], clean: true });
  });

  test('only bracketed ev_ ids are citations', () => {
    assert.deepEqual(checkCitations(`${A} (ev_x) [evidence] [ ${B} ]`, ids(A, B)).valid, []);
  });
});

describe('checkCitations: claims without evidence', () => {
  test('an uncited figure, date or id is reported; a cited one and a sentence without any is not', () => {
    const answer = [
      `The order ord_1001 was shipped [${A}].`,
      'Its total is 35.00 EUR.',
      'It left the warehouse on 2026-08-31.',
      'The tracking number is TRK-88-ZX.',
      'Thanks for waiting!',
    ].join(' ');
    const report = checkCitations(answer, [result(evidence(A, ['/id', '/status'], 'ord_1001 shipped'))]);
    assert.deepEqual(report.uncitedClaims, [
      { sentence: 'Its total is 35.00 EUR.', carries: ['number'] },
      { sentence: 'It left the warehouse on 2026-08-31.', carries: ['date'] },
      { sentence: 'The tracking number is TRK-88-ZX.', carries: ['id'] },
    ]);
    assert.equal(report.clean, false);
  });

  test('a citation after the full stop belongs to the sentence before it; decimals do not end a sentence', () => {
    const sentences = answerSentences(`Total: 42.50 EUR. [${A}] Shipped on Aug 31.\n[${B}]\nNothing else`);
    assert.deepEqual(sentences.map((s) => [s.citations, s.carries]), [[[A], ['number']], [[B], ['date']], [[], []]]);
  });

  test('the evidence ids in a citation are not mistaken for claims', () => {
    assert.equal(checkCitations(`The order is shipped [${A}].`, [result(evidence(A, ['/status'], 'shipped'))]).clean, true);
  });
});

describe('checkCitations: cited evidence that does not hold up', () => {
  test('a quote that does not show the values at its pointers is a mismatch (normalised comparison)', () => {
    const answer = `Total 3500 [${A}], shipped [${B}], at 2026-08-31 [${C}].`;
    const report = checkCitations(answer, [
      result(evidence(A, ['/total_cents', '/lines/0'], 'Total: 3,500 cents for the BOOK')),
      result(evidence(B, ['/status'], 'status=pending')),
      result(evidence(C, ['/shipped_at'], 'SHIPPED_AT = 2026-08-31t10:20:00z')),
    ]);
    assert.deepEqual(report.quoteMismatches, [{ evidenceId: B, pointers: ['/status'] }]);
    assert.equal(report.clean, false);
  });

  test('a whole-result pointer is flagged when cited', () => {
    const report = checkCitations(`Order ord_1001 [${A}].`, [result(evidence(A, ['']))]);
    assert.deepEqual(report.wholeResult, [A]);
    assert.equal(report.clean, false);
    assert.deepEqual(checkCitations('Nothing to say.', [result(evidence(A, ['']))]).wholeResult, [], 'only cited evidence is judged');
  });

  test('an id returned twice holds if one copy agrees with its data', () => {
    const stale = { data: { ...order, status: 'paid' }, evidence: [evidence(A, ['/status'], 'shipped')] };
    assert.deepEqual(checkCitations(`Shipped [${A}].`, [stale, result(evidence(A, ['/status'], 'shipped'))]).quoteMismatches, []);
    assert.deepEqual(checkCitations(`Shipped [${A}].`, [stale]).quoteMismatches, [{ evidenceId: A, pointers: ['/status'] }]);
  });

  test('unquotedPointers: numbers by value, containers by any member, no quote means nothing to check', () => {
    assert.deepEqual(unquotedPointers({ supports: ['/total_cents'], quote: 'total 3500.0' }, order), []);
    assert.deepEqual(unquotedPointers({ supports: ['/lines'], quote: 'a book' }, order), []);
    assert.deepEqual(unquotedPointers({ supports: ['/lines', '/missing'], quote: 'a pen' }, order), ['/lines', '/missing']);
    assert.deepEqual(unquotedPointers({ supports: ['/status'] }, order), []);
  });
});
