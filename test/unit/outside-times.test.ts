// Times from the outside world are taken as they come — an HTTP `Last-Modified`, epoch milliseconds, ISO 8601 with
// its zone — and one that is not a time fails the evidence layer with a message that tells the model why.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EVIDENCE_FAILURE_MESSAGES } from '../../src/contract/error-catalog.js';
import { readTime } from '../../src/contract/time.js';
import { modelResultSchema, readHttpJson } from '../../src/index.js';
import { executeTool } from '../../src/contract/execute-tool.js';
import { FIXED_NOW, testContext } from '../../testkit/context.js';
import { goodOrderOutput, orderTool, returning, sampleOrder } from '../support/tools.js';

const ctx = testContext();

describe('readTime', () => {
  it('reads the three HTTP date forms, epoch milliseconds, Dates and ISO 8601 with a zone', () => {
    const same = '2026-11-30T11:59:30.000Z';
    for (const input of [
      'Mon, 30 Nov 2026 11:59:30 GMT', // IMF-fixdate: Last-Modified, Date
      'Monday, 30-Nov-26 11:59:30 GMT', // RFC 850, obsolete but still to be accepted
      'Mon Nov 30 11:59:30 2026', // asctime
      Date.parse(same),
      new Date(same),
      same,
      '2026-11-30T11:59:30Z',
      '2026-11-30t11:59:30z',
      '2026-11-30 11:59:30Z',
      '2026-11-30T12:59:30+01:00',
      '2026-11-30T12:59:30+0100',
      '2026-11-30T06:59:30-05',
      '2026-11-30T11:59:30.000000Z',
      '  2026-11-30T11:59:30Z  ',
    ]) {
      assert.deepEqual(readTime(input), { ok: true, iso: same }, String(input));
    }
    assert.deepEqual(readTime('Sat Dec  5 05:31:37 2026'), { ok: true, iso: '2026-12-05T05:31:37.000Z' });
    assert.deepEqual(readTime('2026-11-30'), { ok: true, iso: '2026-11-30T00:00:00.000Z' });
    assert.deepEqual(readTime('2026-11-30T11:59:30.123456789Z'), { ok: true, iso: '2026-11-30T11:59:30.123Z' });
    assert.deepEqual(
      readTime('0050-01-01T00:00:00Z'),
      { ok: true, iso: '0050-01-01T00:00:00.000Z' },
      'no 1900s for years below 100',
    );
  });

  it('refuses what is not a point in time, saying why in fixed words that never repeat the input', () => {
    const cases: [unknown, RegExp][] = [
      ['2026-11-30T11:59:30', /without a time zone/],
      ['1764503970000', /number written as text/],
      ['yesterday', /none of/],
      ['2026-02-31T00:00:00Z', /out of range/],
      ['2026-11-30T25:00:00Z', /out of range/],
      ['Mon, 30 Xyz 2026 11:59:30 GMT', /unknown month/],
      ['2026-11-30T11:59:30+24:00', /offset out of range/],
      ['', /empty/],
      [`2026-11-30T11:59:30Z${' '.repeat(10)}x`.padEnd(200, 'x'), /longer than/],
      [Number.NaN, /not finite/],
      [Number.POSITIVE_INFINITY, /not finite/],
      [8.64e15 + 1, /outside the range/],
      [new Date('nope'), /invalid Date/],
      [null, /null/],
      [{ at: 1 }, /object/],
    ];
    for (const [input, reason] of cases) {
      const reading = readTime(input);
      assert.equal(reading.ok, false, String(input));
      if (!reading.ok) {
        assert.match(reading.reason, reason, String(input));
        if (typeof input === 'string' && input.trim() !== '')
          assert.ok(!reading.reason.includes(input.trim()), 'the reason does not quote the input');
      }
    }
  });
});

describe('observed times in the funnel', () => {
  it("a handler passing a server's Last-Modified header through as its observedAt succeeds, with the instant in provenance and evidence", async () => {
    const lastModified = 'Mon, 30 Nov 2026 11:59:30 GMT';
    const tool = orderTool(() => {
      const response = {
        status: 200,
        headers: { 'content-type': 'application/json', 'last-modified': lastModified },
        body: JSON.stringify(sampleOrder),
      };
      const { rawResponse } = readHttpJson(response);
      return Promise.resolve({
        ...goodOrderOutput(),
        rawResponse,
        observedAt: response.headers['last-modified'],
        evidence: [
          { kind: 'db_row', locator: 'orders/ord_1001', supports: ['/total_cents'], observedAt: lastModified },
        ],
      });
    });
    const result = await executeTool(tool, { order_id: 'ord_1001' }, ctx);
    assert.equal(result.modelResult.status, 'succeeded', JSON.stringify(result.modelResult.error));
    assert.equal(result.modelResult.provenance.observed_at, '2026-11-30T11:59:30.000Z');
    assert.equal(result.modelResult.evidence[0]?.observed_at, '2026-11-30T11:59:30.000Z');
    const epoch = await executeTool(
      orderTool(returning({ ...goodOrderOutput(), observedAt: FIXED_NOW - 1_000 })),
      { order_id: 'ord_1001' },
      ctx,
    );
    assert.equal(epoch.modelResult.provenance.observed_at, new Date(FIXED_NOW - 1_000).toISOString());
  });

  it('an observedAt that is no time fails the evidence layer: the model is told it was the observation time, the audit keeps the reason', async () => {
    for (const [output, reason] of [
      [goodOrderOutput('2026-11-30T11:59:30'), /^observedAt is a date and time without a time zone/],
      [
        {
          ...goodOrderOutput(),
          evidence: [
            { kind: 'db_row', locator: 'orders/ord_1001', supports: ['/total_cents'], observedAt: 'last tuesday' },
          ],
        },
        /^evidence\[0\]\.observedAt is a text/,
      ],
    ] as const) {
      const result = await executeTool(orderTool(returning(output)), { order_id: 'ord_1001' }, ctx);
      const { error } = result.modelResult;
      assert.equal(error?.code, 'OUTPUT_CONTRACT_VIOLATION');
      assert.equal(error?.layer, 'evidence');
      assert.equal(error?.message, EVIDENCE_FAILURE_MESSAGES.observedAt);
      assert.ok(
        modelResultSchema.safeParse(result.modelResult).success,
        'the message is an allowed variant of the code',
      );
      assert.match(result.audit.validation.find((layer) => layer.layer === 'evidence')?.reason ?? '', reason);
    }
  });

  it('every evidence failure names its cause to the model: incomplete evidence, pointers into nothing, a conflict on no field', async () => {
    const cases = [
      [
        { ...goodOrderOutput(), evidence: [{ kind: 'db_row', locator: 'orders/ord_1001', supports: [] }] },
        EVIDENCE_FAILURE_MESSAGES.malformed,
      ],
      [
        {
          ...goodOrderOutput(),
          evidence: [{ kind: 'db_row', locator: 'orders/ord_1001', supports: ['/no_such_field'] }],
        },
        EVIDENCE_FAILURE_MESSAGES.dangling,
      ],
      [
        {
          ...goodOrderOutput(),
          conflicts: [
            {
              field: '/nowhere',
              values: [
                { value: 1, source: 'a' },
                { value: 2, source: 'b' },
              ],
            },
          ],
        },
        EVIDENCE_FAILURE_MESSAGES.conflicts,
      ],
    ] as const;
    for (const [output, message] of cases) {
      const result = await executeTool(orderTool(returning(output)), { order_id: 'ord_1001' }, ctx);
      assert.equal(result.modelResult.error?.code, 'OUTPUT_CONTRACT_VIOLATION');
      assert.equal(result.modelResult.error?.message, message);
      assert.ok(modelResultSchema.safeParse(result.modelResult).success);
    }
  });
});
