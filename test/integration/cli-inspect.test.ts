import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { z } from 'zod';
import { executeTool } from '../../src/contract/execute-tool.js';
import { EXIT_CODES } from '../../src/cli/cli-error.js';
import type { InspectView } from '../../src/cli/inspect-view.js';
import { runCli, runShellLine } from '../support/cli-process.js';
import { PROJECT_ROOT } from '../../testkit/project-root.js';
import { testContext } from '../../testkit/context.js';
import { openTestDatabase, type TestDatabase } from '../support/postgres.js';
import { defineTool } from '../../testkit/define-tool.js';

// `inspect` as an operator runs it (a child process on DATABASE_URL), on two calls: one failed with an exception naming
// an internal host (kept in its protected audit, which only --protected prints), one returned a connection string with
// a password as data (redacted by the funnel before anything stored it, so no flag can print it).
const INTERNAL_HOST = 'warehouse-primary-7f3a.internal';
const SECRET = 'hunter2';
const LEAKY_URL = `postgres://admin:${SECRET}@db/x`;
const workflowId = `cli-inspect-${process.pid}`;
const callId = 'call-0001';
const describeCallId = 'call-0002';
const idempotencyKey = `${workflowId}/lookup-key-7f3a`;

const warehouseLookup = defineTool({
  name: 'warehouse.lookup',
  description: 'Reads a row of the warehouse database.',
  effect: 'read',
  input: z.strictObject({ sku: z.string() }),
  output: z.strictObject({ sku: z.string() }),
  source: { label: 'warehouse-db', type: 'database' },
  handler: () => Promise.reject(new Error(`connect ECONNREFUSED ${INTERNAL_HOST}:5432`)),
});

const warehouseDescribe = defineTool({
  name: 'warehouse.describe',
  description: 'Says where the warehouse data lives.',
  effect: 'read',
  input: z.strictObject({}),
  output: z.strictObject({ location: z.string() }),
  source: { label: 'warehouse-db', type: 'database' },
  handler: () => Promise.resolve({ data: { location: LEAKY_URL } }),
});

let db: TestDatabase;
let env: Record<string, string>;

before(
  async () => {
    db = await openTestDatabase('it-cli-inspect');
    env = { DATABASE_URL: db.connectionString, DATABASE_SCHEMA: db.schema };
    const ctx = testContext({
      callId,
      operationId: `op-${workflowId}`,
      idempotencyKey,
      temporal: { workflowId, runId: 'run-1', activityId: '1', attempt: 1 },
    });
    const execution = await executeTool(warehouseLookup, { sku: 'sku-1' }, ctx);
    assert.equal(execution.modelResult.error?.code, 'TOOL_ERROR');
    assert.match(
      JSON.stringify(execution.audit.error_detail),
      new RegExp(INTERNAL_HOST),
      'the protected audit holds the internal detail',
    );
    await db.store().recordExecution({ execution, workflowId, runId: 'run-1' });
    const described = await executeTool(
      warehouseDescribe,
      {},
      testContext({ callId: describeCallId, operationId: `op-${workflowId}-2`, idempotencyKey: `${idempotencyKey}-2` }),
    );
    assert.equal(described.modelResult.status, 'succeeded');
    await db.store().recordExecution({ execution: described, workflowId, runId: 'run-1' });
  },
  { timeout: 120_000 },
);

after(
  async () => {
    await db?.close();
  },
  { timeout: 60_000 },
);

test(
  'inspect withholds the protected audit fields by default, says so, and prints them only with --protected',
  { timeout: 120_000 },
  async () => {
    const shown = await runCli(['inspect', workflowId], { env });
    assert.equal(shown.code, EXIT_CODES.ok, shown.stderr);
    assert.ok(!shown.stdout.includes(INTERNAL_HOST), 'no protected detail on the terminal without --protected');
    assert.ok(!shown.stdout.includes(SECRET), 'nor the password');
    assert.ok(!shown.stdout.includes(idempotencyKey), 'nor the idempotency key');
    const view = JSON.parse(shown.stdout) as InspectView;
    assert.equal(view.protectedFields.included, false);
    assert.ok(
      !view.protectedFields.included && view.protectedFields.withheld.includes('audit.error_detail'),
      'the output says what it withheld',
    );
    const call = view.calls.find((candidate) => candidate.callId === callId);
    const audit = call?.attempts[0]?.audit as Record<string, unknown> | undefined;
    assert.ok(audit !== undefined);
    for (const field of [
      'error_detail',
      'principal_ref',
      'provider',
      'operation_id',
      'idempotency_key',
      'downstream',
      'redactions',
    ])
      assert.ok(!(field in audit), `${field} withheld`);
    // What says what happened and proves it stays.
    assert.equal(audit['error_code'], 'TOOL_ERROR');
    assert.equal(audit['status'], 'failed');
    assert.ok(Array.isArray(audit['validation']) && audit['validation'].length > 0, 'layer outcomes');
    assert.ok(typeof audit['bindings'] === 'object' && audit['bindings'] !== null, 'digests');
    assert.equal(call?.modelResult.error?.code, 'TOOL_ERROR', 'the model result as the model saw it');
    const described = view.calls.find((candidate) => candidate.callId === describeCallId);
    // The funnel stored `admin:[REDACTED]`; the CLI masks any URL password it prints as `***` on top.
    assert.deepEqual(
      described?.modelResult.data,
      { location: 'postgres://admin:***@db/x' },
      'URL credentials never reach the terminal',
    );

    // The command the output names, run exactly as printed, shows everything as stored.
    assert.ok(!view.protectedFields.included);
    assert.match(
      view.protectedFields.toInclude,
      /^npm run cli -- inspect /,
      'from a clone, in the form that runs there',
    );
    const ran = await runShellLine(view.protectedFields.toInclude, { cwd: PROJECT_ROOT, env });
    assert.equal(ran.code, EXIT_CODES.ok, ran.stderr);
    // After npm's own banner, the CLI's JSON.
    const full = { ...ran, stdout: ran.stdout.slice(ran.stdout.indexOf('{')) };
    assert.ok(full.stdout.includes(INTERNAL_HOST), 'the operator asked for the protected fields');
    assert.ok(!full.stdout.includes(SECRET), 'a redacted secret is gone everywhere, --protected or not');
    const revealed = JSON.parse(full.stdout) as InspectView;
    assert.deepEqual(revealed.protectedFields, { included: true });
    const stored = revealed.calls.find((candidate) => candidate.callId === callId)?.attempts[0]?.audit as
      Record<string, unknown> | undefined;
    assert.match(JSON.stringify(stored?.['error_detail']), new RegExp(INTERNAL_HOST));
    assert.equal(stored?.['idempotency_key'], idempotencyKey);
    assert.deepEqual(
      revealed.calls.find((candidate) => candidate.callId === describeCallId)?.modelResult.data,
      { location: 'postgres://admin:[REDACTED]@db/x' },
      'as stored',
    );
  },
);

test('inspect of a workflow without audited calls is not found (exit 3)', { timeout: 60_000 }, async () => {
  const missing = await runCli(['inspect', `${workflowId}-none`, '--protected'], { env });
  assert.equal(missing.code, EXIT_CODES.notFound, missing.stderr);
  assert.equal(missing.stdout, '');
});
