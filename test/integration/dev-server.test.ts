import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { test } from 'node:test';
import { startDevServer } from '../../src/testing/dev-server.js';
import { freePort } from '../../src/testing/free-port.js';
import { resolveTemporalCli } from '../../src/testing/temporal-cli.js';
import { PROJECT_ROOT } from '../../testkit/project-root.js';

// The dev server's own ports and ours are picked free a moment before they are bound, so two picks can meet; a full
// CI run once lost its whole time budget to one such start. These tests take a port away on purpose.

function cliPath(): string {
  const cli = resolveTemporalCli({ env: process.env, projectRoot: PROJECT_ROOT });
  if (cli === null) throw new Error('Temporal CLI not found; run scripts/install-temporal-cli.sh');
  return cli.path;
}

/** Holds `port` without serving it: a connection the server (or a readiness probe) makes to it is dropped at once. */
async function squat(port: number): Promise<Server> {
  // Closing a server stops it accepting, but a connection it accepted would keep this process alive after the tests.
  const server = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return server;
}

test(
  'a port taken while the server starts is a new start with new ports, not a failed run',
  { timeout: 180_000 },
  async () => {
    const port = await freePort();
    const squatter = await squat(port);
    const seen: string[] = [];
    // The squatter leaves once the server has reported the collision: the next attempt finds the port free.
    const server = await startDevServer({
      cliPath: cliPath(),
      port,
      onOutput: (line) => {
        seen.push(line);
        if (/address already in use/i.test(line)) squatter.close();
      },
    });
    try {
      assert.equal(server.address, `127.0.0.1:${port}`);
      assert.ok(
        seen.some((line) => /address already in use/i.test(line)),
        'the first start did collide',
      );
    } finally {
      await server.stop();
      squatter.close();
    }
  },
);

test(
  'a port that stays taken fails fast, naming the collision, and leaves no server behind',
  { timeout: 180_000 },
  async () => {
    const port = await freePort();
    const squatter = await squat(port);
    try {
      const began = Date.now();
      await assert.rejects(
        startDevServer({ cliPath: cliPath(), port, startTimeoutMs: 120_000 }),
        /port taken[\s\S]*address already in use/i,
      );
      const tookMs = Date.now() - began;
      assert.ok(tookMs < 60_000, `gave up after ${tookMs} ms, well before its 120 s start deadline`);
      const servers = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
        .split('\n')
        .filter((args) => args.includes('start-dev') && args.includes(`--port ${port} `));
      assert.deepEqual(servers, [], 'every attempt was stopped');
    } finally {
      squatter.close();
    }
  },
);
