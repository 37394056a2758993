import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { inspectJson } from '../../src/contract/json-shape.js';

describe('inspectJson reports the first failure in its order of visit', () => {
  // The path of a refusal is recorded in audits: the order values are visited in (members last to first, items first
  // to last, an array's `undefined` items checked last to first when it is entered) is pinned here.
  const cases: [string, unknown, number, { reason: string; path: string }][] = [
    ['the last member is visited first', { a: [[[]]], b: [[[]]] }, 2, { reason: 'too_deep', path: '/b/0' }],
    ['the last undefined item of a list', [1, undefined, 2, undefined], 8, { reason: 'unsupported_type', path: '/3' }],
    [
      'a nested member before an earlier sibling',
      { a: Number.NaN, b: { c: Number.POSITIVE_INFINITY } },
      8,
      { reason: 'non_finite_number', path: '/b/c' },
    ],
    [
      'a forbidden key of a null-prototype object',
      { x: 1, y: Object.assign(Object.create(null) as object, { constructor: 1 }) },
      8,
      { reason: 'forbidden_key', path: '/y/constructor' },
    ],
    [
      'a shared object is no cycle; the cycle is where it closes',
      (() => {
        const shared = { s: 1 };
        const root: Record<string, unknown> = { a: shared, b: shared };
        root['c'] = { back: root };
        return root;
      })(),
      8,
      { reason: 'cycle', path: '/c/back' },
    ],
  ];
  for (const [name, value, maxDepth, expected] of cases) {
    it(name, () => {
      const shape = inspectJson(value, maxDepth);
      assert.equal(shape.ok, false);
      assert.deepEqual(shape.ok ? null : { reason: shape.reason, path: shape.path }, expected);
    });
  }
});

describe('inspectJson finds a cycle at any depth, and only a cycle', () => {
  /** A chain of `depth` nested objects; `last(innermost)` goes inside the innermost. */
  function chain(depth: number, last: (innermost: object) => unknown): { root: Record<string, unknown>; path: string } {
    const root: Record<string, unknown> = {};
    const tokens: string[] = [];
    let node = root;
    for (let i = 1; i < depth; i++) {
      const child: Record<string, unknown> = {};
      node[`k${i}`] = child;
      tokens.push(`k${i}`);
      node = child;
    }
    node['last'] = last(node);
    return { root, path: `/${[...tokens, 'last'].join('/')}` };
  }

  for (const depth of [3, 16, 17, 40]) {
    it(`a container ${depth} levels deep that holds its parent`, () => {
      const { root, path } = chain(depth, (innermost) => ({ back: innermost }));
      assert.deepEqual(inspectJson(root, 100), { ok: false, reason: 'cycle', path: `${path}/back` });
    });
    it(`the same object twice ${depth} levels deep, beside itself, is no cycle`, () => {
      const shared = { leaf: [1] };
      const { root } = chain(depth, () => [shared, shared, { again: shared }]);
      assert.equal(inspectJson(root, 100).ok, true);
    });
  }
});

describe('inspectJson gathers the member names it checked', () => {
  it('names every member once and counts the objects', () => {
    const shape = inspectJson({ a: 1, b: [{ a: 2, c: 3 }, { c: undefined }], d: {} }, 8);
    assert.ok(shape.ok);
    assert.deepEqual([...shape.members.names].sort(), ['a', 'b', 'c', 'd']);
    assert.equal(shape.members.objects, 4);
  });
});
