import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { ToolError } from '../../../src/index.js';

/** The `ToolError` a promise rejects with; fails the test when it resolves or rejects with anything else. */
export async function toolErrorOf(promise: Promise<unknown>): Promise<ToolError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ToolError, `expected a ToolError, got ${inspect(error)}`);
    return error;
  }
  assert.fail('expected a rejection');
}

/** The `ToolError` a function throws. */
export function thrownToolError(fn: () => unknown): ToolError {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof ToolError, `expected a ToolError, got ${inspect(error)}`);
    return error;
  }
  assert.fail('expected a throw');
}

/** Asserts that no rendering of `error` (message, details, cause chain, inspect output) contains `secret`. */
export function assertHides(error: unknown, secret: string): void {
  const renderings = [
    inspect(error, { depth: 20, showHidden: true }),
    String(error),
    JSON.stringify(error instanceof ToolError ? error.details : null),
  ];
  for (const text of renderings) assert.ok(!text.includes(secret), 'the secret leaked into an error rendering');
}
