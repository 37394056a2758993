// Checking values against schemas from outside (MCP servers): exact without breaking composition, bounded.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Ajv } from 'ajv';
import { compileSchemaCheck, PATTERN_WORK_ISSUE } from '../../../src/adapters/json-schema-check.js';
import { PATTERN_LIMITS, UnsafePatternError } from '../../../src/adapters/linear-pattern.js';

describe('compileSchemaCheck', () => {
  it('closes objects at value positions but leaves allOf/$ref branches open', () => {
    const check = compileSchemaCheck(
      {
        type: 'object',
        allOf: [{ properties: { a: { type: 'string' } } }, { $ref: '#/$defs/withB' }],
        properties: { nested: { type: 'object', properties: { c: { type: 'integer' } } } },
        $defs: { withB: { properties: { b: { type: 'integer' } } } },
      },
      { exact: true },
    );
    assert.deepEqual(check({ a: 'x', b: 1, nested: { c: 2 } }), []);
    assert.deepEqual(check({ a: 'x', b: 1, extra: true }), [{ path: ['extra'], message: 'unevaluatedProperties' }]);
    assert.deepEqual(check({ a: 'x', nested: { c: 2, d: 3 } }), [
      { path: ['nested', 'd'], message: 'unevaluatedProperties' },
    ]);
  });

  it('accepts undeclared keys only when exactness is turned off', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    assert.equal(compileSchemaCheck(schema, { exact: true })({ a: 'x', b: 1 }).length, 1);
    assert.deepEqual(compileSchemaCheck(schema, { exact: false })({ a: 'x', b: 1 }), []);
  });

  it('checks the common formats and reports array positions as numbers', () => {
    const check = compileSchemaCheck(
      { type: 'array', items: { type: 'string', format: 'date-time' } },
      { exact: true },
    );
    assert.deepEqual(check(['2026-11-30T12:00:00Z']), []);
    assert.deepEqual(check(['2026-11-30T12:00:00Z', 'yesterday']), [{ path: [1], message: 'format' }]);
  });

  it('honours a declared draft-07 dialect', () => {
    const check = compileSchemaCheck(
      {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        properties: { a: { type: 'integer' } },
        additionalProperties: false,
      },
      { exact: true },
    );
    assert.deepEqual(check({ a: 1 }), []);
    assert.deepEqual(check({ a: 1, b: 2 }), [{ path: ['b'], message: 'additionalProperties' }]);
  });

  it('closes draft-07 objects too (what official SDK v1 servers declare), nested ones included', () => {
    const schema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { city: { type: 'string' }, where: { type: 'object', properties: { lat: { type: 'number' } } } },
      required: ['city'],
    };
    const check = compileSchemaCheck(schema, { exact: true });
    assert.deepEqual(check({ city: 'Oslo', where: { lat: 59.9 } }), []);
    assert.deepEqual(check({ city: 'Oslo', injected: true }), [
      { path: ['injected'], message: 'unevaluatedProperties' },
    ]);
    assert.deepEqual(check({ city: 'Oslo', where: { lat: 1, lon: 2 } }), [
      { path: ['where', 'lon'], message: 'unevaluatedProperties' },
    ]);
    assert.deepEqual(compileSchemaCheck(schema, { exact: false })({ city: 'Oslo', injected: true }), []);
  });

  it('keeps the meaning of draft-07 keywords that 2020-12 renamed (tuple items, additionalItems, dependencies)', () => {
    const schema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: {
        pair: { type: 'array', items: [{ type: 'string' }, { type: 'integer' }], additionalItems: false },
        open: { type: 'array', items: [{ type: 'string' }] },
        list: { type: 'array', items: { type: 'integer' }, additionalItems: false },
        card: { type: 'string' },
        zip: { type: 'string' },
        country: { type: 'string' },
      },
      dependencies: { card: ['zip'], country: { properties: { zip: { pattern: '^[0-9]+$' } } } },
    };
    const values: unknown[] = [
      { pair: ['a', 1] },
      { pair: ['a', 'b'] },
      { pair: ['a', 1, 2] },
      { open: ['a', 1, null] },
      { open: [1] },
      { list: [1, 2, 3] },
      { list: [1, 'x'] },
      { card: 'visa' },
      { card: 'visa', zip: '0150' },
      { country: 'NO', zip: 'N-0150' },
      { country: 'NO', zip: '0150' },
    ];
    const reference = new Ajv({ strict: false }).compile(schema);
    const check = compileSchemaCheck(schema, { exact: false });
    for (const value of values) assert.equal(check(value).length === 0, reference(value), JSON.stringify(value));
    assert.deepEqual(
      values.map((value) => reference(value)),
      [true, false, false, true, false, true, false, false, true, false, true],
      'the values cover both outcomes of every rewritten keyword',
    );
  });

  it('refuses an oversized or invalid schema instead of compiling it', () => {
    const huge = {
      type: 'object',
      properties: Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`p${i}`, { type: 'string' }])),
    };
    assert.throws(() => compileSchemaCheck(huge, { exact: true }));
    assert.throws(() => compileSchemaCheck({ type: 'no-such-type' }, { exact: true }));
  });
});

describe('compileSchemaCheck on remote patterns', () => {
  /** CPU time of `run`, so a loaded machine does not make the check flaky. */
  function cpuMs(run: () => void): number {
    const before = process.cpuUsage();
    run();
    const used = process.cpuUsage(before);
    return (used.user + used.system) / 1000;
  }

  it('matches a nested-quantifier pattern in linear time: ^(a+)+$ against 28 a\'s and a "!" (regression)', () => {
    const check = compileSchemaCheck({ type: 'string', pattern: '^(a+)+$' }, { exact: true });
    let issues: readonly unknown[] = [];
    assert.ok(cpuMs(() => (issues = check(`${'a'.repeat(28)}!`))) < 100);
    assert.deepEqual(issues, [{ path: [], message: 'pattern' }]);
    assert.ok(cpuMs(() => (issues = check(`${'a'.repeat(1_000_000)}!`))) < 1000, '1 MB of the worst input');
    assert.deepEqual(check('aaa'), []);
  });

  it('uses the linear engine for patternProperties and propertyNames too', () => {
    const check = compileSchemaCheck(
      {
        type: 'object',
        patternProperties: { '^(x+x+)+y$': { type: 'integer' } },
        propertyNames: { pattern: '^(x+x+)+y$|^id$' },
      },
      { exact: false },
    );
    assert.deepEqual(check({ xxy: 1, id: 2 }), []);
    assert.deepEqual(
      check({ xxy: 'one' }).map((issue) => issue.message),
      ['type'],
    );
    let issues: readonly unknown[] = [];
    assert.ok(cpuMs(() => (issues = check({ [`${'x'.repeat(5_000)}z`]: 1 }))) < 100);
    assert.ok(issues.length > 0, 'the name fails propertyNames');
  });

  it('refuses a pattern that needs backtracking (backreference, lookahead) when the schema is compiled', () => {
    for (const pattern of ['^(a)\\1$', '^(?<x>a)\\k<x>$', '^(?=a)a$', '^(?!b)a$', 'a{2000}']) {
      assert.throws(
        () => compileSchemaCheck({ type: 'string', pattern }, { exact: true }),
        UnsafePatternError,
        pattern,
      );
    }
    assert.throws(
      () => compileSchemaCheck({ type: 'string', pattern: '(' }, { exact: true }),
      UnsafePatternError,
      'not a regular expression',
    );
  });

  it('refuses a pattern whose program is too large, one too long to compile, and a schema whose patterns add up past the bound', () => {
    const refused = [
      `${'[\\s\\S]{1000}'.repeat(10)}[^a]`,
      '[\\s\\S]{1000}[\\s\\S]{1000}',
      'x'.repeat(PATTERN_LIMITS.maxPatternChars + 1),
    ];
    for (const pattern of refused)
      assert.throws(
        () => compileSchemaCheck({ type: 'string', pattern }, { exact: true }),
        UnsafePatternError,
        pattern.slice(0, 40),
      );
    // Each of these is 1,003 instructions; twenty distinct ones exceed the schema's 20,000.
    const many = Array.from({ length: 20 }, (_, i) => ({ pattern: `[\\s\\S]{1000}${String.fromCharCode(97 + i)}` }));
    assert.throws(() => compileSchemaCheck({ type: 'string', allOf: many }, { exact: true }), UnsafePatternError);
    assert.doesNotThrow(() => compileSchemaCheck({ type: 'string', allOf: many.slice(0, 19) }, { exact: true }));
    assert.doesNotThrow(() => compileSchemaCheck({ type: 'string', pattern: 'a{1000}b{990}' }, { exact: true }));
  });

  it('fails a value whose pattern work exceeds the bound, unread, whatever the schema makes of the match (not, anyOf)', () => {
    const wide = '^[\\s\\S]{1000}'; // 1,002 instructions, and every long string matches it
    const long = 'b'.repeat(Math.ceil(PATTERN_LIMITS.maxWorkPerCheck / 1_002));
    const short = 'b'.repeat(1_000);
    for (const schema of [
      { type: 'string', pattern: wide },
      { not: { pattern: wide } },
      { anyOf: [{ pattern: wide }, { type: 'string' }] },
    ]) {
      const check = compileSchemaCheck(schema, { exact: true });
      assert.deepEqual(check(long), [PATTERN_WORK_ISSUE], JSON.stringify(schema));
    }
    assert.deepEqual(compileSchemaCheck({ type: 'string', pattern: wide }, { exact: true })(short), []);
    assert.equal(compileSchemaCheck({ not: { pattern: wide } }, { exact: true })(short).length, 1);
    // The bound is per check, over every value: 20 values that each fit fail together, and the next check starts afresh.
    const items = compileSchemaCheck({ type: 'array', items: { type: 'string', pattern: wide } }, { exact: true });
    const each = 'b'.repeat(Math.floor(long.length / 10));
    assert.deepEqual(items(Array.from({ length: 20 }, () => each)), [PATTERN_WORK_ISSUE]);
    assert.deepEqual(items(Array.from({ length: 5 }, () => each)), []);
    assert.deepEqual(items([...Array.from({ length: 5 }, () => each), 'x']), [{ path: [5], message: 'pattern' }]);
  });

  it('keeps ECMA-262 pattern syntax: Unicode escapes and classes, named groups, lookbehind', () => {
    const check = compileSchemaCheck(
      { type: 'string', pattern: '^\\u{1F600}?(?<word>\\p{L}+)-\\d{2,3}(?<=\\d)$' },
      { exact: true },
    );
    assert.deepEqual(check('😀héllo-42'), []);
    assert.equal(check('hello-4').length, 1);
  });

  it('checks the email format in linear time (its usual pattern is quadratic on a@a.a.a…@)', () => {
    const check = compileSchemaCheck({ type: 'string', format: 'email' }, { exact: true });
    assert.deepEqual(check('ann@example.com'), []);
    for (const bad of ['ann@example', 'ann@.com', 'ann@example.', '@example.com', 'a@b@c.d', 'a b@c.d'])
      assert.equal(check(bad).length, 1, bad);
    let issues: readonly unknown[] = [];
    assert.ok(cpuMs(() => (issues = check(`a@${'a.'.repeat(500_000)}@`))) < 100);
    assert.equal(issues.length, 1);
  });
});
