import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { Client } from '@temporalio/client';
import { EXIT_CODES } from '../../src/cli/cli-error.js';
import { AesGcmPayloadCodec, parseCodecKeys } from '../../src/codec/index.js';
import type { ToolCallResult } from '../../workflows/index.js';
import { runCli, startCli } from '../support/cli-process.js';
import { useCliStack } from '../support/cli-stack.js';

// With TTC_CODEC_KEYS the worker encrypts every payload: the server's history holds ciphertext only, and the CLI's
// operator commands still read the workflow (they decode with the same keys).
const KEYS = `k1:${randomBytes(32).toString('base64')}`;
const ORDER_ID = 'ord_1001';

/** Every string and byte field of a history, as text (strings also base64-decoded): what a reader of the server sees. */
function readableText(value: unknown): string[] {
  if (typeof value === 'string') return [value, Buffer.from(value, 'base64').toString('latin1')];
  if (value instanceof Uint8Array) return [Buffer.from(value).toString('latin1')];
  if (typeof value !== 'object' || value === null) return [];
  return Object.values(value).flatMap(readableText);
}

const stack = useCliStack('it-cli-codec', { TTC_CODEC_KEYS: KEYS });

test(
  'an encrypting worker leaves only ciphertext in history; pending decodes with the keys and fails without them',
  { timeout: 240_000 },
  async () => {
    const taskQueue = `cli-codec-${process.pid}`;
    const worker = startCli(
      [
        'worker',
        '--json',
        '--tools',
        'test/support/cli-worker-tools.ts',
        '--workflows',
        'test/support/test-workflows.ts',
        '--task-queue',
        taskQueue,
      ],
      { env: stack.env },
    );
    try {
      await worker.waitForEvent('ready', 180_000);
      const client = new Client({
        connection: stack.temporal.connection,
        namespace: stack.temporal.server.namespace,
        dataConverter: { payloadCodecs: [new AesGcmPayloadCodec(parseCodecKeys(KEYS))] },
      });
      const workflowId = `cli-codec-call-${process.pid}`;
      const result = (await client.workflow.execute('runToolCall', {
        taskQueue,
        workflowId,
        args: ['orders.get', { order_id: ORDER_ID }, { principal: { tenant: 't-1', subject: 'u-1' } }],
      })) as ToolCallResult;
      assert.equal(result.modelResult.status, 'succeeded');
      assert.equal((result.modelResult.data as { id: string }).id, ORDER_ID);

      // History as the server holds it, read without the codec.
      const history = await stack.temporal.client.workflow.getHandle(workflowId).fetchHistory();
      const text = readableText(history);
      assert.ok(text.includes('binary/encrypted'), 'payloads are encrypted');
      assert.ok(!text.some((entry) => entry.includes(ORDER_ID)), 'no argument or result in plaintext');

      const pending = await runCli(['pending', workflowId], { env: stack.env });
      assert.equal(pending.code, EXIT_CODES.ok, pending.stderr);
      assert.deepEqual(
        (JSON.parse(pending.stdout) as { workflows: { approvals: unknown[] }[] }).workflows.map(
          (entry) => entry.approvals,
        ),
        [[]],
      );
      const keyless = await runCli(['pending', workflowId], { env: { ...stack.env, TTC_CODEC_KEYS: undefined } });
      assert.notEqual(keyless.code, EXIT_CODES.ok, 'without the keys the answer cannot be read');
    } finally {
      worker.child.kill('SIGTERM');
      if ((await worker.exited(60_000).catch(() => null)) === null) worker.child.kill('SIGKILL');
    }
  },
);
