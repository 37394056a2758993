import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { executeTool } from '../../src/contract/execute-tool.js';
import { mapBounded } from '../../workflows/bounded-map.js';
import { dispatchOptionsFor, PACKAGE_CALL_DEFAULTS } from '../../workflows/call/dispatch-step.js';
import { testContext } from '../../testkit/context.js';
import { defineTool } from '../../testkit/define-tool.js';

describe('per-tool call defaults', () => {
  it('takes each field from the call, else the tool, else the package', () => {
    const tool = { callDefaults: { timeoutMs: 5_000, heartbeatTimeoutMs: 1_000 } };
    assert.deepEqual(dispatchOptionsFor(tool, { timeoutMs: 7_000 }), {
      timeoutMs: 7_000,
      heartbeatTimeoutMs: 1_000,
      readAttempts: PACKAGE_CALL_DEFAULTS.readAttempts,
    });
    assert.deepEqual(dispatchOptionsFor({ callDefaults: null }, { taskQueue: 'q' }), {
      ...PACKAGE_CALL_DEFAULTS,
      taskQueue: 'q',
    });
  });
});

describe('bounded fan-out', () => {
  it('keeps results in item order with at most `limit` runs in flight', async () => {
    let inFlight = 0;
    let most = 0;
    const delays = [30, 5, 20, 1, 10, 2, 15];
    const results = await mapBounded(delays, 3, async (delay, index) => {
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((resolve) => setTimeout(resolve, delay));
      inFlight--;
      return index;
    });
    assert.deepEqual(results, [0, 1, 2, 3, 4, 5, 6]);
    assert.equal(most, 3);
  });
});

describe('argument size bound', () => {
  const notes = defineTool({
    name: 'notes.save',
    description: 'Saves a note for the current customer.',
    input: z.strictObject({ text: z.string() }),
    output: z.strictObject({ saved: z.boolean() }),
    effect: 'read',
    source: { label: 'notes', type: 'database' },
    maxArgumentBytes: 1024,
    handler: () => Promise.resolve({ data: { saved: true } }),
  });

  it('refuses arguments larger than the tool takes as INVALID_ARGUMENTS before the handler runs', async () => {
    const { modelResult, audit } = await executeTool(notes, { text: 'é'.repeat(600) }, testContext());
    assert.equal(modelResult.error?.code, 'INVALID_ARGUMENTS');
    assert.equal(modelResult.execution.outcome, 'not_started');
    // `{"text":"` + 600 two-byte characters + `"}`.
    assert.deepEqual(audit.error_detail, {
      layer: 'input',
      code: 'INVALID_ARGUMENTS',
      detail: { reason: 'arguments_too_large', bytes: 1211, max_bytes: 1024 },
    });
  });

  it('lets arguments up to the bound through', async () => {
    const { modelResult } = await executeTool(notes, { text: 'a'.repeat(1000) }, testContext());
    assert.equal(modelResult.status, 'succeeded');
  });
});
