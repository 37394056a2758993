// Keyless decisions are a development opt-in by name: a worker given no way to verify decisions refuses to start
// when a tool it serves requires approval (nothing could approve it, and nothing unverified may), and otherwise takes
// no decision at all (see test/unit/decision-tokens.test.ts for `no_verifier`).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import {
  generateDecisionKey,
  signedDecisions,
  unauthenticatedForDevelopment,
  verifyingKey,
} from '../../src/decisions/index.js';
import { ToolRegistry } from '../../src/index.js';
import { InMemoryToolStore } from '../../src/store/in-memory/in-memory-tool-store.js';
import { ToolContractPlugin } from '../../src/temporal/plugin.js';
import { defineTool } from '../../testkit/define-tool.js';

const transfer = defineTool({
  name: 'bank.transfer',
  description: 'Moves money between accounts (needs approval).',
  input: z.strictObject({ amount_cents: z.number().int().positive() }),
  output: z.strictObject({ transfer_id: z.string() }),
  effect: 'write',
  requiresApproval: true,
  source: { label: 'bank', type: 'http_api' },
  handler: () => Promise.resolve({ data: { transfer_id: 'tr_1' } }),
});
const lookup = defineTool({
  name: 'bank.balance',
  description: 'Reads an account balance.',
  input: z.strictObject({ account: z.string() }),
  output: z.strictObject({ cents: z.number().int() }),
  effect: 'read',
  source: { label: 'bank', type: 'http_api' },
  handler: () => Promise.resolve({ data: { cents: 1 } }),
});

test('a worker with a tool that requires approval and no decision verifier refuses to start', () => {
  assert.throws(
    () => new ToolContractPlugin({ tools: new ToolRegistry([lookup, transfer]), store: new InMemoryToolStore() }),
    /bank\.transfer/,
  );
});

test('it starts with a verifier, or with unauthenticated decisions opted into by name; a worker without approval tools needs neither', () => {
  const tools = () => new ToolRegistry([lookup, transfer]);
  assert.ok(
    new ToolContractPlugin({
      tools: tools(),
      store: new InMemoryToolStore(),
      decisions: signedDecisions({ keys: [verifyingKey(generateDecisionKey('ed25519', 'k1'))] }),
    }),
  );
  assert.ok(
    new ToolContractPlugin({
      tools: tools(),
      store: new InMemoryToolStore(),
      decisions: unauthenticatedForDevelopment(),
    }),
  );
  assert.ok(new ToolContractPlugin({ tools: new ToolRegistry([lookup]), store: new InMemoryToolStore() }));
});
