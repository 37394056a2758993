// Runner fixture: a server its `after` hook closes only after a while, longer than the exit guard's grace period in
// the test that runs it; the guard must wait for the hook, not cut it short. Run only by test/unit/test-runner.test.ts.
import { createServer } from 'node:net';
import { after, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';

const server = createServer();
after(async () => {
  await sleep(1500);
  await new Promise((closed) => server.close(closed));
});

test('listens', async () => {
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
});
