import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { executeTool } from '../../src/contract/execute-tool.js';
import { keepsEveryKey } from '../../src/contract/key-keeping-schema.js';
import { codeOf } from '../support/assertions.js';
import { returning } from '../support/tools.js';
import { testContext } from '../../testkit/context.js';
import { defineTool } from '../../testkit/define-tool.js';

const item = z.strictObject({ id: z.string().regex(/^i_/), tags: z.array(z.string()).min(1) });

interface Category {
  name: string;
  children: Category[];
}
const category: z.ZodType<Category> = z.strictObject({
  name: z.string(),
  get children() {
    return z.array(category);
  },
});

describe('keepsEveryKey: which output schemas prove that a successful parse dropped no key', () => {
  const proven: [string, z.ZodType][] = [
    ['strict objects in a list', z.strictObject({ items: z.array(item).max(50) })],
    [
      'optional, nullable, readonly and unions of strict objects',
      z.strictObject({
        a: item.optional(),
        b: item.nullable().readonly(),
        c: z.union([item, z.strictObject({ n: z.number() })]),
      }),
    ],
    [
      'a discriminated union of strict objects',
      z.discriminatedUnion('kind', [
        z.strictObject({ kind: z.literal('a') }),
        z.strictObject({ kind: z.literal('b'), x: z.int() }),
      ]),
    ],
    ['a loose object (unknown keys kept) and unknown values', z.looseObject({ raw: z.unknown() })],
    ['a record with string keys and a tuple', z.record(z.string().min(1), z.tuple([z.string(), item]))],
    [
      'scalars with refinements and transforms of their own text',
      z.strictObject({
        s: z
          .string()
          .trim()
          .refine((text) => text.length > 0),
        e: z.enum(['x', 'y']),
      }),
    ],
  ];
  const unproven: [string, z.ZodType][] = [
    ['an object that strips unknown keys', z.object({ id: z.string() })],
    ['a stripping object deep in a strict one', z.strictObject({ items: z.array(z.object({ id: z.string() })) })],
    ['a transform', z.strictObject({ id: z.string() }).transform((value) => ({ id: value.id }))],
    ['a default', z.strictObject({ meta: z.strictObject({ a: z.string() }).default({ a: 'x' }) })],
    ['a catch', z.strictObject({ a: z.string() }).catch({ a: 'fallback' })],
    [
      'a refinement on a container (it sees, and could change, the value)',
      z.strictObject({ a: z.string() }).refine(() => true),
    ],
    ['a record whose keys are rewritten', z.record(z.string().toLowerCase(), z.number())],
    ['a recursive schema', category],
    ['JSON of any shape (lazy)', z.json()],
    ['an intersection', z.intersection(item, z.strictObject({ id: z.string() }))],
  ];
  for (const [name, schema] of proven) it(`proven: ${name}`, () => assert.equal(keepsEveryKey(schema), true));
  for (const [name, schema] of unproven) it(`not proven: ${name}`, () => assert.equal(keepsEveryKey(schema), false));
});

describe('an undeclared key is refused whether the schema or the exact-keys walk finds it', () => {
  const listTool = (output: z.ZodType, data: unknown) =>
    defineTool({
      name: 'items.list',
      description: 'Items.',
      input: z.strictObject({}),
      output,
      effect: 'read',
      source: { label: 'items', type: 'database' },
      handler: returning({ data }),
    });
  const data = {
    items: [
      { id: 'i_1', tags: ['a'] },
      { id: 'i_2', tags: ['b'], internal_margin: 0.4 },
    ],
  };

  for (const [name, output] of [
    ['strict schema (proven: zod refuses the key)', z.strictObject({ items: z.array(item) })],
    [
      'stripping schema (not proven: the walk finds the key)',
      z.object({ items: z.array(z.object({ id: z.string(), tags: z.array(z.string()) })) }),
    ],
  ] as const) {
    it(name, async () => {
      const result = await executeTool(listTool(output, data), {}, testContext());
      assert.equal(codeOf(result), 'OUTPUT_CONTRACT_VIOLATION');
      assert.equal(result.modelResult.data, null);
      assert.equal(result.audit.validation.find((layer) => layer.layer === 'schema')!.outcome, 'failed');
    });
  }
});
