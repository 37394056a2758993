import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import type { ToolDeclarationSpec, ToolImplementationSpec } from '../../src/index.js';
import { defineTool } from '../../testkit/define-tool.js';
import { executeTool } from '../../src/contract/execute-tool.js';
import { testContext } from '../../testkit/context.js';
import { orderTool, returning } from '../support/tools.js';

const fileOutput = z.strictObject({ path: z.string(), bytes: z.number().int() });
type FileSpec = ToolDeclarationSpec<z.ZodType<{ path: string; content: string }>, typeof fileOutput> &
  ToolImplementationSpec<z.ZodType<{ path: string; content: string }>, typeof fileOutput>;

/** A file edit that checks what it wrote (seed 003): the invariant parses the content the call wrote. */
function writeFile(
  invariant: Partial<FileSpec['invariants'] extends readonly (infer I)[] | undefined ? I : never> = {},
) {
  return defineTool({
    name: 'files.write',
    description: 'Write a source file and check its syntax.',
    input: z.strictObject({ path: z.string(), content: z.string() }),
    output: fileOutput,
    effect: 'write',
    source: { label: 'workspace', type: 'filesystem' },
    invariants: [
      {
        id: 'syntax',
        version: 1,
        check: (_data, args) =>
          args.content.includes('{{')
            ? `syntax error at line 12: unexpected '{' (written by ${testContext().idempotencyKey})`
            : true,
        ...invariant,
      },
    ],
    handler: (args) =>
      Promise.resolve({
        data: { path: args.path, bytes: args.content.length },
        receipt: { externalId: `rev-${args.path}` },
      }),
  });
}

const findings = (warnings: readonly { code: string; message: string }[]) =>
  warnings.filter((warning) => warning.code === 'VERIFICATION_FINDING').map((warning) => warning.message);

describe('verification findings help the repair (seeds 001, 003)', () => {
  it("a post-write check's reason reaches the model when the invariant shows it, redacted: the next call can fix line 12", async () => {
    const { modelResult, audit } = await executeTool(
      writeFile({ visibleReason: true }),
      { path: 'a.ts', content: 'x = {{' },
      testContext(),
    );
    assert.equal(modelResult.status, 'partial', 'the write happened: never failed');
    assert.equal(modelResult.execution.outcome, 'committed');
    assert.equal(modelResult.error?.code, 'INVARIANT_VIOLATION');
    assert.deepEqual(findings(modelResult.warnings), [
      "invariant:syntax@1: syntax error at line 12: unexpected '{' (written by [REDACTED])",
    ]);
    assert.ok(
      audit.redactions.some((redaction) => redaction.path.startsWith('/warnings/')),
      'the redaction is in the audit',
    );
  });

  it('by default a reason stays in the audit (it may quote the refused data)', async () => {
    const { modelResult, audit } = await executeTool(writeFile(), { path: 'a.ts', content: 'x = {{' }, testContext());
    assert.deepEqual(findings(modelResult.warnings), []);
    assert.match(JSON.stringify(audit.error_detail), /syntax error at line 12/);
  });

  it('a failed read shows an opted-in finding too; a check that passes shows nothing', async () => {
    const tool = orderTool(
      returning({
        data: { id: 'ord_1', status: 'paid', total_cents: 10, lines: [] },
        observedAt: '2026-11-30T11:59:30.000Z',
      }),
      {
        invariants: [
          {
            id: 'total-equals-lines',
            version: 2,
            visibleReason: true,
            check: (data) => data.total_cents === 0 || `total ${data.total_cents} differs from the sum of lines 0`,
          },
        ],
      },
    );
    const { modelResult } = await executeTool(tool, { order_id: 'ord_1' }, testContext());
    assert.deepEqual(
      [modelResult.status, findings(modelResult.warnings)],
      ['failed', ['invariant:total-equals-lines@2: total 10 differs from the sum of lines 0']],
    );
    assert.deepEqual(
      findings(
        (await executeTool(writeFile({ visibleReason: true }), { path: 'a.ts', content: 'ok' }, testContext()))
          .modelResult.warnings,
      ),
      [],
    );
  });

  it('a broken output or an unexpected failure asks for a person (human_review), as seed 001 says; a write still reconciles', async () => {
    const broken = await executeTool(
      orderTool(returning({ data: { id: 'ord_1' } })),
      { order_id: 'ord_1' },
      testContext(),
    );
    assert.deepEqual(
      [broken.modelResult.error?.code, broken.modelResult.error?.recovery],
      ['OUTPUT_CONTRACT_VIOLATION', 'human_review'],
    );
    const thrown = await executeTool(
      orderTool(() => Promise.reject(new Error('boom'))),
      { order_id: 'ord_1' },
      testContext(),
    );
    assert.deepEqual(
      [thrown.modelResult.error?.code, thrown.modelResult.error?.recovery],
      ['TOOL_ERROR', 'human_review'],
    );
    const write = defineTool({
      ...writeFile(),
      name: 'files.write_unknown',
      handler: () => Promise.reject(new Error('socket hang up')),
    });
    const unknown = await executeTool(write, { path: 'a.ts', content: 'ok' }, testContext());
    assert.deepEqual(
      [unknown.modelResult.status, unknown.modelResult.error?.code, unknown.modelResult.error?.recovery],
      ['unknown', 'OUTCOME_UNKNOWN', 'query_status'],
    );
  });
});
