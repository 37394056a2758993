// The byte budget bounds what the model reads: every provider's rendering of a fitted result (untrusted text fenced
// and escaped) stays within it, even for text made of the characters that grow most when rendered (issue 15).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { z } from 'zod';
import { toToolResultBlock } from '../../../src/adapters/anthropic.js';
import { toFunctionResponse } from '../../../src/adapters/gemini.js';
import { toCallToolResult } from '../../../src/adapters/mcp.js';
import { toChatToolMessage, toResponsesOutput } from '../../../src/adapters/openai.js';
import { type ModelResult } from '../../../src/index.js';
import { executeTool } from '../../../src/contract/execute-tool.js';
import { testContext } from '../../../testkit/context.js';
import { defineTool } from '../../../testkit/define-tool.js';

const BUDGET = 4096;

/** Characters that grow when rendered: JSON escapes (quote, backslash, controls), fence escapes, multi-byte UTF-8. */
const GROWING = [
  '"',
  '\\',
  '<',
  '>',
  '&',
  '\u0001',
  '\u001f',
  '\n',
  '\t',
  'é',
  '€',
  '😀',
  '\u200b',
  '\u{E0041}',
  '</untrusted-content>',
  'system: ',
];
const WORST = GROWING.join('').repeat(400);

interface Shape {
  readonly items: number;
  readonly itemText: string;
  readonly untrusted: readonly string[];
}

function heavyTool(shape: Shape) {
  return defineTool({
    name: 'pages.fetch',
    description: 'Fetch pages and their notes.',
    input: z.strictObject({}),
    output: z.strictObject({ items: z.array(z.strictObject({ n: z.number(), note: z.string() })) }),
    effect: 'read',
    source: { label: 'web<&>"source"', type: 'http_api' },
    budget: { maxBytes: BUDGET, itemsPointer: '/items' },
    handler: async () => ({
      data: { items: Array.from({ length: shape.items }, (_, n) => ({ n, note: shape.itemText })) },
      untrusted: shape.untrusted.map((text, i) => ({ text, source: `page <${i}> & "more"` })),
    }),
  });
}

/** The bytes the model reads of `result`, per provider rendering. */
function renderedSizes(result: ModelResult): Record<string, number> {
  const bytes = (text: string) => Buffer.byteLength(text, 'utf8');
  const mcp = toCallToolResult(result);
  const gemini = toFunctionResponse({ id: 'c1', name: 'pages__fetch', result }).response;
  return {
    stored: bytes(JSON.stringify(result)),
    openaiResponses: bytes(toResponsesOutput('c1', result).output),
    openaiChat: bytes(toChatToolMessage('c1', result).content),
    anthropic: bytes(toToolResultBlock('c1', result).content),
    gemini: bytes(JSON.stringify('output' in gemini ? gemini.output : gemini.error)),
    mcpText: bytes(mcp.content[0]?.text ?? ''),
    mcpStructured: bytes(JSON.stringify(mcp.structuredContent)),
  };
}

async function assertWithinBudget(shape: Shape, label: string): Promise<ModelResult> {
  const { modelResult } = await executeTool(heavyTool(shape), {}, testContext());
  for (const [rendering, size] of Object.entries(renderedSizes(modelResult))) {
    assert.ok(size <= BUDGET, `${label}: ${rendering} is ${size} bytes, over the ${BUDGET}-byte budget`);
  }
  return modelResult;
}

describe('rendered results within the byte budget', () => {
  it('holds for text that grows most when fenced (`<` becomes 4 bytes, `&` 5): cut to fit, never inflated past it', async () => {
    for (const untrusted of [['<'.repeat(8000)], ['&'.repeat(8000), '&'.repeat(8000), '&'.repeat(8000)], [WORST]]) {
      const result = await assertWithinBudget(
        { items: 0, itemText: '', untrusted },
        `${untrusted.length} text(s) of ${untrusted[0]?.slice(0, 1)}`,
      );
      assert.equal(result.untrusted_content.length, untrusted.length, 'the texts are cut to fit, not dropped');
      assert.equal(result.completeness.state, 'truncated');
    }
  });

  it('holds for a list and several untrusted texts made of growing characters', async () => {
    const result = await assertWithinBudget(
      { items: 200, itemText: GROWING.join(''), untrusted: [WORST, WORST.slice(7), '<&>'.repeat(900)] },
      'list',
    );
    assert.equal(result.completeness.state, 'truncated');
  });

  it('holds for arbitrary mixes of growing characters', async () => {
    const text = fc.array(fc.constantFrom(...GROWING), { maxLength: 3000 }).map((parts) => parts.join(''));
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: 60 }),
        text,
        fc.array(text, { maxLength: 3 }),
        async (items, itemText, untrusted) => {
          await assertWithinBudget({ items, itemText, untrusted }, `${items} items, ${untrusted.length} texts`);
        },
      ),
      { numRuns: 25 },
    );
  });
});
