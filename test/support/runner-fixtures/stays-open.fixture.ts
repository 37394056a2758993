// Runner fixture: its tests pass but leave a listening server behind, so the process never exits on its own. Run only
// by test/unit/test-runner.test.ts.
import { createServer } from 'node:net';
import { test } from 'node:test';

test('opens a server and forgets it', async () => {
  const server = createServer();
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
});
