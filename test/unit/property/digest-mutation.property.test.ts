// "Any single mutation changes the digest": digestJson must tell apart any two JSON values that differ in one place.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { canonicalJson } from '../../../src/contract/canonical-json.js';
import { digestJson } from '../../../src/contract/sha256.js';
import {
  cloneJson,
  defineMember,
  isLeaf,
  jsonObject,
  jsonValue,
  nodeAt,
  nodesOf,
  replaceAt,
  type Json,
} from '../../support/property-json.js';

/** Paths of every object node in `value`. */
const objectPaths = (value: Json) =>
  nodesOf(value).filter((node) => node.value !== null && typeof node.value === 'object' && !Array.isArray(node.value));

describe('digestJson: any single mutation changes the digest', () => {
  it('replacing one leaf with a different JSON value', () => {
    fc.assert(
      fc.property(jsonValue, fc.nat(), jsonValue, (original, pick, replacement) => {
        const leaves = nodesOf(original).filter((node) => isLeaf(node.value));
        const target = leaves[pick % leaves.length]!;
        // "Different" in JSON terms: 0 and -0, or 1 and 1.0, are the same JSON number.
        fc.pre(canonicalJson(replacement) !== canonicalJson(target.value));
        const before = digestJson(original);
        const mutated = replaceAt(original, target.path, replacement);
        assert.notEqual(digestJson(mutated), before);
        assert.equal(digestJson(original), before, 'the original was not modified');
      }),
      { numRuns: 300 },
    );
  });

  it('adding one key to any object', () => {
    fc.assert(
      fc.property(
        jsonObject,
        fc.nat(),
        fc.string({ unit: 'binary', maxLength: 6 }),
        jsonValue,
        (original, pick, key, value) => {
          const objects = objectPaths(original);
          const target = objects[pick % objects.length]!;
          fc.pre(!Object.hasOwn(target.value as object, key));
          const before = digestJson(original);
          const mutated = cloneJson(original);
          defineMember(nodeAt(mutated, target.path) as { [key: string]: Json }, key, value);
          assert.notEqual(digestJson(mutated), before);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('removing one key from any non-empty object', () => {
    fc.assert(
      fc.property(jsonObject, fc.nat(), fc.nat(), (original, pick, keyPick) => {
        const objects = objectPaths(original).filter((node) => Object.keys(node.value as object).length > 0);
        const target = objects[pick % objects.length]!;
        const keys = Object.keys(target.value as object);
        const key = keys[keyPick % keys.length]!;
        const before = digestJson(original);
        const mutated = cloneJson(original);
        const parent = nodeAt(mutated, target.path) as { [key: string]: Json };
        assert.ok(delete parent[key]);
        assert.notEqual(digestJson(mutated), before);
      }),
      { numRuns: 300 },
    );
  });

  it('renaming one key, keeping its value', () => {
    fc.assert(
      fc.property(jsonObject, fc.nat(), fc.string({ unit: 'binary', maxLength: 6 }), (original, keyPick, newKey) => {
        const keys = Object.keys(original);
        const oldKey = keys[keyPick % keys.length]!;
        fc.pre(!Object.hasOwn(original, newKey));
        const mutated = cloneJson(original) as { [key: string]: Json };
        const value = mutated[oldKey]!;
        delete mutated[oldKey];
        defineMember(mutated, newKey, value);
        assert.notEqual(digestJson(mutated), digestJson(original));
      }),
      { numRuns: 200 },
    );
  });
});
