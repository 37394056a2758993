// A tool that returns about 5 MB never breaks the workflow: the model result is cut to its budget with a reference,
// the full data is an artifact in Postgres, and no payload anywhere near Temporal's limits enters history.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { DEFAULT_BUDGET } from '../../../src/index.js';
import { canonicalJson } from '../../../src/contract/canonical-json.js';
import { sha256Hex } from '../../../src/contract/sha256.js';
import { utf8ByteLength } from '../../../src/contract/truncation.js';
import type { CorrelatedResult } from '../../../workflows/index.js';
import { historyText } from '../../support/history-text.js';
import { adapterRenderings, assertValidModelResult } from './stack.js';
import { useRuntimeHarness } from '../../support/use-runtime-harness.js';
import { defineTool } from '../../../testkit/define-tool.js';

const principal = { tenant: 'tenant-acme', subject: 'user-42' };
const TARGET_BYTES = 5 * 1024 * 1024;
/** Temporal's default blob-size limits: a warning from 2 MB, an error from 4 MB (per payload). */
const TEMPORAL_BLOB_WARN = 2 * 1024 * 1024;

/** ~5 MB of rows: 20,000 items of ~260 bytes. */
function bigExport(): { rows: { id: string; customer: string; memo: string; cents: number }[] } {
  const rows = Array.from({ length: 20_000 }, (_, i) => ({
    id: `row_${i}`,
    customer: `cus_${i % 977}`,
    memo: `line ${i} `.padEnd(220, '.'),
    cents: i * 7,
  }));
  return { rows };
}

/** One string of ~5 MB in a single field. */
function bigBlob(): { name: string; body: string } {
  return { name: 'ledger.csv', body: 'date,amount\n'.padEnd(TARGET_BYTES, '2026-11-30,100\n') };
}

const rowTool = defineTool({
  name: 'reports.export_rows',
  description: 'Exports every ledger row (about 5 MB).',
  input: z.strictObject({ report: z.string() }),
  output: z.strictObject({
    rows: z.array(z.strictObject({ id: z.string(), customer: z.string(), memo: z.string(), cents: z.number().int() })),
  }),
  effect: 'read',
  source: { label: 'ledger-db', type: 'database' },
  budget: { itemsPointer: '/rows', maxItems: 100_000, maxTextChars: 10_000_000 },
  handler: () => Promise.resolve({ data: bigExport() }),
});

const blobTool = defineTool({
  name: 'reports.export_blob',
  description: 'Exports the ledger as one CSV string (about 5 MB).',
  input: z.strictObject({ report: z.string() }),
  output: z.strictObject({ name: z.string(), body: z.string() }),
  effect: 'read',
  source: { label: 'ledger-db', type: 'database' },
  handler: () => Promise.resolve({ data: bigBlob() }),
});

const stack = useRuntimeHarness('rel-payload', { extraTools: [rowTool, blobTool] });
test(
  'two 5 MB results: the workflow completes, results fit the budget, artifacts hold everything, history stays small',
  { timeout: 180_000 },
  async () => {
    const workflowId = 'payload-5mb';
    const started = Date.now();
    const results = (await stack.temporal.client.workflow.execute('runToolCalls', {
      taskQueue: stack.taskQueue,
      workflowId,
      args: [
        [
          { name: rowTool.name, args: { report: 'ledger' } },
          { name: blobTool.name, args: { report: 'ledger' } },
        ],
        { principal, readAttempts: 1 },
      ],
    })) as CorrelatedResult[];
    const elapsed = Date.now() - started;

    const figures: string[] = [];
    for (const [result, full] of [
      [results[0]!, bigExport()],
      [results[1]!, bigBlob()],
    ] as const) {
      const { modelResult } = result;
      assertValidModelResult(modelResult, result.callId);
      const fullBytes = utf8ByteLength(canonicalJson(full));
      assert.ok(fullBytes >= TARGET_BYTES, `the tool returned ${fullBytes} bytes`);
      assert.equal(modelResult.status, 'partial');
      assert.equal(modelResult.completeness.state, 'truncated');
      const resultBytes = utf8ByteLength(JSON.stringify(modelResult));
      assert.ok(resultBytes <= DEFAULT_BUDGET.maxBytes, `model result is ${resultBytes} bytes`);
      // MCP carries the result twice (structuredContent and its JSON text, escaped again here), the others once.
      for (const [name, rendering] of Object.entries(adapterRenderings(result.callId, 'reports.export', modelResult))) {
        const bytes = utf8ByteLength(JSON.stringify(rendering));
        assert.ok(bytes <= 3 * DEFAULT_BUDGET.maxBytes, `${name} rendering is ${bytes} bytes`);
      }

      // The reference leads to the full data in Postgres, byte for byte (the store verifies the digest on read).
      const ref = modelResult.artifact;
      assert.ok(ref !== undefined, 'a truncated result references its full data');
      const artifact = await stack.store.getArtifact(ref.artifact_id.slice('art_'.length));
      assert.equal(artifact.bytes, ref.bytes);
      assert.equal(artifact.body, canonicalJson(full));
      assert.equal(sha256Hex(artifact.body), artifact.sha256);
      figures.push(
        `${result.callId}: tool output ${fullBytes} B → model result ${resultBytes} B (${modelResult.completeness.returned_items ?? '-'} of ${modelResult.completeness.available_items ?? '-'} items), artifact ${artifact.bytes} B`,
      );
    }

    const history = await historyText(stack.temporal.client, workflowId);
    assert.ok(
      history.largestPayloadBytes < TEMPORAL_BLOB_WARN / 8,
      `largest history payload is ${history.largestPayloadBytes} bytes`,
    );
    assert.ok(history.text.length < 1024 * 1024, `history text is ${history.text.length} characters`);
    assert.ok(
      !history.text.includes('2026-11-30,100\n2026-11-30,100\n'.repeat(100)),
      'the bulk data never entered history',
    );
    process.stdout.write(
      `\n5 MB payloads: ${figures.join('; ')}; history ${history.events} events, largest payload ${history.largestPayloadBytes} B; workflow ${elapsed} ms\n`,
    );
  },
);
