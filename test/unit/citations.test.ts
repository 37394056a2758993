import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { answerSentences } from '../../src/contract/answer-claims.js';
import type { Evidence } from '../../src/contract/model-result.js';
import { unquotedPointers } from '../../src/contract/quote-match.js';
import { checkCitations, type CitableResult } from '../../workflows/citations.js';
import { z } from 'zod';
import { defineTool } from '../../testkit/define-tool.js';
import { executeTool } from '../../src/contract/execute-tool.js';
import { testContext } from '../../testkit/context.js';

const A = 'ev_aaaaaaaaaaaaaaaa';
const B = 'ev_bbbbbbbbbbbbbbbb';
const C = 'ev_cccccccccccccccc';

const order = {
  id: 'ord_1001',
  status: 'shipped',
  total_cents: 3500,
  shipped_at: '2026-08-31T10:20:00Z',
  lines: [{ sku: 'book', cents: 2000 }],
};
const evidence = (id: string, supports: string[], quote?: string): Evidence => ({
  evidence_id: id,
  kind: 'db_row',
  locator: 'orders/ord_1001',
  supports,
  ...(quote === undefined ? {} : { quote }),
});
const result = (...items: Evidence[]): CitableResult => ({ data: order, evidence: items });
const ids = (...items: string[]): CitableResult[] => [result(...items.map((id) => evidence(id, ['/status'])))];

describe('checkCitations: which citations are real', () => {
  test('citations are sorted into valid, unknown and uncited; each id counts once', () => {
    const report = checkCitations(`x [${A}] y [${A}] z [ev_ffffffffffffffff] [ev_not-hex]`, ids(A, B, A));
    assert.deepEqual(
      [report.valid, report.unknown, report.uncited, report.missing],
      [[A], ['ev_ffffffffffffffff', 'ev_not-hex'], [B], false],
    );
    assert.equal(report.clean, false, 'an unknown citation is not clean');
  });

  test('no citation while evidence was returned is missing; no evidence and no citation is not', () => {
    assert.equal(checkCitations('plain answer', ids(A)).missing, true);
    assert.deepEqual(checkCitations('plain answer', []), {
      valid: [],
      unknown: [],
      uncited: [],
      missing: false,
      uncitedClaims: [],
      unsupportedClaims: [],
      quoteMismatches: [],
      wholeResult: [],
      clean: true,
    });
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
    assert.deepEqual(
      sentences.map((s) => [s.citations, s.carries]),
      [
        [[A], ['number']],
        [[B], ['date']],
        [[], []],
      ],
    );
  });

  test('the evidence ids in a citation are not mistaken for claims', () => {
    assert.equal(
      checkCitations(`The order is shipped [${A}].`, [result(evidence(A, ['/status'], 'shipped'))]).clean,
      true,
    );
  });
});

describe('checkCitations: claims tied to the evidence that supports them (seeds 000, 004)', () => {
  const stock = { sku: 'sku_1', status: 'in_stock', stock: 12, warehouse: 'Hangzhou North' };
  const stockResult = (...items: Evidence[]): CitableResult => ({ data: stock, evidence: items });

  test('a figure its cited evidence does not show is unsupported: "stock is 17" citing evidence for /status', () => {
    const report = checkCitations(`Stock is 17 [${A}].`, [stockResult(evidence(A, ['/status']))]);
    assert.deepEqual(report.valid, [A], 'the citation is real');
    assert.deepEqual(report.unsupportedClaims, [
      { sentence: `Stock is 17 [${A}].`, evidenceIds: [A], claims: [{ kind: 'number', text: '17' }] },
    ]);
    assert.equal(report.clean, false);
  });

  test('the figure its evidence points at is supported; so is one its quote shows', () => {
    assert.equal(checkCitations(`Stock is 12 [${A}].`, [stockResult(evidence(A, ['/stock']))]).clean, true);
    assert.equal(
      checkCitations(`Stock is 12 [${A}].`, [stockResult(evidence(A, ['/sku'], 'sku_1: 12 units'))]).clean,
      true,
    );
    const twoSources = checkCitations(`Stock is 12 in Hangzhou North [${A}][${B}].`, [
      stockResult(evidence(A, ['/stock']), evidence(B, ['/warehouse'])),
    ]);
    assert.equal(twoSources.clean, true, 'what one cited item does not show, another may');
  });

  test('a sentence without a figure that states a value the tools returned is checked too: cited, it must be supported; uncited, it is a claim', () => {
    const unsupported = checkCitations(`The item is in stock [${A}].`, [stockResult(evidence(A, ['/stock']))]);
    assert.deepEqual(
      unsupported.unsupportedClaims.map((claim) => claim.claims),
      [[{ kind: 'value', text: 'in stock' }]],
    );
    assert.equal(checkCitations(`The item is in stock [${A}].`, [stockResult(evidence(A, ['/status']))]).clean, true);
    const uncited = checkCitations(`It ships from Hangzhou North. The item is in stock [${A}].`, [
      stockResult(evidence(A, ['/status'])),
    ]);
    assert.deepEqual(uncited.uncitedClaims, [{ sentence: 'It ships from Hangzhou North.', carries: ['value'] }]);
    assert.equal(
      checkCitations('Thanks for waiting, have a nice day.', [stockResult(evidence(A, ['/status']))]).uncitedClaims
        .length,
      0,
      'prose that states nothing returned needs nothing',
    );
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
    assert.deepEqual(
      checkCitations('Nothing to say.', [result(evidence(A, ['']))]).wholeResult,
      [],
      'only cited evidence is judged',
    );
  });

  test('an id returned twice holds if one copy agrees with its data', () => {
    const stale = { data: { ...order, status: 'paid' }, evidence: [evidence(A, ['/status'], 'shipped')] };
    assert.deepEqual(
      checkCitations(`Shipped [${A}].`, [stale, result(evidence(A, ['/status'], 'shipped'))]).quoteMismatches,
      [],
    );
    assert.deepEqual(checkCitations(`Shipped [${A}].`, [stale]).quoteMismatches, [
      { evidenceId: A, pointers: ['/status'] },
    ]);
  });

  test('unquotedPointers: numbers by value, containers by any member, no quote means nothing to check', () => {
    assert.deepEqual(unquotedPointers({ supports: ['/total_cents'], quote: 'total 3500.0' }, order), []);
    assert.deepEqual(unquotedPointers({ supports: ['/lines'], quote: 'a book' }, order), []);
    assert.deepEqual(unquotedPointers({ supports: ['/lines', '/missing'], quote: 'a pen' }, order), [
      '/lines',
      '/missing',
    ]);
    assert.deepEqual(unquotedPointers({ supports: ['/status'] }, order), []);
  });
});

describe('evidence quotes are checked against the source they quote, not only the data (seed 004)', () => {
  const body = JSON.stringify({
    order: { id: 'ord_7', status: 'shipped', note: 'Left the Hangzhou warehouse — on time' },
  });
  const tool = (quote: string) =>
    defineTool({
      name: 'orders.status',
      description: 'The status of one order.',
      input: z.strictObject({ id: z.string() }),
      output: z.strictObject({ status: z.string() }),
      effect: 'read',
      source: { label: 'orders-api', type: 'http_api' },
      handler: () =>
        Promise.resolve({
          data: { status: 'shipped' },
          rawResponse: { body, contentType: 'application/json' },
          evidence: [{ kind: 'api_record', locator: 'orders/ord_7', supports: ['/status'], quote }],
        }),
    });

  test('a quote the kept response contains stays (compared as words: punctuation and JSON syntax do not matter)', async () => {
    for (const quote of ['status: shipped', 'left the HANGZHOU warehouse, on time']) {
      const { modelResult } = await executeTool(tool(quote), { id: 'ord_7' }, testContext());
      assert.equal(modelResult.evidence.length, 1, quote);
      assert.deepEqual(modelResult.warnings, []);
    }
  });

  test('a quote the source does not contain is left out with EVIDENCE_OMITTED, though it matches the data', async () => {
    const { modelResult, audit } = await executeTool(tool('status: shipped express'), { id: 'ord_7' }, testContext());
    assert.equal(modelResult.status, 'succeeded');
    assert.deepEqual(modelResult.evidence, []);
    assert.deepEqual(
      modelResult.warnings.map((warning) => warning.code),
      ['EVIDENCE_OMITTED'],
    );
    assert.equal(audit.validation.find((layer) => layer.layer === 'evidence')?.outcome, 'warned');
  });
});
