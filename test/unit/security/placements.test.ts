// Contract tier of the security corpus: each fake secret, handed to executeTool in every place a tool can put text
// (data, keys, pairs, untrusted text, evidence, cursor, revision, conflicts, applied arguments, receipt, a thrown
// error), is absent from the model result; the audit names the redaction and holds no secret either.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { type AnyToolImplementation, type ToolOutput } from '../../../src/index.js';
import { executeTool } from '../../../src/contract/execute-tool.js';
import { testContext } from '../../../testkit/context.js';
import { assertHidden } from './hidden.js';
import { FAKE_SECRETS, type FakeSecret } from '../../../testkit/security/secret-corpus.js';
import { defineTool } from '../../../testkit/define-tool.js';

const ctx = testContext();

function corpusTool(
  handler: () => Promise<ToolOutput<Record<string, unknown>>>,
  effect: 'read' | 'write' = 'read',
): AnyToolImplementation {
  return defineTool({
    name: 'corpus.fetch',
    description: 'Returns whatever the corpus case puts in it.',
    input: z.strictObject({}),
    output: z.record(z.string(), z.unknown()),
    effect,
    source: { label: 'corpus', type: 'http_api' },
    handler,
  });
}

const base = { data: { note: 'ok' } };

/** Each place a tool can put text, and how a secret gets there (the carrier, or the bare secret where it is a value). */
const PLACEMENTS: readonly {
  name: string;
  output: (s: FakeSecret) => ToolOutput<Record<string, unknown>>;
  effect?: 'write';
}[] = [
  { name: 'data text', output: (s) => ({ data: { note: s.carrier } }) },
  {
    name: 'data, deep in a list',
    output: (s) => ({ data: { orders: [{ id: 'ord_1', lines: [{ memo: s.carrier }] }] } }),
  },
  { name: 'a data key', output: (s) => ({ data: { [s.standalone ? s.secret : s.carrier]: 1, note: 'ok' } }) },
  { name: 'a name/value pair', output: (s) => ({ data: { headers: [{ name: s.fieldName, value: s.secret }] } }) },
  { name: 'a secret-named field', output: (s) => ({ data: { [s.fieldName]: s.secret, note: 'ok' } }) },
  {
    name: 'untrusted text',
    output: (s) => ({ ...base, untrusted: [{ text: `Customer wrote: ${s.carrier}`, source: 'ticket:1' }] }),
  },
  { name: 'an untrusted source', output: (s) => ({ ...base, untrusted: [{ text: 'hello', source: s.carrier }] }) },
  {
    name: 'an evidence quote',
    output: (s) => ({ ...base, evidence: [{ kind: 'page', locator: 'kb/1', supports: ['/note'], quote: s.carrier }] }),
  },
  {
    name: 'an evidence locator',
    output: (s) => ({ ...base, evidence: [{ kind: 'page', locator: s.carrier, supports: ['/note'] }] }),
  },
  { name: 'a cursor', output: (s) => ({ ...base, next: { type: 'cursor', value: s.carrier } }) },
  { name: 'a resource revision', output: (s) => ({ ...base, resourceRevision: s.carrier }) },
  {
    name: 'a conflict',
    output: (s) => ({
      ...base,
      conflicts: [
        {
          field: '/note',
          values: [
            { value: s.carrier, source: 'primary' },
            { value: 'ok', source: s.carrier },
          ],
        },
      ],
    }),
  },
  { name: 'applied arguments', output: (s) => ({ ...base, appliedArguments: { query: s.carrier } }) },
  { name: 'a write receipt id', output: (s) => ({ ...base, receipt: { externalId: s.carrier } }), effect: 'write' },
];

describe('security corpus, contract tier (executeTool)', () => {
  for (const placement of PLACEMENTS) {
    it(`no fake secret in ${placement.name} reaches the model, and the redaction is audited`, async () => {
      for (const secret of FAKE_SECRETS) {
        const result = await executeTool(
          corpusTool(() => Promise.resolve(placement.output(secret)), placement.effect),
          {},
          ctx,
        );
        assert.equal(
          result.modelResult.error,
          null,
          `${secret.family} in ${placement.name}: ${result.modelResult.error?.code ?? ''}`,
        );
        assertHidden(JSON.stringify(result.modelResult), secret, placement.name);
        assert.ok(result.audit.redactions.length > 0, `${secret.family} in ${placement.name}: no redaction audited`);
      }
    });
  }

  it('no fake secret in a thrown error reaches the model or the audit', async () => {
    for (const secret of FAKE_SECRETS) {
      const result = await executeTool(
        corpusTool(() => Promise.reject(new Error(`upstream failed: ${secret.carrier}`))),
        {},
        ctx,
      );
      assert.equal(result.modelResult.error?.code, 'TOOL_ERROR');
      assertHidden(JSON.stringify(result.modelResult), secret, 'a thrown error (model result)');
      assertHidden(JSON.stringify(result.audit.error_detail), secret, 'a thrown error (audit detail)');
    }
  });
});
