import { createServer } from 'node:net';

/**
 * A TCP port on the loopback interface that the OS reported free a moment ago. Another process may take it before
 * the caller binds it; callers bind at once and fail on a clash rather than share the port.
 */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    // The probe must never be what keeps the process alive.
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : null;
      server.close(() => (port === null ? reject(new Error('no port assigned')) : resolve(port)));
    });
  });
}
