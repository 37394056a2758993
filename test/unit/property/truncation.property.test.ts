// Truncation invariants of SPEC §5 through the whole funnel: a list-returning read tool, random data and budgets.
import assert from 'node:assert/strict';
import { isDeepStrictEqual } from 'node:util';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { z } from 'zod';
import { modelResultSchema } from '../../../src/index.js';
import { canonicalJson } from '../../../src/contract/canonical-json.js';
import { executeTool, type ToolExecution } from '../../../src/contract/execute-tool.js';
import { resolvePointer } from '../../../src/contract/json-pointer.js';
import { testContext } from '../../../testkit/context.js';
import { defineTool } from '../../../testkit/define-tool.js';

const item = z.strictObject({ id: z.number().int(), name: z.string(), tags: z.array(z.string()), score: z.number() });
type Item = z.infer<typeof item>;
const wrapped = z.strictObject({ items: z.array(item), note: z.string() });

/** Characters chosen to stress byte accounting: 1-, 2-, 3- and 4-byte UTF-8, and JSON escapes. None forms a secret. */
const textUnit = fc.constantFrom('a', 'b', ' ', 'é', 'ß', '中', '語', '😀', '𝄞', '"', '\\', '\n', '\u0001', '/', '~');
const text = (maxLength: number) => fc.string({ unit: textUnit, maxLength });

const itemArb: fc.Arbitrary<Item> = fc.record({
  id: fc.integer({ min: -1_000_000, max: 1_000_000 }),
  name: text(160),
  tags: fc.array(text(12), { maxLength: 12 }),
  score: fc.double({ noNaN: true, noDefaultInfinity: true }),
});

/** Evidence citing an item field, a whole item, the whole list or the whole result, with an optional (long) quote. */
interface Cited {
  readonly index: number;
  readonly target: 'name' | 'tags' | 'item' | 'list' | 'root';
  readonly quote: string | null;
}

const citedArb: fc.Arbitrary<Cited> = fc.record({
  index: fc.nat(),
  target: fc.constantFrom('name' as const, 'tags' as const, 'item' as const, 'list' as const, 'root' as const),
  // Quotes are external text too: long ones must count against the byte budget like everything else.
  quote: fc.option(
    fc.tuple(textUnit, fc.nat({ max: 1500 })).map(([unit, repeat]) => unit.repeat(repeat)),
    { freq: 2 },
  ),
});

interface Scenario {
  readonly items: Item[];
  /** The list is the data itself (`itemsPointer: ''`) or `data.items` next to a note. */
  readonly rootIsList: boolean;
  readonly note: string;
  readonly maxBytes: number;
  readonly maxItems: number;
  readonly maxTextChars: number;
  /** Evidence citing items by index (taken modulo the list length). */
  readonly cited: Cited[];
  readonly upstreamCursor: string | null;
  readonly extraAvailable: number | null;
}

const scenarioArb: fc.Arbitrary<Scenario> = fc.record({
  items: fc.array(itemArb, { maxLength: 250 }),
  rootIsList: fc.boolean(),
  note: text(400),
  // Mostly tight budgets, where the byte limit rather than the item limit decides.
  maxBytes: fc.oneof(
    { arbitrary: fc.integer({ min: 2048, max: 6000 }), weight: 3 },
    { arbitrary: fc.integer({ min: 6001, max: 24_000 }), weight: 1 },
  ),
  maxItems: fc.integer({ min: 1, max: 300 }),
  maxTextChars: fc.oneof(
    { arbitrary: fc.integer({ min: 1, max: 200 }), weight: 3 },
    { arbitrary: fc.integer({ min: 201, max: 8000 }), weight: 1 },
  ),
  cited: fc.array(citedArb, { maxLength: 8 }),
  upstreamCursor: fc.option(fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 20 }), { freq: 4 }),
  extraAvailable: fc.option(fc.nat({ max: 1000 }), { freq: 2 }),
});

function dataOf(scenario: Scenario): Item[] | z.infer<typeof wrapped> {
  return scenario.rootIsList ? scenario.items : { items: scenario.items, note: scenario.note };
}

function listIn(data: unknown, scenario: Scenario): unknown {
  const found = resolvePointer(data, scenario.rootIsList ? '' : '/items');
  return found.found ? found.value : undefined;
}

/** Plain-prototype JSON copy (fast-check builds records without a prototype; JSON has no -0). */
function asJson(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value)) as unknown;
}

interface Run {
  readonly execution: ToolExecution;
  /** The data the handler returned, as plain JSON. */
  readonly original: unknown;
  readonly outputSchema: z.ZodType;
  readonly evidenceCount: number;
}

async function run(scenario: Scenario): Promise<Run> {
  const data = asJson(dataOf(scenario));
  const prefix = scenario.rootIsList ? '' : '/items';
  const evidence = scenario.cited.flatMap(({ index, target, quote }) => {
    const i = scenario.items.length === 0 ? null : index % scenario.items.length;
    const pointer = {
      root: '',
      list: prefix,
      item: `${prefix}/${i}`,
      name: `${prefix}/${i}/name`,
      tags: `${prefix}/${i}/tags`,
    }[target];
    if (i === null && target !== 'root' && target !== 'list') return [];
    return [
      { kind: 'db_row', locator: `items/${i ?? 'all'}`, supports: [pointer], ...(quote === null ? {} : { quote }) },
    ];
  });
  const outputSchema = scenario.rootIsList ? z.array(item) : wrapped;
  const tool = defineTool({
    name: 'items.list',
    description: 'Lists items.',
    input: z.strictObject({}),
    output: outputSchema,
    effect: 'read',
    source: { label: 'items-db', type: 'database' },
    budget: {
      maxBytes: scenario.maxBytes,
      maxItems: scenario.maxItems,
      maxTextChars: scenario.maxTextChars,
      itemsPointer: prefix,
    },
    handler: async () => ({
      data: structuredClone(data) as z.input<typeof outputSchema>,
      evidence,
      ...(scenario.upstreamCursor === null
        ? {}
        : { next: { type: 'cursor' as const, value: scenario.upstreamCursor } }),
      ...(scenario.extraAvailable === null ? {} : { availableItems: scenario.items.length + scenario.extraAvailable }),
    }),
  });
  const execution = await executeTool(tool, {}, testContext());
  return { execution, original: data, outputSchema, evidenceCount: evidence.length };
}

/**
 * Modest run counts keep the file fast; the time limit also bounds shrinking, which replays the whole funnel per
 * step (a failure still fails, with the smallest counterexample found in time).
 */
const RUNS = { numRuns: 60, interruptAfterTimeLimit: 3000 } as const;

/**
 * Regression examples: evidence citing the whole result (`''`). A pointer to the root still resolves when the
 * last-resort fallback drops `data` to null, so such evidence (quote and locator included) is never dropped, and
 * the fallback result is not measured against the budget.
 */
const ROOT_EVIDENCE_CASES: readonly (readonly [string, Scenario])[] = [
  [
    'one long quote under the default text budget',
    {
      items: [{ id: 1, name: 'a', tags: [], score: 0 }],
      rootIsList: false,
      note: '',
      maxBytes: 2048,
      maxItems: 300,
      maxTextChars: 8000,
      cited: [{ index: 0, target: 'root', quote: 'q'.repeat(1500) }],
      upstreamCursor: null,
      extraAvailable: null,
    },
  ],
  [
    'several quotes, each within the text budget',
    {
      items: [{ id: 1, name: 'a', tags: [], score: 0 }],
      rootIsList: false,
      note: '',
      maxBytes: 2048,
      maxItems: 300,
      maxTextChars: 200,
      cited: Array.from({ length: 6 }, (_, i) => ({
        index: 0,
        target: 'root' as const,
        quote: `${i}${'中'.repeat(150)}`,
      })),
      upstreamCursor: null,
      extraAvailable: null,
    },
  ],
];

describe('truncation invariants (executeTool, random list data and budgets)', () => {
  it('the serialized model result never exceeds budget.maxBytes (UTF-8)', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async (scenario) => {
        const { modelResult } = (await run(scenario)).execution;
        const bytes = Buffer.byteLength(JSON.stringify(modelResult), 'utf8');
        assert.ok(bytes <= scenario.maxBytes, `model result is ${bytes} bytes; budget ${scenario.maxBytes}`);
      }),
      RUNS,
    );
  });

  for (const [name, scenario] of ROOT_EVIDENCE_CASES) {
    it(`evidence citing the whole result stays within budget.maxBytes: ${name}`, async () => {
      const { execution } = await run(scenario);
      const bytes = Buffer.byteLength(JSON.stringify(execution.modelResult), 'utf8');
      assert.ok(bytes <= scenario.maxBytes, `model result is ${bytes} bytes; budget ${scenario.maxBytes}`);
    });
  }

  it('the model result is valid, well-formed JSON accepted by tool-result.model.v1, and its data by the tool schema', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async (scenario) => {
        const { execution, outputSchema } = await run(scenario);
        const { modelResult } = execution;
        // canonicalJson refuses lone surrogates, so a text cut through a surrogate pair would fail here.
        const text = canonicalJson(modelResult);
        assert.deepStrictEqual(JSON.parse(text), JSON.parse(JSON.stringify(modelResult)));
        assert.equal(modelResultSchema.safeParse(JSON.parse(text)).success, true);
        assert.equal(modelResult.error, null);
        if (modelResult.data !== null) assert.equal(outputSchema.safeParse(modelResult.data).success, true);
      }),
      RUNS,
    );
  });

  it('completeness and status tell the truth about every cut', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async (scenario) => {
        const { execution, original } = await run(scenario);
        const { modelResult, audit, artifacts } = execution;
        const { completeness } = modelResult;
        const cut = !isDeepStrictEqual(asJson(modelResult.data), original);
        const upstreamSaysMore =
          scenario.upstreamCursor !== null || (scenario.extraAvailable !== null && scenario.extraAvailable > 0);

        if (cut) {
          assert.notEqual(completeness.state, 'complete', 'something was cut');
          assert.equal(artifacts.length, 1, 'a cut result keeps the full data as an artifact');
          assert.equal(modelResult.artifact?.artifact_id, `art_${artifacts[0]!.sha256}`);
        } else {
          assert.equal(artifacts.length, 0);
          assert.equal(modelResult.artifact, undefined);
        }
        // `partial` exactly when truncated (by us or upstream); `succeeded` exactly when complete.
        assert.equal(modelResult.status, cut || upstreamSaysMore ? 'partial' : 'succeeded');
        assert.equal(completeness.state, modelResult.status === 'partial' ? 'truncated' : 'complete');
        assert.equal(audit.status, modelResult.status);
        const budgetLayer = audit.validation.find((layer) => layer.layer === 'budget');
        assert.equal(budgetLayer?.outcome, cut ? 'warned' : 'passed');

        const list = listIn(modelResult.data, scenario);
        const returned = Array.isArray(list) ? list.length : 0;
        assert.equal(completeness.returned_items, returned);
        if (modelResult.data !== null) assert.ok(Array.isArray(list), 'the list survives whenever data does');
        assert.ok(completeness.available_items === null || completeness.available_items >= returned);
        if (completeness.available_items === 0) {
          assert.ok(
            scenario.items.length === 0 && !upstreamSaysMore,
            'available_items is 0 only for a truly empty listing (unknown is null)',
          );
        }
        // The tool declares no continuation: no `next` could be honoured, so none is offered, cut or not.
        assert.equal(completeness.next, null, 'a tool without a declared continuation is offered no next');
        assert.ok(returned <= scenario.maxItems);
      }),
      RUNS,
    );
  });

  it('every evidence pointer resolves in the data the model sees', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async (scenario) => {
        const { execution, evidenceCount } = await run(scenario);
        const { modelResult } = execution;
        for (const evidence of modelResult.evidence) {
          for (const pointer of evidence.supports)
            assert.ok(resolvePointer(modelResult.data, pointer).found, `dangling ${pointer}`);
        }
        // Evidence dropped with its data is announced, never silently lost.
        assert.ok(modelResult.evidence.length <= evidenceCount);
        if (modelResult.evidence.length < evidenceCount)
          assert.ok(modelResult.warnings.some((w) => w.code === 'EVIDENCE_OMITTED'));
      }),
      RUNS,
    );
  });
});
