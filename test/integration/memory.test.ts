import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WorkflowFailedError } from '@temporalio/client';
import { ActivityFailure, ApplicationFailure } from '@temporalio/common';
import { inspectCalls } from '../../src/cli/inspect.js';
import { withholdingProtected } from '../../src/cli/inspect-view.js';
import type { MemoryOutcome, MemoryRecord } from '../../workflows/index.js';
import { TOOLS } from '../../testkit/payment-tools.js';
import { useRuntimeHarness } from '../support/use-runtime-harness.js';

const principal = { tenant: 'tenant-acme', subject: 'user-42' };
const h = useRuntimeHarness('it-memory');
const finished: string[] = [];

test(
  'workflow code proposes memory through an activity: a fact resting only on untrusted evidence waits for confirmation, a guess is refused',
  { timeout: 120_000 },
  async () => {
    const result = (await h.temporal.client.workflow.execute('rememberFromRead', {
      taskQueue: h.taskQueue,
      workflowId: 'remember-1',
      args: ['cus_mem', principal],
    })) as {
      fact: MemoryOutcome;
      guess: MemoryOutcome;
      confirmed: MemoryRecord | null;
    };
    finished.push('remember-1');
    assert.deepEqual(
      [result.fact.decision, result.fact.reason],
      ['candidate', 'untrusted_evidence_only'],
      'the CRM is not a trusted source under the default policy',
    );
    assert.deepEqual(
      [result.guess.decision, result.guess.reason, result.guess.memory],
      ['refused', 'inference_not_allowed', null],
    );
    assert.deepEqual(
      [result.confirmed?.status, result.confirmed?.reason, result.confirmed?.confirmedBy],
      ['accepted', 'user_confirmed', 'user-42'],
    );
    assert.equal(result.fact.memory?.workflowId, 'remember-1', 'the memory belongs to the workflow that proposed it');
    assert.notEqual(result.fact.memory?.subjectRef, principal.subject, 'whose memory is an irreversible reference');

    const inspected = await inspectCalls(h.store, { workflowId: 'remember-1' });
    assert.deepEqual(
      inspected.memory.map((m) => [m.fact, m.status]),
      [['cus_mem is a gold customer', 'accepted']],
    );
    const shown = withholdingProtected(inspected, 'tool-contract inspect remember-1 --protected');
    assert.ok(
      shown.memory.every((m) => !('subjectRef' in m)),
      'inspect withholds whose memory it is unless asked',
    );
  },
);

test(
  'a state patch that claims a source its evidence does not have fails as INVALID_ARGUMENTS and writes nothing',
  { timeout: 120_000 },
  async () => {
    const error = await h.temporal.client.workflow
      .execute('readThenPatch', {
        taskQueue: h.taskQueue,
        workflowId: 'patch-wrong-source',
        args: [
          TOOLS.customer,
          { customer_id: 'cus_8' },
          { principal, callId: 'call-tier', key: 'customer.tier', pointer: '/tier', claimedSource: 'billing' },
        ],
      })
      .then(
        () => null,
        (e: unknown) => e,
      );
    assert.ok(
      error instanceof WorkflowFailedError &&
        error.cause instanceof ActivityFailure &&
        error.cause.cause instanceof ApplicationFailure,
    );
    assert.equal(error.cause.cause.type, 'INVALID_ARGUMENTS');
    assert.equal(error.cause.cause.nonRetryable, true);
    assert.deepEqual(await h.store.listStatePatches({ workflowId: 'patch-wrong-source' }), []);
  },
);

test('recorded memory histories replay deterministically', { timeout: 120_000 }, async () => {
  assert.deepEqual(await h.replay(finished), []);
});
