// RFC 8785 conformance: canonicalJson against the cyberphone/json-canonicalization vectors, vendored verbatim in
// test/conformance/vectors/jcs/ (provenance and SHA-256 of each file in that folder's README).
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { canonicalJson, CanonicalJsonError, type CanonicalJsonFailure } from '../../src/contract/canonical-json.js';
import { CANONICAL_JSON_MAX_DEPTH } from '../../src/contract/canonical-json.js';
import { readVector, VECTORS_DIR } from '../support/conformance-vectors.js';

const VECTOR_NAMES = ['arrays', 'french', 'structures', 'unicode', 'values', 'weird'] as const;

function vectorFile(...parts: string[]): Buffer {
  return readVector(['jcs', ...parts].join('/'));
}

/** Decodes a line's IEEE-754 bits (1–16 hex digits, no zero padding) into the double they denote. */
function doubleFromHex(hex: string): number {
  assert.match(hex, /^[0-9a-f]{1,16}$/, `bad hex field '${hex}'`);
  return Buffer.from(hex.padStart(16, '0'), 'hex').readDoubleBE(0);
}

function expectRejected(value: unknown, reason: CanonicalJsonFailure, path: string): void {
  assert.throws(
    () => canonicalJson(value),
    (error: unknown) => {
      assert.ok(error instanceof CanonicalJsonError, `expected CanonicalJsonError, got ${String(error)}`);
      assert.equal(error.reason, reason);
      assert.equal(error.path, path);
      return true;
    },
  );
}

describe('RFC 8785 vectors: input/ → output/ and outhex/', () => {
  it('the vector folder holds exactly the six published cases', () => {
    const listed = (dir: string, ext: string) =>
      readdirSync(join(VECTORS_DIR, 'jcs', dir))
        .filter((name) => name.endsWith(ext))
        .map((name) => name.slice(0, -ext.length))
        .sort();
    assert.deepEqual(listed('input', '.json'), [...VECTOR_NAMES]);
    assert.deepEqual(listed('output', '.json'), [...VECTOR_NAMES]);
    assert.deepEqual(listed('outhex', '.txt'), [...VECTOR_NAMES]);
  });

  for (const name of VECTOR_NAMES) {
    it(`${name}.json canonicalizes to the exact expected bytes`, () => {
      const input: unknown = JSON.parse(vectorFile('input', `${name}.json`).toString('utf8'));
      const expected = vectorFile('output', `${name}.json`);
      const expectedFromHex = Buffer.from(
        vectorFile('outhex', `${name}.txt`).toString('ascii').replace(/\s+/g, ''),
        'hex',
      );
      assert.ok(expected.length > 0);
      assert.ok(expected.equals(expectedFromHex), `output/${name}.json and outhex/${name}.txt disagree`);
      const actual = Buffer.from(canonicalJson(input), 'utf8');
      assert.ok(
        actual.equals(expected),
        `bytes differ for ${name}:\n  got      ${actual.toString('hex')}\n  expected ${expected.toString('hex')}`,
      );
    });
  }
});

describe('ES6 number serialization: numbers/es6testfile-first10000.txt', () => {
  it('all 10,000 lines serialize to the expected text', () => {
    const lines = vectorFile('numbers', 'es6testfile-first10000.txt').toString('ascii').split('\n');
    assert.equal(lines.pop(), '', 'the file ends with a newline');
    assert.equal(lines.length, 10_000);
    const failures: string[] = [];
    for (const [index, line] of lines.entries()) {
      const comma = line.indexOf(',');
      assert.ok(comma > 0, `line ${index + 1} has no comma: '${line}'`);
      const value = doubleFromHex(line.slice(0, comma));
      const expected = line.slice(comma + 1);
      const actual = canonicalJson(value);
      if (actual !== expected) failures.push(`line ${index + 1}: ${line} → got ${actual}`);
      // Inside a container too, since digests are always taken over documents.
      else if (canonicalJson({ n: [value] }) !== `{"n":[${expected}]}`)
        failures.push(`line ${index + 1}: nested form differs`);
    }
    assert.deepEqual(failures.slice(0, 20), [], `${failures.length} number line(s) failed`);
  });

  it('the README samples serialize as listed', () => {
    const lines = vectorFile('numbers', 'readme-samples.csv').toString('ascii').trim().split('\n');
    assert.equal(lines.length, 7);
    for (const line of lines) {
      const [hex, expected] = line.split(',') as [string, string];
      assert.equal(canonicalJson(doubleFromHex(hex)), expected, line);
    }
  });
});

describe('non-finite numbers: numbers/non-finite-notes.txt', () => {
  const lines = () => vectorFile('numbers', 'non-finite-notes.txt').toString('utf8').trim().split('\n');

  it('every "MUST be rejected" line is rejected with non_finite_number, every other line serializes as listed', () => {
    let rejected = 0;
    let accepted = 0;
    for (const line of lines()) {
      const comma = line.indexOf(',');
      const value = doubleFromHex(line.slice(0, comma));
      const rest = line.slice(comma + 1);
      if (rest.includes('MUST be rejected')) {
        assert.ok(!Number.isFinite(value), `${line} decodes to a finite number`);
        expectRejected(value, 'non_finite_number', '');
        expectRejected({ a: [1, value] }, 'non_finite_number', '/a/1');
        rejected++;
      } else {
        assert.equal(canonicalJson(value), rest, line);
        accepted++;
      }
    }
    assert.equal(rejected, 3, 'NaN, +Infinity and -Infinity');
    assert.equal(accepted, lines().length - 3);
  });

  it('the three rejected values are exactly NaN, +Infinity and -Infinity', () => {
    const rejectedValues = lines()
      .filter((line) => line.includes('MUST be rejected'))
      .map((line) => doubleFromHex(line.slice(0, line.indexOf(','))));
    assert.deepEqual(rejectedValues, [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]);
  });
});

describe('values with no canonical JSON form are rejected with a reason and a JSON Pointer', () => {
  it('lone surrogates in string values', () => {
    expectRejected('\uD800', 'lone_surrogate', '');
    expectRejected('abc\uDC00', 'lone_surrogate', '');
    expectRejected({ text: 'x\uDBFFy' }, 'lone_surrogate', '/text');
    expectRejected({ list: ['ok', '\uDFFF'] }, 'lone_surrogate', '/list/1');
    // A reversed pair is two lone surrogates, not a pair.
    expectRejected(['\uDE02\uD83D'], 'lone_surrogate', '/0');
    // A proper pair is fine and is emitted as the character itself.
    assert.equal(canonicalJson('\uD83D\uDE02'), '"😂"');
  });

  it('lone surrogates in keys, with the key escaped in the pointer', () => {
    expectRejected({ 'k\uD800': 1 }, 'lone_surrogate', '/k\uD800');
    expectRejected({ 'a/b': { 'c~\uDC00': true } }, 'lone_surrogate', '/a~1b/c~0\uDC00');
  });

  it('functions, BigInt and symbols', () => {
    expectRejected(() => 1, 'unsupported_type', '');
    expectRejected({ f: function named() {} }, 'unsupported_type', '/f');
    expectRejected(10n, 'unsupported_type', '');
    expectRejected({ n: [1, 2n] }, 'unsupported_type', '/n/1');
    expectRejected(Symbol('s'), 'unsupported_type', '');
    expectRejected({ 'x/y': { s: Symbol.iterator } }, 'unsupported_type', '/x~1y/s');
  });

  it('undefined: rejected at the top level and in arrays, omitted as an object member', () => {
    expectRejected(undefined, 'unsupported_type', '');
    expectRejected([1, undefined, 3], 'unsupported_type', '/1');
    // eslint-disable-next-line no-sparse-arrays -- a hole reads as undefined and must not become `null`.
    expectRejected([1, , 3], 'unsupported_type', '/1');
    expectRejected({ deep: [[undefined]] }, 'unsupported_type', '/deep/0/0');
    assert.equal(canonicalJson({ a: undefined, b: 1 }), '{"b":1}');
  });

  it('cycles, but not shared references', () => {
    const objectCycle: Record<string, unknown> = { a: 1 };
    objectCycle['self'] = objectCycle;
    expectRejected(objectCycle, 'cycle', '/self');
    const arrayCycle: unknown[] = [1];
    arrayCycle.push({ back: arrayCycle });
    expectRejected({ top: arrayCycle }, 'cycle', '/top/1/back');
    const shared = { v: 1 };
    assert.equal(canonicalJson({ x: shared, y: [shared, shared] }), '{"x":{"v":1},"y":[{"v":1},{"v":1}]}');
  });

  it('Date, Map, Set, RegExp, boxed primitives, typed arrays and class instances', () => {
    class Money {
      readonly amount = 1;
    }
    expectRejected(new Date(0), 'non_plain_object', '');
    expectRejected({ at: new Date(0) }, 'non_plain_object', '/at');
    expectRejected(new Map([['a', 1]]), 'non_plain_object', '');
    expectRejected({ s: [new Set([1])] }, 'non_plain_object', '/s/0');
    expectRejected(/re/, 'non_plain_object', '');
    expectRejected({ n: Object(1) as unknown }, 'non_plain_object', '/n');
    expectRejected(new Uint8Array(2), 'non_plain_object', '');
    expectRejected({ price: new Money() }, 'non_plain_object', '/price');
  });

  it('prototype-less objects are plain JSON objects', () => {
    const bare = Object.create(null) as Record<string, unknown>;
    bare['b'] = 2;
    bare['a'] = 1;
    assert.equal(canonicalJson(bare), '{"a":1,"b":2}');
  });

  it(`nesting deeper than ${CANONICAL_JSON_MAX_DEPTH} is refused instead of overflowing the stack`, () => {
    let deep: unknown = 0;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    assert.throws(
      () => canonicalJson(deep),
      (error: unknown) =>
        error instanceof CanonicalJsonError &&
        error.reason === 'too_deep' &&
        error.path === '/0'.repeat(CANONICAL_JSON_MAX_DEPTH),
    );
    let atLimit: unknown = 0;
    for (let i = 0; i < CANONICAL_JSON_MAX_DEPTH; i++) atLimit = [atLimit];
    assert.equal(
      canonicalJson(atLimit),
      `${'['.repeat(CANONICAL_JSON_MAX_DEPTH)}0${']'.repeat(CANONICAL_JSON_MAX_DEPTH)}`,
    );
  });
});
