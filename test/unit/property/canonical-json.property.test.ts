// Properties of RFC 8785 canonical JSON that every digest in the package relies on.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { canonicalJson } from '../../../src/contract/canonical-json.js';
import { digestJson } from '../../../src/contract/sha256.js';
import { cloneJson, jsonValue, shuffleKeys } from '../../support/property-json.js';

describe('canonicalJson properties', () => {
  it('is idempotent: canonicalizing the parsed canonical form gives the same text', () => {
    fc.assert(
      fc.property(jsonValue, (value) => {
        const canonical = canonicalJson(value);
        assert.equal(canonicalJson(JSON.parse(canonical)), canonical);
      }),
      { numRuns: 300 },
    );
  });

  it('preserves meaning: the canonical text parses back to the same JSON value', () => {
    fc.assert(
      fc.property(jsonValue, (value) => {
        assert.deepStrictEqual(JSON.parse(canonicalJson(value)), cloneJson(value));
      }),
      { numRuns: 300 },
    );
  });

  it('does not depend on key insertion order (text and digest)', () => {
    fc.assert(
      fc.property(jsonValue, fc.integer(), (value, seed) => {
        const reordered = shuffleKeys(value, seed);
        assert.equal(canonicalJson(reordered), canonicalJson(value));
        assert.equal(digestJson(reordered), digestJson(value));
      }),
      { numRuns: 300 },
    );
  });

  it('writes any finite double in its shortest ES6 form, which reads back as the same number', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (value) => {
        const text = canonicalJson(value);
        assert.equal(text, Object.is(value, -0) ? '0' : String(value));
        assert.equal(Number(text), value === 0 ? 0 : value);
        assert.match(text, /^-?(0|[1-9][0-9]*)(\.[0-9]+)?(e[+-][0-9]+)?$/);
      }),
      { numRuns: 1000 },
    );
  });

  it('emits no whitespace outside strings and escapes nothing beyond RFC 8785 §3.2.2.2', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (text) => {
        const quoted = canonicalJson(text);
        // Only `"`, `\` and C0 controls are escaped; every other code point is written as itself.
        const expected = `"${Array.from(text, (ch) => {
          const code = ch.codePointAt(0)!;
          if (ch === '"' || ch === '\\') return `\\${ch}`;
          if (code >= 0x20) return ch;
          const short = ({ 8: '\\b', 9: '\\t', 10: '\\n', 12: '\\f', 13: '\\r' } as Record<number, string>)[code];
          return short ?? `\\u${code.toString(16).padStart(4, '0')}`;
        }).join('')}"`;
        assert.equal(quoted, expected);
      }),
      { numRuns: 500 },
    );
  });
});
