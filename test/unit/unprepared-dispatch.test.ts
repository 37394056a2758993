import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { defineTool, type AnyToolDefinition } from '../../src/index.js';
import { isPlainRead, runsUnprepared } from '../../activities/tool-activity.js';
import { isPreparationNeeded, PREPARATION_NEEDED_KIND } from '../../src/wire/message-kinds.js';
import { callsMade, countCall, withdrawCall } from '../../workflows/call-limits.js';

const read = defineTool({
  name: 'catalog.lookup',
  description: 'Looks up a catalogue entry.',
  input: z.strictObject({ key: z.string() }),
  output: z.strictObject({ key: z.string() }),
  effect: 'read',
  source: { label: 'catalogue', type: 'database' },
  handler: async ({ key }) => ({ data: { key } }),
}) as AnyToolDefinition;

describe('which tools a worker runs unprepared', () => {
  it('a plain read without a call limit or defaults of its own runs unprepared; every other tool is prepared first', () => {
    assert.equal(runsUnprepared(read), true);
    const variants: Record<string, AnyToolDefinition> = {
      write: { ...read, effect: 'write' },
      'approval-gated read': { ...read, requiresApproval: true },
      'read with a business key': { ...read, idempotencyKey: () => 'k' },
      'read with a call limit': { ...read, callLimit: 3 },
      'read with call defaults': { ...read, callDefaults: { timeoutMs: 60_000 } },
    };
    for (const [name, tool] of Object.entries(variants)) assert.equal(runsUnprepared(tool), false, name);
    // Known reads (dispatched on a recorded preparation) carry the limit and defaults it recorded.
    assert.equal(isPlainRead(variants['read with a call limit']!), true);
    assert.equal(isPlainRead(variants['read with call defaults']!), true);
  });

  it('recognises its answer only by its tag', () => {
    assert.equal(isPreparationNeeded({ kind: PREPARATION_NEEDED_KIND }), true);
    for (const other of [null, undefined, 'x', { kind: 'ttc.tool-call.v1' }, { modelResult: {} }]) assert.equal(isPreparationNeeded(other), false);
  });
});

describe('call counts', () => {
  it('an expected read sent back for preparation is withdrawn: its preparation admits it again', () => {
    const tool = 'unit.withdrawn';
    countCall(tool);
    countCall(tool);
    withdrawCall(tool);
    assert.equal(callsMade(tool), 1);
    withdrawCall(tool);
    assert.equal(callsMade(tool), 0);
  });
});
