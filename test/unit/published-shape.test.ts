import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { modelResultSchema, type ModelResult } from '../../src/index.js';
import { canonicalJson, CanonicalJsonError } from '../../src/contract/canonical-json.js';
import { executeTool } from '../../src/contract/execute-tool.js';
import { guardedParse } from '../../src/contract/guarded-parse.js';
import { publishedShapeIssues } from '../../src/contract/published-shape.js';
import { testContext } from '../../testkit/context.js';
import { goodOrderOutput, listTool, orderTool, returning } from '../support/tools.js';

/** Results as the funnel makes them: a success, a failure, a truncated listing. */
async function producedResults(): Promise<ModelResult[]> {
  const ctx = testContext();
  return [
    (await executeTool(orderTool(returning(goodOrderOutput())), { order_id: 'ord_1001' }, ctx)).modelResult,
    (await executeTool(orderTool(returning({ nope: 1 })), { order_id: 'ord_1001' }, ctx)).modelResult,
    (await executeTool(listTool(400, { maxBytes: 2048 }), { query: 'x' }, ctx)).modelResult,
  ];
}

const error = {
  code: 'TOOL_ERROR',
  category: 'internal',
  message: 'x',
  retryable: false,
  recovery: 'explain',
} as const;
const withData =
  (data: unknown) =>
  (r: ModelResult): ModelResult => ({ ...r, data: data as ModelResult['data'] });
const cyclic = (() => {
  const node: Record<string, unknown> = { a: 1 };
  node['self'] = node;
  return node;
})();

/** Changes to a result, each of which the published schema either refuses or (the first ones) accepts. */
const changes: [string, (r: ModelResult) => ModelResult][] = [
  ['unchanged', (r) => r],
  ['other JSON data', withData({ list: [1, 'two', null, true, { nested: [] }] })],
  ['data without a prototype', withData(Object.assign(Object.create(null) as object, { a: 1 }))],
  ['failed with data', (r) => ({ ...r, status: 'failed', error, data: r.data ?? { a: 1 } })],
  [
    'accepted with data',
    (r) => ({ ...r, status: 'accepted', data: r.data ?? { a: 1 }, job: { handle: 'j', poll_after_ms: null } }),
  ],
  ['a non-finite number in data', withData({ a: [1, Number.NaN] })],
  ['an undefined member in data', withData({ a: undefined, b: 1 })],
  ['an undefined item in data', withData([1, undefined])],
  ['a date in data', withData({ at: new Date(0) })],
  ['a function in data', withData({ f: () => 1 })],
  ['a bigint in data', withData({ n: 1n })],
  ['an undeclared field', (r) => ({ ...r, extra: 1 }) as ModelResult],
  ['a bad schema version', (r) => ({ ...r, schema_version: 'tool-result.model.v0' }) as unknown as ModelResult],
];

/** Data the schema's `z.json()` lets through and canonical JSON (the result's digest, taken next) refuses. */
const refusedByDigest: [string, (r: ModelResult) => ModelResult][] = [
  ['a cycle in data', withData(cyclic)],
  ['a lone surrogate in data', withData({ text: 'a\ud800b' })],
];

describe('publishedShapeIssues agrees with tool-result.model.v1', () => {
  for (const [what, change] of changes) {
    it(what, async () => {
      for (const result of await producedResults()) {
        const changed = change(result);
        const expected = guardedParse(modelResultSchema, changed).success;
        assert.equal(publishedShapeIssues(changed).length === 0, expected, `${result.status} result, ${what}`);
      }
    });
  }
});

describe('publishedShapeIssues refuses data the result digest could not be taken over', () => {
  for (const [what, change] of refusedByDigest) {
    it(what, async () => {
      for (const result of await producedResults()) {
        const changed = change(result);
        assert.ok(publishedShapeIssues(changed).length > 0, `${result.status} result, ${what}`);
        assert.throws(() => canonicalJson(changed), CanonicalJsonError);
      }
    });
  }
});
