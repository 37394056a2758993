import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { executeTool } from './execute-tool.imports.js';
import { guardedParse } from '../../src/contract/guarded-parse.js';
import { assertNothingSensitive, codeOf } from '../support/assertions.js';
import { testContext } from '../../testkit/context.js';
import { returning } from '../support/tools.js';
import { defineTool } from '../../testkit/define-tool.js';

const ctx = testContext();
const toUrl = z.string().transform((u) => new URL(u).href);

describe('guardedParse: a schema that throws is a failed parse, never a throw', () => {
  it('a throwing transform (new URL on "not a url") fails with the schema_threw issue and says what was thrown', () => {
    assert.throws(() => toUrl.safeParse('not a url'), 'zod itself lets the throw escape');
    const parsed = guardedParse(toUrl, 'not a url');
    assert.equal(parsed.success, false);
    assert.ok(!parsed.success);
    assert.deepEqual(parsed.issues, [{ path: '/', code: 'schema_threw' }]);
    assert.equal(parsed.thrown?.['exception'], 'TypeError');
  });

  it('ordinary issues keep their paths and codes; valid input parses', () => {
    const schema = z.strictObject({ url: toUrl });
    const bad = guardedParse(schema, { url: 7 });
    assert.ok(!bad.success);
    assert.deepEqual(bad.issues, [{ path: '/url', code: 'invalid_type' }]);
    assert.equal(bad.thrown, undefined);
    assert.deepEqual(guardedParse(schema, { url: 'https://example.com' }), {
      success: true,
      data: { url: 'https://example.com/' },
    });
  });

  it('a throw that cannot even be described (a getter on message that throws) still fails the parse', () => {
    const hostile = Object.defineProperty(new Error('x'), 'message', {
      get: () => {
        throw new Error('unreadable');
      },
    });
    const parsed = guardedParse(
      z.string().transform(() => {
        throw hostile;
      }),
      'a',
    );
    assert.ok(!parsed.success);
    assert.deepEqual(parsed.issues, [{ path: '/', code: 'schema_threw' }]);
  });

  it('an async refinement in a synchronous parse fails instead of throwing', () => {
    const parsed = guardedParse(
      z.number().refine(async () => Promise.resolve(true)),
      1,
    );
    assert.ok(!parsed.success);
    assert.deepEqual(parsed.issues, [{ path: '/', code: 'schema_threw' }]);
  });
});

describe('executeTool: a throwing schema is a catalogued result', () => {
  it('input: a model-controlled argument that makes a transform throw is INVALID_ARGUMENTS; the handler never runs', async () => {
    let called = false;
    const tool = defineTool({
      name: 'pages.fetch',
      description: 'Fetch a page.',
      input: z.strictObject({ url: toUrl }),
      output: z.strictObject({ title: z.string() }),
      effect: 'read',
      source: { label: 'web', type: 'http_api' },
      handler: () => {
        called = true;
        return Promise.resolve({ data: { title: 'x' } });
      },
    });
    const result = await executeTool(tool, { url: 'not a url' }, ctx);
    assert.equal(codeOf(result), 'INVALID_ARGUMENTS');
    assert.equal(result.modelResult.execution.outcome, 'not_started');
    assert.equal(called, false);
    assert.equal(result.audit.validation.find((l) => l.layer === 'input')!.outcome, 'failed');
    assert.equal(
      (result.audit.error_detail as { detail: { thrown: { exception: string } } }).detail.thrown.exception,
      'TypeError',
    );
    assertNothingSensitive(result, ctx);
  });

  it('output: a refinement that throws is OUTPUT_CONTRACT_VIOLATION at the schema layer', async () => {
    const tool = defineTool({
      name: 'scores.get',
      description: 'A score.',
      input: z.strictObject({}),
      output: z.strictObject({
        score: z.number().refine(() => {
          throw new Error('refinement bug');
        }),
      }),
      effect: 'read',
      source: { label: 'scores', type: 'database' },
      handler: returning({ data: { score: 1 } }),
    });
    const result = await executeTool(tool, {}, ctx);
    assert.equal(codeOf(result), 'OUTPUT_CONTRACT_VIOLATION');
    assert.equal(result.modelResult.status, 'failed');
    assert.equal(result.audit.validation.find((l) => l.layer === 'schema')!.outcome, 'failed');
  });

  it('output: a committed write whose output schema throws keeps its receipt and is partial, never failed', async () => {
    const tool = defineTool({
      name: 'payments.capture',
      description: 'Capture a payment.',
      input: z.strictObject({ payment_id: z.string() }),
      output: z.strictObject({
        captured_cents: z.number().refine(() => {
          throw new Error('refinement bug');
        }),
      }),
      effect: 'write',
      source: { label: 'payments-api', type: 'http_api' },
      handler: returning({ data: { captured_cents: 500 }, receipt: { externalId: 'psp_cap_9' } }),
    });
    const result = await executeTool(tool, { payment_id: 'pay_9' }, ctx);
    assert.equal(codeOf(result), 'OUTPUT_CONTRACT_VIOLATION');
    assert.equal(result.modelResult.status, 'partial');
    assert.equal(result.modelResult.execution.outcome, 'committed');
    assert.equal(result.modelResult.execution.receipt!.external_id, 'psp_cap_9');
  });
});
