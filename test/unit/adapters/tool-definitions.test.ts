// Tool definitions in each provider's schema dialect, type-checked against the official SDK types.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type Anthropic from '@anthropic-ai/sdk';
import type { FunctionDeclaration } from '@google/genai';
import { ToolSchema, type Tool as McpSdkTool } from '@modelcontextprotocol/sdk/types.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import type OpenAI from 'openai';
import { z } from 'zod';
import { toAnthropicTool, ANTHROPIC_NAME_MAX } from '../../../src/adapters/anthropic.js';
import { toGeminiFunctionDeclaration } from '../../../src/adapters/gemini.js';
import { toMcpTool } from '../../../src/adapters/mcp.js';
import {
  fromProviderToolName,
  fromStrictArguments,
  OPENAI_NAME_MAX,
  toChatTool,
  toProviderToolName,
  toResponsesTool,
} from '../../../src/adapters/openai.js';
import { ToolDefinitionError, type AnyToolImplementation } from '../../../src/index.js';
import { executeTool } from '../../../src/contract/execute-tool.js';
import { testContext } from '../../../testkit/context.js';
import { orderTool, refundTool, returning } from '../../support/tools.js';
import { assertOfficial, MCP_REVISIONS } from '../../support/mcp-official-schema.js';
import { defineTool } from '../../../testkit/define-tool.js';

const searchTool = defineTool({
  name: 'tickets.search',
  description: 'Search tickets.',
  input: z.strictObject({
    query: z.string().min(2).max(50),
    limit: z.number().int().min(1).max(100).default(10),
    filter: z
      .object({
        status: z.enum(['open', 'closed']).optional(),
        tags: z.array(z.string()).max(5).optional(),
      })
      .optional(),
    mode: z.union([z.literal('fast'), z.literal('exact')]).optional(),
    note: z.string().nullable().optional(),
  }),
  output: z.strictObject({ ids: z.array(z.string()) }),
  effect: 'read',
  source: { label: 'tickets', type: 'http_api' },
  handler: async (args) => ({ data: { ids: [`${args.query}:${args.limit}`] } }),
});

const labelTool = defineTool({
  name: 'tickets.label',
  description: 'Set labels.',
  input: z.strictObject({ labels: z.record(z.string(), z.string()) }),
  output: z.null(),
  effect: 'write',
  source: { label: 'tickets', type: 'http_api' },
  handler: async () => ({ data: null, receipt: { externalId: 'x' } }),
});

type Schema = { [keyword: string]: unknown };

/** Every object schema in a schema, wherever it is nested. */
function objectSchemas(schema: unknown, found: Schema[] = []): Schema[] {
  if (Array.isArray(schema)) schema.forEach((item) => objectSchemas(item, found));
  else if (schema !== null && typeof schema === 'object') {
    const node = schema as Schema;
    if (node['type'] === 'object') found.push(node);
    Object.values(node).forEach((item) => objectSchemas(item, found));
  }
  return found;
}

function codeOf(error: unknown): unknown {
  return (error as { code?: unknown }).code;
}

describe('OpenAI strict mode', () => {
  it('closes every object, requires every property and makes optionals nullable', () => {
    const tool: OpenAI.Responses.FunctionTool = toResponsesTool(searchTool);
    assert.equal(tool.strict, true);
    assert.equal(tool.name, 'tickets__search');
    const objects = objectSchemas(tool.parameters);
    assert.equal(objects.length, 2);
    for (const object of objects) {
      assert.equal(object['additionalProperties'], false);
      assert.deepEqual(object['required'], Object.keys(object['properties'] as object));
    }
    const properties = tool.parameters?.['properties'] as Record<string, Schema>;
    assert.deepEqual(properties['query'], {
      type: 'string',
      description: '(checked by the tool: minLength=2, maxLength=50)',
    });
    assert.deepEqual(properties['limit'], {
      anyOf: [{ type: 'integer', minimum: 1, maximum: 100 }, { type: 'null' }],
      description: '(checked by the tool: default=10)',
    });
    assert.deepEqual(properties['note'], { type: ['string', 'null'] }, 'already nullable: not wrapped again');
    assert.equal('$schema' in (tool.parameters ?? {}), false);
  });

  it('exports the same function for Chat Completions', () => {
    const chat: OpenAI.Chat.Completions.ChatCompletionTool = toChatTool(searchTool);
    const responses = toResponsesTool(searchTool);
    assert.deepEqual(chat, {
      type: 'function',
      function: {
        name: responses.name,
        description: responses.description,
        parameters: responses.parameters,
        strict: true,
      },
    });
  });

  it('accepts exactly what the tool accepts once nulls are mapped back (fromStrictArguments)', async () => {
    const ajv = new Ajv2020({ strict: false });
    const validate = ajv.compile(toResponsesTool(searchTool).parameters ?? {});
    const sent = { query: 'printer', limit: null, filter: { status: null, tags: ['a'] }, mode: null, note: null };
    assert.equal(validate(sent), true, JSON.stringify(validate.errors));
    assert.equal(validate({ query: 'printer' }), false, 'strict mode requires every key');
    const restored = fromStrictArguments(searchTool, sent);
    assert.deepEqual(restored, { query: 'printer', filter: { tags: ['a'] }, note: null });
    const result = await executeTool(searchTool, restored, testContext());
    assert.equal(result.modelResult.status, 'succeeded');
    assert.deepEqual(result.modelResult.data, { ids: ['printer:10'] }, 'the default applies to the omitted limit');
    const unrestored = await executeTool(searchTool, sent, testContext());
    assert.equal(unrestored.modelResult.error?.code, 'INVALID_ARGUMENTS');
  });

  it('handles recursive schemas and discriminated unions in both directions', async () => {
    interface TreeNode {
      name: string;
      children?: TreeNode[] | undefined;
    }
    const treeNode: z.ZodType<TreeNode> = z.lazy(() =>
      z.strictObject({ name: z.string(), children: z.array(treeNode).optional() }),
    );
    const tool = defineTool({
      name: 'tree.put',
      description: 'Store a tree.',
      input: z.strictObject({
        root: treeNode,
        kind: z.discriminatedUnion('k', [
          z.strictObject({ k: z.literal('a'), a: z.string() }),
          z.strictObject({ k: z.literal('b'), b: z.number().optional() }),
        ]),
      }),
      output: z.null(),
      effect: 'read',
      source: { label: 'trees', type: 'memory' },
      handler: async () => ({ data: null, availableItems: 0 }),
    });
    const parameters = toResponsesTool(tool).parameters ?? {};
    for (const object of objectSchemas(parameters)) assert.equal(object['additionalProperties'], false);
    const sent = { root: { name: 'r', children: [{ name: 'c', children: null }] }, kind: { k: 'b', b: null } };
    assert.equal(new Ajv2020({ strict: false }).compile(parameters)(sent), true);
    const restored = fromStrictArguments(tool, sent);
    assert.deepEqual(restored, { root: { name: 'r', children: [{ name: 'c' }] }, kind: { k: 'b' } });
    assert.equal((await executeTool(tool, restored, testContext())).modelResult.status, 'succeeded');
  });

  it('keeps a hostile __proto__ key as data, so the contract still refuses it', async () => {
    const sent = JSON.parse('{"query":"printer","limit":null,"__proto__":{"admin":true}}') as unknown;
    const restored = fromStrictArguments(searchTool, sent);
    assert.equal(Object.getPrototypeOf(restored), Object.prototype);
    assert.ok(Object.hasOwn(restored as object, '__proto__'));
    const result = await executeTool(searchTool, restored, testContext());
    assert.equal(result.modelResult.error?.code, 'INVALID_ARGUMENTS');
  });

  it('refuses an open-ended map, which strict mode cannot express, and allows it without strict', () => {
    assert.throws(
      () => toResponsesTool(labelTool),
      (error: unknown) => codeOf(error) === 'STRICT_SCHEMA_UNSUPPORTED',
    );
    const loose: OpenAI.Responses.FunctionTool = toResponsesTool(labelTool, { strict: false });
    assert.equal(loose.strict, false);
    assert.deepEqual((loose.parameters?.['properties'] as Record<string, Schema>)['labels']?.['additionalProperties'], {
      type: 'string',
    });
  });

  it('refuses a value of any type and a tuple, which strict mode would export as a schema OpenAI rejects or nothing satisfies', () => {
    const inputs: Record<string, z.ZodObject> = {
      unknown: z.strictObject({ payload: z.unknown() }),
      'described unknown': z.strictObject({ payload: z.unknown().describe('Anything.') }),
      'optional unknown': z.strictObject({ payload: z.unknown().optional() }),
      'array of any': z.strictObject({ values: z.array(z.any()) }),
      'unknown in a union': z.strictObject({ value: z.union([z.string(), z.unknown()]) }),
      tuple: z.strictObject({ point: z.tuple([z.number(), z.number()]) }),
    };
    for (const [label, input] of Object.entries(inputs)) {
      const tool = defineTool({
        name: 'tickets.loose',
        description: 'Store a value.',
        input,
        output: z.null(),
        effect: 'write',
        source: { label: 'tickets', type: 'http_api' },
        handler: async () => ({ data: null, receipt: { externalId: 'x' } }),
      });
      assert.throws(
        () => toResponsesTool(tool),
        (error: unknown) => codeOf(error) === 'STRICT_SCHEMA_UNSUPPORTED',
        label,
      );
      assert.throws(
        () => toChatTool(tool),
        (error: unknown) => codeOf(error) === 'STRICT_SCHEMA_UNSUPPORTED',
        label,
      );
      assert.equal(toResponsesTool(tool, { strict: false }).strict, false, label);
    }
  });

  it('gives every strict value schema a concrete shape (type, anyOf, $ref, enum or const)', () => {
    const shapes = ['type', 'anyOf', '$ref', 'enum', 'const'];
    const walk = (node: Schema, path: string): void => {
      assert.ok(
        shapes.some((keyword) => keyword in node),
        `untyped schema at ${path}`,
      );
      for (const [key, child] of Object.entries((node['properties'] as Record<string, Schema> | undefined) ?? {}))
        walk(child, `${path}/properties/${key}`);
      for (const [i, branch] of ((node['anyOf'] as Schema[] | undefined) ?? []).entries())
        walk(branch, `${path}/anyOf/${i}`);
      if (node['items'] !== undefined) walk(node['items'] as Schema, `${path}/items`);
    };
    walk(toResponsesTool(searchTool).parameters, searchTool.name);
  });
});

describe('provider tool names', () => {
  const contractName = fc
    .tuple(fc.constantFrom(...'abcXYZ'), fc.array(fc.constantFrom(...'aZ09._-'), { maxLength: 40 }))
    .map(([first, rest]) => first + rest.join(''));

  it('map contract names reversibly into ^[a-zA-Z0-9_-]{1,128}$', () => {
    fc.assert(
      fc.property(contractName, (name) => {
        const wire = toProviderToolName(name, ANTHROPIC_NAME_MAX);
        assert.match(wire, /^[a-zA-Z0-9_-]{1,128}$/);
        assert.equal(fromProviderToolName(wire), name);
      }),
      { numRuns: 1000 },
    );
  });

  it('are a bijection onto their image: every decodable provider name re-encodes to itself', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...'ab09_-duh'), { minLength: 1, maxLength: 20 }), (chars) => {
        const wire = `a${chars.join('')}`;
        const name = fromProviderToolName(wire);
        if (name !== null) assert.equal(toProviderToolName(name, 1000), wire);
      }),
      { numRuns: 2000 },
    );
  });

  it('keep readable names readable and tell colliding-looking names apart', () => {
    assert.equal(toProviderToolName('orders.get', 64), 'orders__get');
    assert.equal(toProviderToolName('get_order', 64), 'get_order');
    const names = ['a._b', 'a_.b', 'a__b', 'a..b', 'a.b', 'a-b', 'a_b'];
    const wires = names.map((name) => toProviderToolName(name, 64));
    assert.equal(new Set(wires).size, names.length);
    assert.equal(fromProviderToolName('a___b'), null);
    assert.equal(fromProviderToolName('not valid!'), null);
  });

  it('refuse a name over the provider limit instead of truncating it', () => {
    const long = `t.${'x'.repeat(62)}`;
    assert.throws(
      () => toResponsesTool(defineTool({ ...searchTool, name: long })),
      (error: unknown) => codeOf(error) === 'TOOL_NAME_UNMAPPABLE',
    );
    assert.equal(toAnthropicTool(defineTool({ ...searchTool, name: long })).name.length, 65);
    assert.equal(OPENAI_NAME_MAX, 64);
  });
});

describe('Anthropic and Gemini tool definitions', () => {
  it('Anthropic gets the full input schema and the mapped name', () => {
    const tool: Anthropic.Messages.Tool = toAnthropicTool(searchTool);
    assert.equal(tool.name, 'tickets__search');
    assert.equal(tool.input_schema.type, 'object');
    const query = (tool.input_schema['properties'] as Record<string, Schema>)['query'];
    assert.deepEqual(query, { type: 'string', minLength: 2, maxLength: 50 });
    assert.equal('$schema' in tool.input_schema, false);
  });

  it('Gemini gets parametersJsonSchema in its subset: const as enum, unsupported keywords named in the description', () => {
    const declaration: FunctionDeclaration = toGeminiFunctionDeclaration(searchTool);
    assert.equal(declaration.name, 'tickets__search');
    const schema = declaration.parametersJsonSchema as Schema;
    const properties = schema['properties'] as Record<string, Schema>;
    assert.deepEqual(properties['mode'], {
      anyOf: [
        { type: 'string', enum: ['fast'] },
        { type: 'string', enum: ['exact'] },
      ],
    });
    assert.deepEqual(properties['query'], {
      type: 'string',
      description: '(checked by the tool: minLength=2, maxLength=50)',
    });
    assert.equal('$schema' in schema, false);
    assert.deepEqual(schema['required'], ['query']);
  });

  it('a non-object input cannot be exported to any dialect', () => {
    const scalar = defineTool({
      name: 'scalar.tool',
      description: 'Takes a bare string.',
      input: z.string(),
      output: z.null(),
      effect: 'read',
      source: { label: 'x', type: 'x' },
      handler: async () => ({ data: null }),
    });
    for (const exportTool of [
      toResponsesTool,
      toChatTool,
      toAnthropicTool,
      toGeminiFunctionDeclaration,
      toMcpTool,
    ] as ((tool: AnyToolImplementation) => unknown)[]) {
      assert.throws(
        () => exportTool(scalar),
        (error: unknown) => codeOf(error) === 'INPUT_SCHEMA_NOT_OBJECT',
      );
    }
  });
});

describe('MCP Tool', () => {
  const order = orderTool(returning(null));
  const refund = refundTool(returning(null));
  const deleteTool = defineTool({ ...refund, name: 'payments.void', effect: 'destructive', businessKey: ['order_id'] });

  it('keeps the contract name and derives annotations from effect', () => {
    const read: McpSdkTool = toMcpTool(order);
    assert.equal(read.name, 'orders.get');
    assert.deepEqual(read.annotations, {
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: true,
    });
    assert.deepEqual(toMcpTool(refund).annotations, {
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: true,
    });
    assert.deepEqual(toMcpTool(deleteTool).annotations, {
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: true,
    });
  });

  it('describes the whole model result as outputSchema, with data narrowed to the tool output', () => {
    const tool = toMcpTool(order);
    const properties = tool.outputSchema['properties'] as Record<string, Schema>;
    assert.deepEqual(Object.keys(properties).slice(0, 4), ['schema_version', 'tool', 'status', 'data']);
    const dataBranches = properties['data']?.['anyOf'] as Schema[];
    assert.deepEqual(dataBranches[1], { type: 'null' });
    assert.deepEqual(Object.keys(dataBranches[0]?.['properties'] as object), ['id', 'status', 'total_cents', 'lines']);
    assert.equal(tool.outputSchema['additionalProperties'], false);
  });

  it('passes the SDK schema and the official Tool schema of every revision', () => {
    for (const tool of [order, refund, deleteTool, searchTool, labelTool])
      assert.deepEqual(ToolSchema.parse(toMcpTool(tool)), toMcpTool(tool));
    for (const tool of [order, refund, deleteTool, searchTool, labelTool]) {
      for (const revision of MCP_REVISIONS) assertOfficial(revision, 'Tool', toMcpTool(tool));
    }
  });
});

describe('examples and normalizations reach every provider (seed 003)', () => {
  const timed = defineTool({
    name: 'events.since',
    description: 'List events after a point in time.',
    input: z.strictObject({
      since: z
        .number()
        .int()
        .meta({ examples: [1700000000] }),
      tz: z.string().default('UTC'),
    }),
    output: z.strictObject({ count: z.number() }),
    effect: 'read',
    source: { label: 'events', type: 'database' },
    examples: [
      { description: 'events of the last day', arguments: { since: 1764460800 } },
      { arguments: { since: 0, tz: 'Europe/Oslo' } },
    ],
    normalizations: [
      'since is in seconds since the epoch, not milliseconds',
      'tz names are matched case-insensitively',
    ],
    handler: returning({ data: { count: 0 } }),
  });
  const descriptions: [string, () => string][] = [
    ['OpenAI strict', () => toResponsesTool(timed).description],
    ['OpenAI non-strict', () => toChatTool(timed, { strict: false }).function.description],
    ['Anthropic', () => toAnthropicTool(timed).description],
    ['Gemini', () => toGeminiFunctionDeclaration(timed).description ?? ''],
    ['MCP', () => toMcpTool(timed).description],
  ];
  for (const [dialect, description] of descriptions) {
    it(`${dialect}: the description carries the normalization rules and every example`, () => {
      const text = description();
      assert.ok(text.startsWith('List events after a point in time.'));
      for (const rule of timed.normalizations) assert.ok(text.includes(rule), rule);
      assert.ok(text.includes('{"since":1764460800}'));
      assert.ok(text.includes('{"since":0,"tz":"Europe/Oslo"}'));
      assert.ok(text.includes('events of the last day'));
    });
  }

  it('a schema-level example survives where the dialect has no examples keyword, as description text', () => {
    const strictSince = (toResponsesTool(timed).parameters['properties'] as Record<string, Schema>)['since'];
    const geminiSince = (
      toGeminiFunctionDeclaration(timed).parametersJsonSchema['properties'] as Record<string, Schema>
    )['since'];
    for (const since of [strictSince, geminiSince]) {
      assert.equal(since?.['examples'], undefined);
      assert.match(String(since?.['description']), /1700000000/);
    }
    const anthropicSince = (toAnthropicTool(timed).input_schema['properties'] as Record<string, Schema>)['since'];
    assert.deepEqual(anthropicSince?.['examples'], [1700000000], 'kept as a keyword where the dialect has one');
  });

  it('a tool without guidance keeps its text first, then what a call returns and costs, derived from its contract', () => {
    assert.equal(
      toAnthropicTool(searchTool).description,
      'Search tickets.\n\nReturns: a tool result (data with ids); status and completeness say whether it is complete, partial or failed.\nCost: read-only.',
    );
  });
});

describe('every provider export says what a call returns and what it costs (seed 003)', () => {
  const charge = defineTool({
    name: 'payments.charge',
    description: 'Charge a customer.',
    input: z.strictObject({ customer: z.string(), cents: z.number().int().positive() }),
    output: z.strictObject({ charge_id: z.string(), cents: z.number().int() }),
    effect: 'destructive',
    callDefaults: { timeoutMs: 20_000 },
    callLimit: 3,
    source: { label: 'psp', type: 'http_api' },
    handler: returning({ data: { charge_id: 'ch_1', cents: 1 } }),
  });
  const declared = defineTool({
    ...charge,
    name: 'payments.charge_declared',
    returns: 'the charge id and the amount charged, in cents.',
    cost: 'moves real money; about 2 s.',
  });
  const dialects: [string, (tool: typeof charge) => string][] = [
    ['OpenAI strict', (tool) => toResponsesTool(tool).description],
    ['OpenAI non-strict', (tool) => toChatTool(tool, { strict: false }).function.description],
    ['Anthropic', (tool) => toAnthropicTool(tool).description],
    ['Gemini', (tool) => toGeminiFunctionDeclaration(tool).description ?? ''],
    ['MCP', (tool) => toMcpTool(tool).description],
  ];
  for (const [dialect, describe] of dialects) {
    it(`${dialect}: derived from the contract, or the tool's own words`, () => {
      const derived = describe(charge);
      assert.match(derived, /Returns: a tool result \(data with charge_id, cents\)/);
      assert.match(
        derived,
        /Cost: changes state and cannot be undone; a person approves each call first; a call whose outcome is unknown is checked, never repeated; one call may take up to 20 s; at most 3 calls per workflow\./,
      );
      const own = describe(declared);
      assert.match(own, /Returns: the charge id and the amount charged, in cents\./);
      assert.match(own, /Cost: moves real money; about 2 s\./);
    });
  }
});

describe('a tool name says what it does to what (seed 003)', () => {
  const tool = (name: string) =>
    defineTool({
      name,
      description: 'Does something specific.',
      input: z.strictObject({}),
      output: z.null(),
      effect: 'read',
      source: { label: 's', type: 't' },
      handler: returning({ data: null }),
    });
  it('refuses a name made only of vague words; accepts verb and object in either order', () => {
    for (const name of ['process', 'handle', 'run_task', 'do.stuff', 'executeTool'])
      assert.throws(() => tool(name), /says neither what the tool does nor to what/, name);
    for (const name of ['search_web', 'orders.get', 'read_file', 'sendEmail', 'lookup'])
      assert.doesNotThrow(() => tool(name), name);
  });
});

describe('defineTool refuses guidance that cannot help a model', () => {
  const base = {
    name: 'events.since',
    input: z.strictObject({ since: z.number().int() }),
    output: z.null(),
    effect: 'read',
    source: { label: 'e', type: 'db' },
    handler: returning({ data: null }),
  } as const;
  const refused: [string, Record<string, unknown>][] = [
    ['an empty description', { description: '' }],
    ['a whitespace description', { description: ' \n\t' }],
    ['a description that restates the name', { description: 'Events since.' }],
    [
      'an example the input schema refuses',
      { description: 'List events.', examples: [{ arguments: { since: 'yesterday' } }] },
    ],
    ['an example that is not JSON', { description: 'List events.', examples: [{ arguments: { since: 1n } }] }],
    ['an empty normalization rule', { description: 'List events.', normalizations: [' '] }],
  ];
  for (const [what, spec] of refused) {
    it(`refuses ${what}`, () => assert.throws(() => defineTool({ ...base, ...spec } as never), ToolDefinitionError));
  }

  it('accepts a short description that says what the tool does', () => {
    assert.doesNotThrow(() => defineTool({ ...base, description: 'Ping.' }));
  });
});
