import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ERROR_CATALOG } from '../../src/index.js';
import { CATALOG_CODES, isCatalogCode, nonRetryableCodes } from '../../src/contract/error-catalog.js';

describe('error catalog', () => {
  it('holds every code the spec names', () => {
    const required = [
      'UNKNOWN_TOOL',
      'INVALID_ARGUMENTS',
      'NOT_FOUND',
      'PERMISSION_DENIED',
      'APPROVAL_REQUIRED',
      'APPROVAL_REJECTED',
      'APPROVAL_INVALID',
      'TIMEOUT_BEFORE_EXECUTE',
      'RATE_LIMITED',
      'UPSTREAM_UNAVAILABLE',
      'OUTCOME_UNKNOWN',
      'IDEMPOTENCY_CONFLICT',
      'STATUS_CONFLICT',
      'PROTOCOL_ERROR',
      'OUTPUT_CONTRACT_VIOLATION',
      'INVARIANT_VIOLATION',
      'STALE_DATA',
      'SOURCE_NOT_ALLOWED',
      'BUSINESS_RULE',
      'TOOL_ERROR',
      // Beyond the spec's list: a write reconciliation found absent (not a timeout); a per-workflow call limit
      // refuses a call before it runs.
      'NOT_COMMITTED',
      'CALL_LIMIT_EXCEEDED',
      // A workflow cancel that reached a running attempt.
      'CANCELLED',
      // A worker that serves another revision of the tool than the workflow decided the call by (a deploy in progress).
      'TOOL_REVISION_UNSERVED',
      // Seed 004: an invariant failure stops the run's later writes; seed 000: a write's premise no longer holds.
      'WRITES_HALTED',
      'PRECONDITION_FAILED',
    ];
    assert.deepEqual([...CATALOG_CODES].sort(), [...required].sort());
  });

  it('fixes the outcomes the spec fixes', () => {
    assert.deepEqual(
      [
        ERROR_CATALOG.INVALID_ARGUMENTS.outcome,
        ERROR_CATALOG.INVALID_ARGUMENTS.recovery,
        ERROR_CATALOG.INVALID_ARGUMENTS.retryable,
      ],
      ['not_started', 'correct_input', false],
    );
    assert.deepEqual(
      [ERROR_CATALOG.OUTCOME_UNKNOWN.outcome, ERROR_CATALOG.OUTCOME_UNKNOWN.recovery],
      ['unknown', 'query_status'],
    );
    assert.equal(ERROR_CATALOG.OUTCOME_UNKNOWN.retryable, false, 'an unknown write is never blindly re-run');
    assert.equal(ERROR_CATALOG.RATE_LIMITED.recovery, 'retry_after');
    assert.equal(ERROR_CATALOG.TIMEOUT_BEFORE_EXECUTE.outcome, 'not_started');
    assert.equal(ERROR_CATALOG.IDEMPOTENCY_CONFLICT.recovery, 'human_review');
    assert.equal(ERROR_CATALOG.STATUS_CONFLICT.recovery, 'human_review');
    assert.equal(ERROR_CATALOG.APPROVAL_REQUIRED.recovery, 'request_approval');
    assert.deepEqual(
      [ERROR_CATALOG.NOT_COMMITTED.category, ERROR_CATALOG.NOT_COMMITTED.outcome],
      ['side_effect', 'not_started'],
    );
  });

  it('drives the non-retryable list: unknown tools, bad arguments and unknown writes are never retried', () => {
    const never = nonRetryableCodes();
    for (const code of ['UNKNOWN_TOOL', 'INVALID_ARGUMENTS', 'OUTCOME_UNKNOWN', 'IDEMPOTENCY_CONFLICT'])
      assert.ok(never.includes(code as never), code);
    assert.ok(!never.includes('RATE_LIMITED'));
  });

  it('is frozen and matches own keys only', () => {
    assert.ok(Object.isFrozen(ERROR_CATALOG));
    assert.ok(isCatalogCode('NOT_FOUND'));
    assert.ok(!isCatalogCode('toString'));
    assert.ok(!isCatalogCode('__proto__'));
  });

  it('keeps safe messages free of placeholders and internals', () => {
    for (const code of CATALOG_CODES) assert.doesNotMatch(ERROR_CATALOG[code].message, /[{}$]|stack|exception/i, code);
  });
});
