// Replays stored workflow histories against the current workflow code: a change that would break running
// workflows (non-determinism) fails here without a server. The fixtures are binary protobuf (`fetchHistory()`
// encoded), because JSON history import breaks when npm installs several protobufjs copies. Re-record them after an
// intended, versioned change with: TTC_RECORD_HISTORIES=1 scripts/run-tests.sh test/integration
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import protos from '@temporalio/proto';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { stackTraceCount } from '../support/history-fixture.js';
import { testWorkflowBundle } from '../support/test-workflow-bundle.js';

const historiesDir = fileURLToPath(new URL('./histories/', import.meta.url));

test('every stored history replays deterministically, and every workflow type of the package is covered', async () => {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const files = readdirSync(historiesDir)
    .filter((name) => name.endsWith('.binpb'))
    .sort();
  const histories = files.map((file) => ({
    workflowId: file.replace(/\.binpb$/, ''),
    history: protos.temporal.api.history.v1.History.decode(readFileSync(`${historiesDir}${file}`)),
  }));
  for (const { workflowId, history } of histories)
    assert.equal(stackTraceCount(history), 0, `${workflowId}: fixtures carry no machine-specific stack traces`);
  const types = new Set(
    histories.map(({ history }) => history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name),
  );
  for (const type of ['reconcileToolCall', 'runToolCall', 'runToolCalls', 'readThenPatch', 'agentLoop'])
    assert.ok(types.has(type), `a history of ${type} is stored`);

  const workflowBundle = await testWorkflowBundle();
  const failures: string[] = [];
  let replayed = 0;
  for await (const result of Worker.runReplayHistories({ workflowBundle }, histories)) {
    replayed += 1;
    if (result.error !== undefined) failures.push(`${result.workflowId}: ${String(result.error)}`);
  }
  assert.equal(replayed, files.length);
  assert.deepEqual(failures, []);
});
