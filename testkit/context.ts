import type { ExecutionContext } from '../src/contract/execution-context.js';

/** A fixed instant, so timestamps and freshness are deterministic in tests. */
export const FIXED_NOW = Date.parse('2026-11-30T12:00:00.000Z');

/** A trusted execution context for tests; override any field. */
export function testContext(overrides: Partial<ExecutionContext> = {}): ExecutionContext {
  return {
    principal: { tenant: 'tenant-acme', subject: 'user-7f3a9c' },
    provider: {
      provider: 'openai',
      apiFamily: 'responses',
      responseId: 'resp_123',
      providerCallId: 'call_abc',
      adapterRevision: 'openai-responses@1',
    },
    callId: 'call-0001',
    operationId: 'op-5b0e2c4a-9d1f',
    idempotencyKey: 'idem-wf-42-call-0001',
    attempt: 1,
    now: () => FIXED_NOW,
    ...overrides,
  };
}
