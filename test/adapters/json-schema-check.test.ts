// Checking values against schemas from outside (MCP servers): exact without breaking composition, bounded.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileSchemaCheck } from '../../src/adapters/json-schema-check.js';

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
    assert.deepEqual(check({ a: 'x', nested: { c: 2, d: 3 } }), [{ path: ['nested', 'd'], message: 'unevaluatedProperties' }]);
  });

  it('accepts undeclared keys only when exactness is turned off', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    assert.equal(compileSchemaCheck(schema, { exact: true })({ a: 'x', b: 1 }).length, 1);
    assert.deepEqual(compileSchemaCheck(schema, { exact: false })({ a: 'x', b: 1 }), []);
  });

  it('checks the common formats and reports array positions as numbers', () => {
    const check = compileSchemaCheck({ type: 'array', items: { type: 'string', format: 'date-time' } }, { exact: true });
    assert.deepEqual(check(['2026-11-30T12:00:00Z']), []);
    assert.deepEqual(check(['2026-11-30T12:00:00Z', 'yesterday']), [{ path: [1], message: 'format' }]);
  });

  it('honours a declared draft-07 dialect', () => {
    const check = compileSchemaCheck({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { a: { type: 'integer' } }, additionalProperties: false }, { exact: true });
    assert.deepEqual(check({ a: 1 }), []);
    assert.deepEqual(check({ a: 1, b: 2 }), [{ path: ['b'], message: 'additionalProperties' }]);
  });

  it('refuses an oversized or invalid schema instead of compiling it', () => {
    const huge = { type: 'object', properties: Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`p${i}`, { type: 'string' }])) };
    assert.throws(() => compileSchemaCheck(huge, { exact: true }));
    assert.throws(() => compileSchemaCheck({ type: 'no-such-type' }, { exact: true }));
  });
});
