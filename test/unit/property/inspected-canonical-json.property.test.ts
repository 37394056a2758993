// The canonical JSON of a value the shape gate accepted, written natively from the gate's facts, is the canonical
// writer's text byte for byte (the raw digest and the artifact of every call are taken over it).
import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import fc from 'fast-check';
import { canonicalJson } from '../../../src/contract/canonical-json.js';
import { canonicalJsonOfInspected } from '../../../src/contract/inspected-canonical-json.js';
import { inspectJson } from '../../../src/contract/json-shape.js';
import { jsonValue, type Json } from '../../support/property-json.js';

/** Names that sort differently as numbers and as text, need escaping, or are inherited methods of every object. */
const NAMES = ['a', 'B', '10', '9', 'é', '\u0000', 'tags', 'toString', 'valueOf', 'hasOwnProperty', 'toJSON'];

/** Records sharing a few names, as a listing's items do: the values the native path is for. */
const { record } = fc.letrec<{ record: Json }>((tie) => ({
  record: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.oneof(
      fc.string({ unit: 'binary', maxLength: 6 }),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.boolean(),
      fc.constant(null),
    ),
    fc.array(tie('record'), { maxLength: 5 }),
    fc.dictionary(fc.constantFrom(...NAMES), tie('record'), { maxKeys: 5 }),
  ),
}));

/** The native text of `value`; `null` when the gate refuses it (a key like `__proto__`). */
function viaInspection(value: unknown): string | null {
  const shape = inspectJson(value, 64);
  return shape.ok ? canonicalJsonOfInspected(value, shape) : null;
}

describe('canonicalJsonOfInspected', () => {
  it("writes the canonical writer's text for records sharing names, and writes most of them natively", () => {
    const stringify = mock.method(JSON, 'stringify');
    let runs = 0;
    try {
      fc.assert(
        fc.property(fc.array(record, { minLength: 1, maxLength: 8 }), (items) => {
          runs++;
          assert.equal(viaInspection({ items }), canonicalJson({ items }));
        }),
        { numRuns: 500 },
      );
      const native = stringify.mock.calls.filter((call) => Array.isArray(call.arguments[1])).length;
      assert.ok(native > runs / 2, `only ${native} of ${runs} written natively`);
    } finally {
      stringify.mock.restore();
    }
  });

  it("writes the canonical writer's text for any JSON value the gate accepts", () => {
    fc.assert(
      fc.property(jsonValue, (value) => {
        const text = viaInspection(value);
        fc.pre(text !== null);
        assert.equal(text, canonicalJson(value));
      }),
      { numRuns: 500 },
    );
  });

  it('is not misled by a name that a prototype defines', () => {
    const polluted = Object.prototype as Record<string, unknown>;
    const value = { items: [{ shared: 1, extra: 2 }, { shared: 3 }] };
    polluted['extra'] = 'inherited';
    try {
      assert.equal(viaInspection(value), '{"items":[{"extra":2,"shared":1},{"shared":3}]}');
    } finally {
      delete polluted['extra'];
    }
  });
});
