import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { testContext } from '../../testkit/context.js';
import {
  declareTool,
  implementTool,
  ToolDefinitionError,
  ToolRegistry,
  ToolError,
  type ToolDeclarationSpec,
  type ToolImplementationSpec,
} from '../../src/index.js';
import { DEFAULT_MAX_ARGUMENT_BYTES } from '../../src/contract/tool-spec.js';
import { identifyCall } from '../../src/contract/call-identity.js';
import { defineTool } from '../../testkit/define-tool.js';

type Spec = ToolDeclarationSpec<z.ZodType, z.ZodType> & ToolImplementationSpec<z.ZodType, z.ZodType>;

/** A combined spec without its handler: what `declareTool` takes. */
function declarationOf(spec: Spec): ToolDeclarationSpec<z.ZodType, z.ZodType> {
  return Object.fromEntries(Object.entries(spec).filter(([key]) => key !== 'handler')) as ToolDeclarationSpec<
    z.ZodType,
    z.ZodType
  >;
}

const base = {
  name: 'kb.search',
  description: 'Search the knowledge base.',
  input: z.strictObject({ q: z.string() }),
  output: z.strictObject({ hits: z.array(z.string()) }),
  effect: 'read',
  source: { label: 'kb', type: 'search_index' },
  handler: () => Promise.resolve({ data: { hits: [] } }),
} satisfies ToolDeclarationSpec<z.ZodType<{ q: string }>, z.ZodType<{ hits: string[] }>> &
  ToolImplementationSpec<z.ZodType<{ q: string }>, z.ZodType<{ hits: string[] }>>;

describe('declareTool and implementTool', () => {
  it('a declaration holds no handler; its implementation binds one and keeps every fact of the declaration', () => {
    const { handler } = base;
    const declaration = declareTool(declarationOf(base));
    assert.equal('handler' in declaration, false);
    const implemented = implementTool(declaration, { handler });
    assert.equal(implemented.handler, handler);
    assert.deepEqual(implemented.facts, declaration.facts);
    assert.ok(Object.isFrozen(declaration) && Object.isFrozen(implemented));
    assert.throws(
      () => implementTool({ ...declaration }, { handler }),
      ToolDefinitionError,
      'only a declaration made by declareTool',
    );
    assert.throws(() => implementTool(declaration, { handler: 'nope' as never }), ToolDefinitionError);
  });

  it('states as plain data what workflow code acts on, with a revision over the whole declaration', () => {
    const declared = declarationOf(base);
    const facts = declareTool({ ...declared, effect: 'write', callLimit: 3, businessKey: ['q'] }).facts;
    assert.deepEqual(
      { ...facts, revision: 'x' },
      {
        name: 'kb.search',
        effect: 'write',
        requiresApproval: false,
        businessKey: ['q'],
        keyScope: 'kb.search',
        callLimit: 3,
        callDefaults: null,
        revision: 'x',
      },
    );
    assert.deepEqual(JSON.parse(JSON.stringify(facts)), facts, 'plain data: JSON round-trips');
    const revision = (over: Partial<Spec>) => declareTool({ ...declared, ...over }).facts.revision;
    const same = revision({});
    assert.match(same, /^sha256:[0-9a-f]{32}$/);
    assert.equal(revision({}), same, 'the same declaration, the same revision');
    for (const [what, over] of [
      ['an input schema', { input: z.strictObject({ q: z.string().min(1) }) }],
      ['an output schema', { output: z.strictObject({ hits: z.array(z.string()).max(3) }) }],
      ['approval', { requiresApproval: true }],
      ['a call limit', { callLimit: 2 }],
      ['call defaults', { callDefaults: { timeoutMs: 1000 } }],
      ['a budget', { budget: { maxItems: 3 } }],
      ['an invariant', { invariants: [{ id: 'i', version: 1, check: () => true }] }],
    ] as const) {
      assert.notEqual(revision(over), same, `${what} changes the revision`);
    }
  });

  it('derives the idempotency key from the declared business key, the same way on either side', () => {
    const facts = declareTool({
      ...declarationOf(base),
      effect: 'write',
      input: z.strictObject({ q: z.string(), page: z.number() }),
      examples: [],
      businessKey: ['q', 'page'] as const,
    }).facts;
    const call = {
      tool: 'kb.search',
      callId: 'call-1',
      principal: { tenant: 't', subject: 's' },
      provider: { provider: 'p', apiFamily: 'a', responseId: null, providerCallId: null, adapterRevision: 'r' },
    };
    const keyed = identifyCall(facts, { ...call, args: { q: 'a:b', page: 2 } }, 'wf');
    assert.ok(keyed.ok);
    assert.equal(keyed.identity.operationId, 'wf:call-1');
    assert.match(
      keyed.identity.idempotencyKey,
      /^kb\.search:[0-9a-f]{32}:a%3Ab:2$/,
      'parts are encoded: none runs into the next',
    );
    assert.notEqual(
      identifyCall(facts, { ...call, args: { q: 'a', page: 'b:2' } }, 'wf').identity.idempotencyKey,
      keyed.identity.idempotencyKey,
    );
    for (const args of [
      { page: 2 },
      { q: '', page: 2 },
      { q: { x: 1 }, page: 2 },
      { q: 'a\ud800', page: 2 },
      'not an object',
    ]) {
      const refused = identifyCall(facts, { ...call, args }, 'wf');
      assert.equal(refused.ok, false, JSON.stringify(args));
      assert.equal(
        refused.identity.idempotencyKey,
        'wf:call-1',
        'unreadable arguments get the unkeyed identity, for the refusal',
      );
    }
  });

  it('derives schema revisions from the schemas, so a changed schema is a changed contract', () => {
    const a = defineTool(base);
    const b = defineTool({
      ...base,
      output: z.strictObject({ hits: z.array(z.string()), total: z.number() }),
      handler: () => Promise.resolve({ data: { hits: [], total: 0 } }),
    });
    assert.match(a.revisions.input, /^sha256:[0-9a-f]{16}$/);
    assert.equal(a.revisions.input, b.revisions.input);
    assert.notEqual(a.revisions.output, b.revisions.output);
    assert.equal(defineTool({ ...base, revisions: { output: '7' } }).revisions.output, '7');
  });

  it('derives the policy revision from every policy setting, so a changed policy is a changed contract', () => {
    const policy = (override: Partial<Spec>) => defineTool({ ...base, ...override }).revisions.policy;
    const original = policy({});
    assert.match(original, /^sha256:[0-9a-f]{16}$/);
    const changes: [string, Partial<Spec>][] = [
      ['an allowlist', { source: { ...base.source, allowlist: ['kb'] } }],
      ['a source label', { source: { ...base.source, label: 'kb-mirror' } }],
      ['a data scope', { scope: { tenantPointer: '/tenant' } }],
      ['trust', { source: { ...base.source, trust: 'trusted_control' } }],
      ['freshness', { freshness: { maxAgeMs: 60_000, onStale: 'warn' } }],
      ['sensitive fields', { sensitiveFields: ['email'] }],
      ['an aggregation rule', { aggregations: { '/total': 'sum' } }],
      ['a budget', { budget: { maxItems: 5 } }],
      ['a business error', { businessErrors: { KB_CLOSED: { message: 'The knowledge base is closed.' } } }],
    ];
    const revisions = changes.map(([what, override]) => {
      const revision = policy(override);
      assert.notEqual(revision, original, what);
      return revision;
    });
    assert.equal(new Set(revisions).size, revisions.length, 'each setting moves the revision its own way');
    assert.notEqual(
      policy({ freshness: { maxAgeMs: 60_000, onStale: 'fail' } }),
      policy({ freshness: { maxAgeMs: 60_000, onStale: 'warn' } }),
    );
    assert.equal(policy({ budget: { maxItems: 200 } }), original, 'declaring a default is the same policy');
    assert.equal(
      policy({ sensitiveFields: ['a', 'b'] }),
      policy({ sensitiveFields: ['b', 'a'] }),
      'order of a set does not matter',
    );
    const closed = (declared: { status?: 'needs_input'; recovery?: 'ask_user' }) =>
      policy({ businessErrors: { KB_CLOSED: { message: 'The knowledge base is closed.', ...declared } } });
    assert.notEqual(closed({ status: 'needs_input' }), closed({}), 'a refusal that needs input is another policy');
    assert.equal(
      closed({ status: 'needs_input', recovery: 'ask_user' }),
      closed({ status: 'needs_input' }),
      'declaring the default recovery is the same policy',
    );
    assert.equal(policy({ revisions: { policy: 'p7' } }), 'p7');
  });

  it('keeps call defaults a tool declares and refuses ones the runtime could not use', () => {
    const callDefaults = { timeoutMs: 5000, readAttempts: 2, heartbeatTimeoutMs: 2000 };
    assert.deepEqual(defineTool({ ...base, callDefaults }).callDefaults, callDefaults);
    for (const key of ['timeoutMs', 'readAttempts', 'heartbeatTimeoutMs'] as const) {
      for (const bad of [0, -1, 1.5, Number.NaN]) {
        assert.throws(
          () => defineTool({ ...base, callDefaults: { [key]: bad } }),
          ToolDefinitionError,
          `${key} ${bad}`,
        );
      }
    }
    assert.equal(defineTool(base).maxArgumentBytes, DEFAULT_MAX_ARGUMENT_BYTES);
    assert.throws(() => defineTool({ ...base, maxArgumentBytes: 0 }), ToolDefinitionError);
  });

  it('serves a renamed tool under its earlier names, as those names, and offers models only the new one', async () => {
    const renamed = defineTool({ ...base, name: 'kb.find', aliases: ['kb.search', 'kb.lookup'] });
    const registry = new ToolRegistry([renamed]);
    assert.deepEqual(
      registry.list().map((tool) => tool.name),
      ['kb.find'],
    );
    assert.equal(registry.get('kb.search').name, 'kb.search');
    assert.equal(registry.get('kb.search').revisions, renamed.revisions);
    const { modelResult } = await registry.execute('kb.lookup', { q: 'x' }, testContext());
    assert.equal(modelResult.tool, 'kb.lookup');
    assert.equal(modelResult.status, 'succeeded');
    assert.throws(
      () => registry.register(defineTool({ ...base, name: 'kb.other', aliases: ['kb.search'] })),
      ToolDefinitionError,
      'an alias is a taken name',
    );
    assert.throws(
      () => defineTool({ ...base, aliases: ['kb.search'] }),
      ToolDefinitionError,
      'an alias equal to the name',
    );
    assert.throws(() => defineTool({ ...base, aliases: ['not a name'] }), ToolDefinitionError);
    assert.equal(registry.nameOf('kb.lookup'), 'kb.find', 'an alias counts as its tool');
    assert.equal(registry.nameOf('kb.find'), 'kb.find');
    assert.equal(registry.nameOf('kb.unknown'), undefined);
  });

  it('scopes the business keys of every name of a tool alike: a renamed tool that derives one says which name', () => {
    const writeBase = { ...base, effect: 'write' as const, businessKey: ['q'] as const };
    assert.throws(
      () => defineTool({ ...writeBase, name: 'kb.find', aliases: ['kb.search'] }),
      ToolDefinitionError,
      'a rename would move its keys',
    );
    assert.throws(
      () => defineTool({ ...base, idempotencyScope: 'kb.search' }),
      ToolDefinitionError,
      'a scope without a business key scopes nothing',
    );
    assert.throws(() => defineTool({ ...writeBase, idempotencyScope: 'not a name' }), ToolDefinitionError);
    const renamed = defineTool({
      ...writeBase,
      name: 'kb.find',
      aliases: ['kb.search'],
      idempotencyScope: 'kb.search',
    });
    const registry = new ToolRegistry([renamed]);
    const scopes = ['kb.find', 'kb.search'].map((name) => registry.get(name).facts.keyScope);
    assert.deepEqual(scopes, ['kb.search', 'kb.search'], 'the old and the new name derive one key');
    assert.equal(defineTool(writeBase).facts.keyScope, 'kb.search', 'by default, the name');
  });

  it('fills budgets with defaults and freezes the definition', () => {
    const tool = defineTool({ ...base, budget: { maxItems: 5 } });
    assert.equal(tool.budget.maxItems, 5);
    assert.ok(tool.budget.maxBytes >= 2048);
    assert.ok(Object.isFrozen(tool));
  });

  const invalid: [string, Partial<Spec>][] = [
    ['a name with spaces', { name: 'kb search' }],
    ['a name over 128 characters', { name: 'k'.repeat(129) }],
    ['an unknown effect', { effect: 'delete' as never }],
    ['reconcile on a read tool', { reconcile: () => Promise.resolve({ state: 'unknown' }) }],
    ['a byte budget below the minimum', { budget: { maxBytes: 100 } }],
    ['a non-integer item budget', { budget: { maxItems: 1.5 } }],
    ['a business code that shadows the catalog', { businessErrors: { NOT_FOUND: { message: 'x' } } }],
    ['a lower-case business code', { businessErrors: { not_refundable: { message: 'x' } } }],
    [
      'duplicate invariant ids',
      {
        invariants: [
          { id: 'a', version: 1, check: () => true },
          { id: 'a', version: 2, check: () => true },
        ],
      },
    ],
    ['a non-positive freshness window', { freshness: { maxAgeMs: 0, onStale: 'warn' } }],
    ['a non-zod schema', { input: { parse: () => ({}) } as never }],
    ['an empty business key', { businessKey: [] }],
    ['a business key part that is no name or pointer', { businessKey: ['/a~2b'] }],
    ['a business key part listed twice', { businessKey: ['q', 'q'] }],
  ];
  for (const [what, override] of invalid) {
    it(`rejects ${what}`, () => assert.throws(() => defineTool({ ...base, ...override }), ToolDefinitionError));
  }
});

describe('ToolRegistry', () => {
  it('looks tools up by name and refuses duplicates', () => {
    const tool = defineTool(base);
    const registry = new ToolRegistry([tool]);
    assert.equal(registry.get('kb.search'), tool);
    assert.ok(registry.has('kb.search'));
    assert.ok(!registry.has('toString'));
    assert.throws(() => registry.register(defineTool(base)), ToolDefinitionError);
    assert.deepEqual(registry.list(), [tool]);
  });

  it('throws ToolError UNKNOWN_TOOL for anything unregistered', () => {
    const registry = new ToolRegistry();
    assert.throws(
      () => registry.get('hasOwnProperty'),
      (error: unknown) => error instanceof ToolError && error.code === 'UNKNOWN_TOOL',
    );
  });
});
