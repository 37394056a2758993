import { connect, createServer, type Socket } from 'node:net';

/**
 * A TCP port on the loopback interface that the OS reported free a moment ago, held back from the OS's own picks for
 * a while. Linux hands out ephemeral ports at random and may give a port just released to the next `bind(0)` or
 * outgoing connection — for instance to one of the Temporal dev server's own internal services, which then cannot
 * bind it. So the probe connects to itself and closes the accepted side first: that side's port stays in TIME_WAIT
 * (60 s), during which the OS picks it for no one, while a listener that sets SO_REUSEADDR (Node and Go both do) may
 * still bind it explicitly. Another process can still take the port on purpose; callers bind at once and fail on a
 * clash rather than share it.
 */
export async function freePort(): Promise<number> {
  const server = createServer();
  // The probe must never be what keeps the process alive.
  server.unref();
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      if (typeof address === 'object' && address !== null) resolve(address.port);
      else reject(new Error('no port assigned'));
    });
  });
  try {
    await holdInTimeWait(server, port);
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  return port;
}

async function holdInTimeWait(server: ReturnType<typeof createServer>, port: number): Promise<void> {
  const accepted = new Promise<Socket>((resolve) => server.once('connection', resolve));
  const client = connect(port, '127.0.0.1');
  client.unref();
  try {
    await new Promise<void>((resolve, reject) => {
      client.once('connect', resolve);
      client.once('error', reject);
    });
    const side = await accepted;
    // The side that closes first enters TIME_WAIT: it must be the accepted one, whose local port is `port`.
    const closedFirst = new Promise<void>((resolve) => client.once('end', resolve));
    side.end();
    await closedFirst;
    side.destroy();
  } finally {
    client.destroy();
  }
}
