import assert from 'node:assert/strict';
import { test } from 'node:test';
import { markerWatcher } from '../../src/testing/postgres-process.js';

const READY = 'database system is ready to accept connections';

test("a server's readiness line is seen split across chunks, and with more log lines after it in the same chunk", () => {
  const split = markerWatcher(READY);
  assert.equal(split('LOG:  database system is rea'), false);
  assert.equal(split('dy to accept connections\n'), true);

  // A restarted server writes the clients it turned away and its readiness in one write: the line is not at the end.
  const crowded = markerWatcher(READY);
  const turnedAway = 'FATAL:  the database system is not yet accepting connections\n'.repeat(5);
  assert.equal(
    crowded(`${turnedAway}LOG:  ${READY}\n${'LOG:  connection received: host=127.0.0.1 port=51234\n'.repeat(5)}`),
    true,
  );

  const never = markerWatcher(READY);
  for (const chunk of ['LOG:  starting PostgreSQL\n', 'LOG:  database system was shut down\n', 'ready to accept'])
    assert.equal(never(chunk), false);
});
